"""The A-SRPT instance (cluster + job stream with job graphs) and its checker (docs ``optsched/problems/srpt/README.md``).

optsched's formulation [ours, after the abstract of Luo, Liu, Lee & Shroff, arXiv 2501.05563]:

* servers ``s`` with ``gpus_per_server[s]`` GPUs, intra- and inter-server bandwidths (bytes/s,
  ``inter_bandwidth <= intra_bandwidth``), a checkpoint/restart overhead (s) paid by every start
  that follows a preemption;
* job ``j``: arrival ``a_j``, GPU demand ``g_j`` (gang: all ``g_j`` workers run together), a job
  graph on nodes ``0..g_j-1`` (one worker or stage per GPU; ``edges`` = ``(u, v, bytes per
  iteration)``), compute time per iteration, true iteration count ``n_j`` and the prediction
  ``n_hat_j`` (what schedulers may use; the checker uses the truth).
* Iteration time of a placement (node -> server) [ours]:
  ``tau = compute_s + cut_bytes / inter_bandwidth + (total_bytes - cut_bytes) / intra_bandwidth``
  -- every plan uses this serialized-communication model; with ``inter <= intra`` a smaller cut
  never makes an iteration slower, so placement minimizes the cut weight.

Objective (authoritative): total flow time ``sum_j (C_j - a_j)``, ``C_j`` the end of job j's last
run segment.

Solution schema: ``{"jobs": [{"id": j, "segments": [{"start": s, "end": e, "servers": [server of
node 0, server of node 1, ...]}, ...]}, ...]}`` -- every job once, its run segments in time order.
The checker verifies from the instance alone: segments within ``[a_j, inf)``, ordered and
disjoint; each placement names exactly ``g_j`` valid servers; at every instant no server holds
more GPUs than it has; and the work done covers ``n_j``: ``sum_k max(0, e_k - s_k - o_k) /
tau_k >= n_j`` (``o_k`` = the restart overhead for k >= 1, 0 for the first segment), up to a
relative 1e-9 (float accumulation in the simulator) plus, per segment, ``TIME_ULPS`` units in the
last place of its end time divided by ``tau_k`` (the segment's length is the difference of two
instants rounded to the float grid at their magnitude: at t ~ 10^7 s one ulp is 1.9e-9 s, which
for a job of 0.3 s of work is a relative 6e-9 -- seen on 10^6-job streams).
"""

from __future__ import annotations

import functools
import math
from array import array
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport

__all__ = ["SrptJob", "SrptInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "WORK_RTOL",
           "TIME_ULPS"]

OBJECTIVE = "minimize total flow time sum_j (C_j - a_j), C_j = end of job j's last run segment"
#: the objective's unit, printed after its value by ``optsched solve`` (total flow time in seconds)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"jobs": [{"id": j, "segments": [{"start": s, "end": e, "servers": [server per graph node]}]}]}'
                   "  (every job once, segments in time order)")

#: relative slack on the work a schedule must cover: the simulator accumulates remaining work over
#: at most a few thousand rate changes, each losing an ulp (2e-16) -- far below 1e-9
WORK_RTOL = 1e-9
#: absolute slack per segment in units in the last place of its end time: the simulator rounds
#: the instant progress starts (start + overhead) and the completion instant (progress start +
#: remaining / rate), and the checker rounds end - start - overhead twice: at most 4 roundings
TIME_ULPS = 4


@dataclass(frozen=True)
class SrptJob(Record):
    """One job of the stream (times in seconds, communication in bytes per iteration)."""

    problem = "srpt"
    id: int
    arrival: float
    gpus: int
    plan: Literal["data", "pipeline", "tensor"]
    graph: Literal["ring", "chain", "grid"]
    edges: tuple[tuple[int, int, float], ...]
    compute_s: float
    iterations: int
    predicted_iterations: float
    model: str = ""
    batch_size: int = 0
    recurrence: str = ""

    def validate(self) -> None:
        self.require(self.arrival >= 0 and math.isfinite(self.arrival), "arrival", "must be finite and >= 0",
                     self.arrival)
        self.require(self.gpus >= 1, "gpus", "must be >= 1", self.gpus)
        self.require(self.compute_s > 0 and math.isfinite(self.compute_s), "compute_s", "must be finite and > 0",
                     self.compute_s)
        self.require(self.iterations >= 1, "iterations", "must be >= 1", self.iterations)
        self.require(self.predicted_iterations > 0 and math.isfinite(self.predicted_iterations),
                     "predicted_iterations", "must be finite and > 0", self.predicted_iterations)
        g = self.gpus
        if (g, self.edges) in _VALID_EDGES:
            return   # the same graph was checked for another job of the same kind
        if all(0 <= u < g and 0 <= v < g and u != v and 0 <= w < math.inf for u, v, w in self.edges):
            if len(_VALID_EDGES) >= _EDGE_CACHE_MAX:
                _VALID_EDGES.clear()
            _VALID_EDGES.add((g, self.edges))
            return   # the common case, without building a message per edge
        for k, (u, v, w) in enumerate(self.edges):
            self.require(0 <= u < g and 0 <= v < g and u != v, f"edges[{k}]",
                         f"must join two distinct nodes in 0..{g - 1}", (u, v))
            self.require(w >= 0 and math.isfinite(w), f"edges[{k}][2]", "bytes must be finite and >= 0", w)

    @property
    def edge_array(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(u, v, bytes)`` columns of the edges (shared by every job with equal edges)."""
        return _edge_columns(self.edges)[:3]

    @property
    def total_bytes(self) -> float:
        return _edge_columns(self.edges)[3]

    @classmethod
    def trusted(cls, **fields) -> "SrptJob":
        """A job from values of the annotated types already (ints, floats, strings, a tuple of
        ``(int, int, float)`` edges): skips the type-driven conversion, still validates. The fast
        path of the generator and of :meth:`SrptInstance.from_dict`."""
        job = object.__new__(cls)
        for name, default in _JOB_DEFAULTS.items():
            object.__setattr__(job, name, fields.pop(name, default))
        if fields:
            raise TypeError(f"unknown SrptJob field(s): {sorted(fields)}")
        job.validate()
        return job

    def cut_bytes(self, servers) -> float:
        """Bytes per iteration on edges whose endpoints sit on different servers."""
        u, v, w = self.edge_array
        s = np.asarray(servers)
        return float(w[s[u] != s[v]].sum()) if w.size else 0.0


_JOB_DEFAULTS = {"id": None, "arrival": None, "gpus": None, "plan": None, "graph": None, "edges": None,
                 "compute_s": None, "iterations": None, "predicted_iterations": None, "model": "",
                 "batch_size": 0, "recurrence": ""}
#: edges tuple -> (u, v, bytes, total bytes); jobs of one kind share one entry [bounded: cleared
#: beyond _EDGE_CACHE_MAX distinct graphs]
_EDGE_CACHE: dict[tuple, tuple] = {}
_EDGE_CACHE_MAX = 65536
#: (GPUs, edges) pairs already validated
_VALID_EDGES: set[tuple] = set()


def _edge_columns(edges: tuple) -> tuple:
    hit = _EDGE_CACHE.get(edges)
    if hit is None:
        if not edges:
            hit = (np.zeros(0, int), np.zeros(0, int), np.zeros(0), 0.0)
        else:
            e = np.asarray(edges, float)
            w = e[:, 2]
            hit = (e[:, 0].astype(int), e[:, 1].astype(int), w, float(w.sum()))
        if len(_EDGE_CACHE) >= _EDGE_CACHE_MAX:
            _EDGE_CACHE.clear()
        _EDGE_CACHE[edges] = hit
    return hit


@dataclass(frozen=True)
class SrptInstance(Instance):
    """A GPU cluster and a stream of jobs for online flow-time scheduling."""

    problem = "srpt"
    gpus_per_server: tuple[int, ...]
    intra_bandwidth: float
    inter_bandwidth: float
    restart_overhead: float
    jobs: tuple[SrptJob, ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(len(self.gpus_per_server) >= 1, "gpus_per_server", "must list at least one server")
        for s, g in enumerate(self.gpus_per_server):
            # [ours] the schedulers track every GPU: 1024 per server and 65536 in all keep a
            # placement step far below a second
            self.require(1 <= g <= 1024, f"gpus_per_server[{s}]", "must be in 1..1024", g)
        self.require(sum(self.gpus_per_server) <= 65536, "gpus_per_server",
                     "the cluster must have at most 65536 GPUs", sum(self.gpus_per_server))
        self.require(math.isfinite(self.intra_bandwidth) and self.intra_bandwidth > 0, "intra_bandwidth",
                     "must be finite and > 0", self.intra_bandwidth)
        self.require(math.isfinite(self.inter_bandwidth) and 0 < self.inter_bandwidth <= self.intra_bandwidth,
                     "inter_bandwidth", "must be > 0 and <= intra_bandwidth", self.inter_bandwidth)
        self.require(math.isfinite(self.restart_overhead) and self.restart_overhead >= 0, "restart_overhead",
                     "must be finite and >= 0", self.restart_overhead)
        self.require(len(self.jobs) >= 1, "jobs", "the job stream is empty: must list at least one job", 0)
        total = sum(self.gpus_per_server)
        seen = set()
        for k, job in enumerate(self.jobs):
            self.require(job.id not in seen, f"jobs[{k}].id", "job ids must be unique", job.id)
            seen.add(job.id)
            self.require(job.gpus <= total, f"jobs[{k}].gpus",
                         f"the job is larger than the cluster ({total} GPUs)", job.gpus)

    @classmethod
    def from_dict(cls, data, path: str = "", problem: str | None = None) -> "SrptInstance":
        """Columnar fast path for well-formed data (one pass per field, edges shared between the
        jobs of one kind); anything irregular goes through the generic type-driven conversion,
        which names the offending field and index exactly as before."""
        if not path:
            fast = _fast_from_dict(cls, data)
            if fast is not None:
                return fast
        return super().from_dict(data, path, problem)

    def _jobs_data(self, lo: int, hi: int, edge_lists: dict[int, list]) -> list[dict]:
        """JSON data of jobs ``lo..hi-1``; equal graphs share one edge list (JSON writers do not care)."""
        out = []
        for j in self.jobs[lo:hi]:
            edges = edge_lists.get(id(j.edges))
            if edges is None:
                edges = edge_lists[id(j.edges)] = [list(e) for e in j.edges]
            out.append({"id": j.id, "arrival": j.arrival, "gpus": j.gpus, "plan": j.plan, "graph": j.graph,
                        "edges": edges, "compute_s": j.compute_s, "iterations": j.iterations,
                        "predicted_iterations": j.predicted_iterations, "model": j.model,
                        "batch_size": j.batch_size, "recurrence": j.recurrence})
        return out

    def _head_data(self) -> dict:
        return {"gpus_per_server": list(self.gpus_per_server), "intra_bandwidth": self.intra_bandwidth,
                "inter_bandwidth": self.inter_bandwidth, "restart_overhead": self.restart_overhead, "jobs": [],
                "name": self.name, "provenance": self.provenance}

    def to_dict(self) -> dict:
        """The JSON data (as :meth:`Record.to_dict` gives it), built per column."""
        data = self._head_data()
        data["jobs"] = self._jobs_data(0, len(self.jobs), {})
        return data

    def sha256(self) -> str:
        """SHA-256 of the canonical JSON (the same digest as :meth:`Instance.sha256`), hashed in
        chunks of jobs so that a 10^6-job stream never holds its whole JSON text or data at once."""
        import hashlib
        import json

        cached = self.__dict__.get("_sha256")
        if cached is not None:
            return cached
        data = {"format_version": self.format_version, "problem": self.problem, **self._head_data()}
        edge_lists: dict[int, list] = {}
        dump = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"), allow_nan=False)
        head, tail = dump(data).split('"jobs":[]', 1)
        digest = hashlib.sha256((head + '"jobs":[').encode())
        for lo in range(0, len(self.jobs), 4096):
            chunk = dump(self._jobs_data(lo, lo + 4096, edge_lists))[1:-1]
            digest.update(((',' if lo else '') + chunk).encode())
        digest.update((']' + tail).encode())
        cached = digest.hexdigest()
        object.__setattr__(self, "_sha256", cached)
        return cached

    @classmethod
    def trusted(cls, **fields) -> "SrptInstance":
        """An instance from fields of the annotated types already (``jobs`` a tuple of
        :class:`SrptJob`); skips the conversion, still validates."""
        from optsched.core.instance import MAX_MAGNITUDE

        fields.setdefault("name", "")
        fields.setdefault("provenance", "")
        regular = (type(fields.get("jobs")) is tuple and type(fields.get("gpus_per_server")) is tuple
                   and all(type(g) is int for g in fields["gpus_per_server"])
                   and all(type(fields.get(f)) is float and abs(fields[f]) <= MAX_MAGNITUDE
                           for f in ("intra_bandwidth", "inter_bandwidth", "restart_overhead"))
                   and type(fields["name"]) is str and type(fields["provenance"]) is str)
        if not regular:   # the generic constructor converts or names the offending field
            return cls(**fields)
        inst = object.__new__(cls)
        for name in ("gpus_per_server", "intra_bandwidth", "inter_bandwidth", "restart_overhead", "jobs", "name",
                     "provenance"):
            object.__setattr__(inst, name, fields.pop(name))
        if fields:
            raise TypeError(f"unknown SrptInstance field(s): {sorted(fields)}")
        inst.validate()
        return inst

    @property
    def total_gpus(self) -> int:
        return sum(self.gpus_per_server)

    @cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """The jobs' scalar fields as numpy columns in job order (``id``, ``arrival``, ``gpus``,
        ``iterations``, ``predicted_iterations``, ``compute_s``), built once."""
        jobs = self.jobs
        return {"id": np.fromiter((j.id for j in jobs), np.int64, len(jobs)),
                "arrival": np.fromiter((j.arrival for j in jobs), float, len(jobs)),
                "gpus": np.fromiter((j.gpus for j in jobs), np.int64, len(jobs)),
                "iterations": np.fromiter((j.iterations for j in jobs), np.int64, len(jobs)),
                "predicted_iterations": np.fromiter((j.predicted_iterations for j in jobs), float, len(jobs)),
                "compute_s": np.fromiter((j.compute_s for j in jobs), float, len(jobs))}

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    def iteration_time(self, job: SrptJob, servers) -> float:
        """Seconds per iteration of ``job`` with node k on server ``servers[k]``."""
        first = servers[0] if len(servers) else None
        if all(s == first for s in servers):   # one server: no edge is cut
            cut = 0.0
        else:
            cut = job.cut_bytes(servers)
        return job.compute_s + cut / self.inter_bandwidth + (job.total_bytes - cut) / self.intra_bandwidth


_JOB_REQUIRED = frozenset(k for k, v in _JOB_DEFAULTS.items() if v is None)
_JOB_FIELDS = frozenset(_JOB_DEFAULTS)
_INSTANCE_REQUIRED = frozenset({"gpus_per_server", "intra_bandwidth", "inter_bandwidth", "restart_overhead",
                                "jobs"})
_INSTANCE_FIELDS = _INSTANCE_REQUIRED | {"name", "provenance"}
_PLANS, _GRAPHS = frozenset({"data", "pipeline", "tensor"}), frozenset({"ring", "chain", "grid"})


def _float_column(values: list) -> list | None:
    """``values`` as Python floats when every one is an int or float, finite-or-inf and within
    the magnitude limit of :mod:`optsched.core.instance` (else None: the generic path decides)."""
    from optsched.core.instance import MAX_MAGNITUDE

    kinds = set(map(type, values))
    if not kinds <= {int, float}:
        return None
    try:
        out = list(map(float, values)) if int in kinds else values
    except OverflowError:
        return None
    arr = np.asarray(out, float)
    if arr.size and (np.isnan(arr).any() or float(np.abs(arr).max()) > MAX_MAGNITUDE):
        return None
    return out


def _fast_from_dict(cls, data) -> "SrptInstance | None":
    """See :meth:`SrptInstance.from_dict`; None whenever the data is not regular."""
    if not isinstance(data, dict) or data.keys() - _INSTANCE_FIELDS or _INSTANCE_REQUIRED - data.keys():
        return None
    gps, jobs = data["gpus_per_server"], data["jobs"]
    if not isinstance(gps, list) or not set(map(type, gps)) <= {int} or not isinstance(jobs, list):
        return None
    scalars = _float_column([data["intra_bandwidth"], data["inter_bandwidth"], data["restart_overhead"]])
    name, provenance = data.get("name", ""), data.get("provenance", "")
    if scalars is None or type(name) is not str or type(provenance) is not str:
        return None
    if not set(map(type, jobs)) <= {dict}:
        return None
    for job in jobs:
        keys = job.keys()
        if keys - _JOB_FIELDS or _JOB_REQUIRED - keys:
            return None
    columns = {}
    for field in ("id", "gpus", "iterations", "batch_size"):
        col = [job.get(field, 0) for job in jobs]
        if not set(map(type, col)) <= {int}:
            return None
        columns[field] = col
    for field in ("arrival", "compute_s", "predicted_iterations"):
        col = _float_column([job[field] for job in jobs])
        if col is None:
            return None
        columns[field] = col
    for field, allowed in (("plan", _PLANS), ("graph", _GRAPHS), ("model", None), ("recurrence", None)):
        col = [job.get(field, "") for job in jobs]
        if not set(map(type, col)) <= {str} or (allowed is not None and not set(col) <= allowed):
            return None
        columns[field] = col
    shared: dict[tuple, tuple] = {}
    edges_col = []
    for job in jobs:
        edges = job["edges"]
        if type(edges) is not list:
            return None
        for e in edges:
            if type(e) is not list or len(e) != 3 or type(e[0]) is not int or type(e[1]) is not int \
                    or type(e[2]) not in (int, float):
                return None
        key = tuple(map(tuple, edges))
        hit = shared.get(key)
        if hit is None:
            weights = _float_column([e[2] for e in edges])
            if weights is None:
                return None
            hit = shared[key] = tuple((e[0], e[1], w) for e, w in zip(edges, weights))
        edges_col.append(hit)
    built = tuple(
        SrptJob.trusted(id=i, arrival=a, gpus=g, plan=p, graph=gr, edges=e, compute_s=c, iterations=n,
                        predicted_iterations=ph, model=m, batch_size=b, recurrence=r)
        for i, a, g, p, gr, e, c, n, ph, m, b, r in zip(
            columns["id"], columns["arrival"], columns["gpus"], columns["plan"], columns["graph"], edges_col,
            columns["compute_s"], columns["iterations"], columns["predicted_iterations"], columns["model"],
            columns["batch_size"], columns["recurrence"]))
    return cls.trusted(gpus_per_server=tuple(gps), intra_bandwidth=scalars[0], inter_bandwidth=scalars[1],
                       restart_overhead=scalars[2], jobs=built, name=name, provenance=provenance)


def _fail(msg: str) -> CheckReport:
    return CheckReport(False, None, [msg])


def check(instance: SrptInstance, solution) -> CheckReport:
    """Verify a schedule from the instance alone and compute its total flow time."""
    if not isinstance(solution, dict) or set(solution) != {"jobs"} or not isinstance(solution["jobs"], list):
        return _fail('solution must be an object {"jobs": [...]}')
    by_id = {job.id: job for job in instance.jobs}
    violations: list[str] = []
    seen: set[int] = set()
    flow = []
    num_servers = len(instance.gpus_per_server)
    # capacity sweep: (time, server, +/- GPUs), compact columns (8 bytes per entry)
    usage_t, usage_s, usage_d = array("d"), array("q"), array("q")
    for entry in solution["jobs"]:
        if not isinstance(entry, dict) or set(entry) != {"id", "segments"} or not isinstance(entry["segments"], list):
            return _fail('every job entry must be {"id": j, "segments": [...]}')
        jid = entry["id"]
        if not isinstance(jid, int) or isinstance(jid, bool) or jid not in by_id or jid in seen:
            violations.append(f"job id {jid!r} unknown or listed twice")
            continue
        seen.add(jid)
        job = by_id[jid]
        work, last_end, slack = 0.0, job.arrival, 0.0
        if not entry["segments"]:
            violations.append(f"job {jid}: no run segment")
            continue
        for k, seg in enumerate(entry["segments"]):
            if not isinstance(seg, dict) or set(seg) != {"start", "end", "servers"}:
                return _fail(f'job {jid}: segment {k} must be {{"start", "end", "servers"}}')
            start, end, servers = seg["start"], seg["end"], seg["servers"]
            if not (isinstance(servers, list) and len(servers) == job.gpus
                    and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < num_servers for s in servers)):
                violations.append(f"job {jid} segment {k}: servers must list {job.gpus} server indices "
                                  f"in 0..{num_servers - 1} (gang scheduling)")
                continue
            if not (all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, end))
                    and math.isfinite(start) and math.isfinite(end) and start <= end):
                violations.append(f"job {jid} segment {k}: needs finite start <= end, got {start!r}, {end!r}")
                continue
            if start < last_end:
                violations.append(f"job {jid} segment {k}: starts at {start!r}, before "
                                  f"{'its arrival' if k == 0 else 'the previous segment ends'} ({last_end!r})")
            last_end = end
            overhead = instance.restart_overhead if k else 0.0
            tau = instance.iteration_time(job, servers)
            work += max(0.0, end - start - overhead) / tau
            slack += TIME_ULPS * math.ulp(end) / tau
            held: dict[int, int] = {}
            for s in servers:
                held[s] = held.get(s, 0) + 1
            for s, count in held.items():
                usage_t.extend((start, end))
                usage_s.extend((s, s))
                usage_d.extend((count, -count))
        if work < job.iterations * (1 - WORK_RTOL) - slack:
            violations.append(f"job {jid}: its segments do {work:.6g} iterations, it needs {job.iterations}")
        flow.append(last_end - job.arrival)
    missing = sorted(set(by_id) - seen)
    if missing:
        violations.append(f"{len(missing)} job(s) missing from the schedule, e.g. {missing[:5]}")
    if usage_t:
        t, s, d = np.frombuffer(usage_t, float), np.frombuffer(usage_s, np.int64), np.frombuffer(usage_d, np.int64)
        order = np.lexsort((d, s, t))  # per server and time, releases (-) before acquisitions (+)
        order = order[np.argsort(s[order], kind="stable")]
        for server in range(num_servers):
            idx = order[s[order] == server]
            held = np.cumsum(d[idx])
            over = np.flatnonzero(held > instance.gpus_per_server[server])
            if over.size:
                violations.append(f"server {server}: {int(held[over[0]])} GPUs in use at t = {float(t[idx][over[0]])!r}, "
                                  f"it has {instance.gpus_per_server[server]}")
    objective = math.fsum(flow)
    return CheckReport(not violations, objective, violations)
