"""The A-SRPT instance (cluster + job stream with job graphs) and its checker (spec ``online.md``).

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
relative 1e-9 (float accumulation in the simulator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport

__all__ = ["SrptJob", "SrptInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "WORK_RTOL"]

OBJECTIVE = "minimize total flow time sum_j (C_j - a_j), C_j = end of job j's last run segment"
SOLUTION_SCHEMA = ('{"jobs": [{"id": j, "segments": [{"start": s, "end": e, "servers": [server per graph node]}]}]}'
                   "  (every job once, segments in time order)")

#: relative slack on the work a schedule must cover: the simulator accumulates remaining work over
#: at most a few thousand rate changes, each losing an ulp (2e-16) -- far below 1e-9
WORK_RTOL = 1e-9


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
        if all(0 <= u < g and 0 <= v < g and u != v and 0 <= w < math.inf for u, v, w in self.edges):
            return   # the common case, without building a message per edge
        for k, (u, v, w) in enumerate(self.edges):
            self.require(0 <= u < g and 0 <= v < g and u != v, f"edges[{k}]",
                         f"must join two distinct nodes in 0..{g - 1}", (u, v))
            self.require(w >= 0 and math.isfinite(w), f"edges[{k}][2]", "bytes must be finite and >= 0", w)

    @cached_property
    def edge_array(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.edges:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        e = np.asarray(self.edges, float)
        return e[:, 0].astype(int), e[:, 1].astype(int), e[:, 2]

    @cached_property
    def total_bytes(self) -> float:
        return float(self.edge_array[2].sum())

    def cut_bytes(self, servers) -> float:
        """Bytes per iteration on edges whose endpoints sit on different servers."""
        u, v, w = self.edge_array
        s = np.asarray(servers)
        return float(w[s[u] != s[v]].sum()) if w.size else 0.0


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
            self.require(g >= 1, f"gpus_per_server[{s}]", "must be >= 1", g)
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

    @property
    def total_gpus(self) -> int:
        return sum(self.gpus_per_server)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    def iteration_time(self, job: SrptJob, servers) -> float:
        """Seconds per iteration of ``job`` with node k on server ``servers[k]``."""
        cut = job.cut_bytes(servers)
        return job.compute_s + cut / self.inter_bandwidth + (job.total_bytes - cut) / self.intra_bandwidth


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
    usage_t, usage_s, usage_d = [], [], []  # capacity sweep: (time, server, +/- GPUs)
    for entry in solution["jobs"]:
        if not isinstance(entry, dict) or set(entry) != {"id", "segments"} or not isinstance(entry["segments"], list):
            return _fail('every job entry must be {"id": j, "segments": [...]}')
        jid = entry["id"]
        if jid not in by_id or jid in seen:
            violations.append(f"job id {jid!r} unknown or listed twice")
            continue
        seen.add(jid)
        job = by_id[jid]
        work, last_end = 0.0, job.arrival
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
            if not (math.isfinite(start) and math.isfinite(end) and start <= end):
                violations.append(f"job {jid} segment {k}: needs finite start <= end, got {start!r}, {end!r}")
                continue
            if start < last_end:
                violations.append(f"job {jid} segment {k}: starts at {start!r}, before "
                                  f"{'its arrival' if k == 0 else 'the previous segment ends'} ({last_end!r})")
            last_end = end
            overhead = instance.restart_overhead if k else 0.0
            work += max(0.0, end - start - overhead) / instance.iteration_time(job, servers)
            for s, count in zip(*np.unique(servers, return_counts=True)):
                usage_t += [start, end]
                usage_s += [int(s), int(s)]
                usage_d += [int(count), -int(count)]
        if work < job.iterations * (1 - WORK_RTOL):
            violations.append(f"job {jid}: its segments do {work:.6g} iterations, it needs {job.iterations}")
        flow.append(last_end - job.arrival)
    missing = sorted(set(by_id) - seen)
    if missing:
        violations.append(f"{len(missing)} job(s) missing from the schedule, e.g. {missing[:5]}")
    if usage_t:
        t, s, d = np.asarray(usage_t, float), np.asarray(usage_s), np.asarray(usage_d)
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
