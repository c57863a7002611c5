"""The ``rar-online`` instance and its checker (docs ``optsched/problems/rar_online/README.md``; the model
beyond the GADGET abstract is [ours], docs ``optsched/problems/rar_online/README.md#rar-online``).

Slots t = 0..T-1 of ``slot_s`` seconds. Job j arrives at the start of slot ``arrival`` and may get,
in each slot t >= arrival, between 0 and ``max_workers`` workers: all on one server (the ring
stays inside it, bandwidth b_in) or spread over two or more servers, each of which then reserves
``reserved_bandwidth`` r_j on its uplink for that slot (bandwidth r_j, no contention [paper:
MobiHoc'22 related work: GADGET reserves bandwidth]). With a graph network (``links``: edges
``(u, v, capacity)`` between named nodes, servers ``"s0".."s{S-1}"``, every other name a switch)
a spread job reserves r_j on every link of its *footprint*: the union, over the pairs of servers
it uses, of the fixed route between them (:meth:`RarOnlineInstance.route`: the hop-shortest path
found by a breadth-first search from the lower-indexed server visiting neighbours in name order).
The flat network is the star whose links are the uplinks; there the footprint is exactly the
uplinks of the servers used [ours; docs ``#rar-online-network``]. With w workers the slot advances the job by
``w * floor(slot_s / tau_j(w))`` worker-iterations [ours: elastic data parallelism, each worker
processes one mini-batch per ring iteration]; the job completes at the end of the first slot
where its cumulative progress reaches ``iterations`` F_j.

Objective (authoritative): ``sum_j U_j(C_j - a_j)`` over jobs completed within T (C_j = index of
the completing slot + 1; unfinished jobs earn 0), or with ``objective = "energy"`` that minus
``energy_price`` per GPU-slot used (unfinished jobs pay too), or with ``"fairness"``
``sum_j log(fairness_u0 + U_j)`` (U_j = 0 when unfinished).

Solution schema: ``{"allocations": [[job, slot, [[server, workers], ...]], ...]}``, at most one
entry per (job, slot), every worker count >= 1. Allocations after a job's completion are allowed
(they earn nothing and count as GPU-slots for the energy objective).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport
from optsched.workloads.rar_timing import iteration_time, iterations_per_slot

__all__ = ["Utility", "OnlineJob", "RarOnlineInstance", "check", "evaluate", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("maximize sum_j U_j(C_j - a_j) over jobs completed within T (energy: minus energy_price per "
             "GPU-slot; fairness: sum_j log(u0 + U_j))")
#: the objective's unit, printed after its value by ``optsched solve`` (utility (energy: minus the price of
#: the GPU-slots; fairness: a sum of logs))
OBJECTIVE_UNIT = "(unitless)"
SOLUTION_SCHEMA = '{"allocations": [[job, slot, [[server, workers], ...]], ...]}'


@dataclass(frozen=True)
class Utility(Record):
    """A non-increasing, non-negative utility of the delay d = C_j - a_j (slots).

    * ``step``: ``value`` if d <= deadline else 0;
    * ``linear``: ``max(0, value - slope * d)``;
    * ``sigmoid``: ``value / (1 + exp(steepness * (d - midpoint)))``.
    """

    problem = "rar-online"
    kind: Literal["step", "linear", "sigmoid"]
    value: float
    deadline: float = 0.0
    slope: float = 0.0
    midpoint: float = 0.0
    steepness: float = 1.0

    def __call__(self, delay: float) -> float:
        if self.kind == "step":
            return self.value if delay <= self.deadline else 0.0
        if self.kind == "linear":
            return max(0.0, self.value - self.slope * delay)
        z = self.steepness * (delay - self.midpoint)
        return self.value / (1.0 + math.exp(z)) if z < 700 else 0.0

    def violations(self) -> list[tuple[str, str, object]]:
        out = []
        if not (0 <= self.value < math.inf):
            out.append(("value", "must be >= 0 and finite", self.value))
        elif self.value > 1e15:
            # [ours] the exact models put utilities in the objective: at 1e24 next to values
            # near 1 HiGHS could not decide (kUnknown); 1e15 solved
            out.append(("value", "must be at most 1e15 (the exact models' objective range)", self.value))
        if self.kind == "linear" and not self.slope >= 0:
            out.append(("slope", "must be >= 0: a utility may not increase with completion time", self.slope))
        if self.kind == "sigmoid" and not self.steepness >= 0:
            out.append(("steepness", "must be >= 0: a utility may not increase with completion time",
                        self.steepness))
        return out


@dataclass(frozen=True)
class OnlineJob(Record):
    """One elastic RAR job: arrival slot, worker-iterations F_j, up to ``max_workers`` workers."""

    problem = "rar-online"
    arrival: int
    iterations: int
    max_workers: int
    model_bytes: float
    compute_s: float
    reserved_bandwidth: float
    utility: Utility
    job_type: str = ""

    def violations(self) -> list[tuple[str, str, object]]:
        out = self.field_violations(at_least={"arrival": 0, "iterations": 1, "max_workers": 1},
                                    nonnegative=("model_bytes",), positive=("compute_s", "reserved_bandwidth"))
        out += [(f"utility.{f}", rule, v) for f, rule, v in self.utility.violations()]
        return out


@dataclass(frozen=True)
class RarOnlineInstance(Instance):
    """Servers (GPUs, uplink bytes/s), slots, jobs and the objective configuration.

    ``links`` (optional) replaces the flat uplinks by a graph network: ``(u, v, capacity)`` edges
    between named nodes, servers ``"s0".."s{S-1}"``, switches any other name; ``uplinks`` must
    then be empty. Capacities are bytes/s per direction (full duplex).
    """

    problem = "rar-online"
    servers: tuple[int, ...]
    uplinks: tuple[float, ...]
    jobs: tuple[OnlineJob, ...]
    slot_s: float
    horizon: int
    intra_bandwidth: float
    reduction_speed: float
    links: tuple[tuple[str, str, float], ...] | None = None
    objective: Literal["utility", "energy", "fairness"] = "utility"
    energy_price: float = 0.0
    fairness_u0: float = 1.0
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(len(self.servers) >= 1, "servers", "must list at least one server", len(self.servers))
        for s, n in enumerate(self.servers):
            # [ours] validation and the schedulers loop over worker counts: 4096 GPUs per server
            self.require(1 <= n <= 4096, f"servers[{s}]", "must be 1..4096 GPUs", n)
        if self.links is None:
            self.require(len(self.uplinks) == len(self.servers), "uplinks", "must give one capacity per server",
                         len(self.uplinks))
            self.require_nonnegative("uplinks", self.uplinks)
        else:
            self._validate_links()
        # [ours] the simulators hold servers x horizon arrays: 10^6 slots, 10^8 cells in all
        self.require(1 <= self.horizon <= 1_000_000, "horizon", "must be in 1..1000000 slots", self.horizon)
        self.require(len(self.servers) * self.horizon <= 10**8, "horizon",
                     "servers x horizon must be at most 10^8 (the simulators' arrays)", self.horizon)
        for name in ("slot_s", "intra_bandwidth", "reduction_speed"):
            self.require_nonnegative(name, [getattr(self, name)], strict=True)
        self.require_nonnegative("energy_price", [self.energy_price])
        self.require(self.fairness_u0 > 0 and math.isfinite(self.fairness_u0), "fairness_u0",
                     "must be > 0 (log(u0 + U) of an unfinished job)", self.fairness_u0)
        total = sum(self.servers)
        checked: set[tuple] = set()
        for j, job in enumerate(self.jobs):
            for field, rule, value in job.violations():
                raise self.invalid(f"jobs[{j}].{field}", rule, value)
            self.require(job.max_workers <= total, f"jobs[{j}].max_workers",
                         f"must be <= the cluster's {total} GPUs", job.max_workers)
            kind = (job.model_bytes, job.compute_s, job.reserved_bandwidth, job.max_workers)
            if kind in checked:
                continue   # the same iteration times were checked for an earlier job
            checked.add(kind)
            for w in range(1, job.max_workers + 1):
                for spread in (False, True):
                    if spread and (w < 2 or len(self.servers) < 2):
                        continue
                    tau = self.tau(j, w, spread)
                    self.require(tau <= self.slot_s, f"jobs[{j}]",
                                 f"iteration time on {w} worker(s){' spread' if spread else ''} ({tau:.6g} s) "
                                 f"must be <= slot_s ({self.slot_s:g} s)", job.job_type or j)
                    # [ours] iterations per slot are counted in int64: at most 2^53 of them
                    self.require(self.slot_s <= tau * 2**53, f"jobs[{j}]",
                                 f"slot_s / iteration time ({self.slot_s:g} / {tau:.6g} s) must be at most 2^53 "
                                 "iterations per slot", job.job_type or j)

    def _validate_links(self) -> None:
        S = len(self.servers)
        self.require(len(self.uplinks) == 0, "uplinks", "must be empty when links (a graph network) is given",
                     len(self.uplinks))
        self.require(len(self.links) >= 1, "links", "must list at least one link", 0)
        names = {f"s{s}" for s in range(S)}
        seen = set()
        for i, (u, v, cap) in enumerate(self.links):
            for node in (u, v):
                self.require(isinstance(node, str) and node != "", f"links[{i}]", "node names must be non-empty "
                             "strings", node)
                self.require(not re.fullmatch(r"s[0-9]+", node) or node in names, f"links[{i}]",
                             f"names an unknown server (servers are s0..s{S - 1}; other names are switches)", node)
            self.require(u != v, f"links[{i}]", "must join two different nodes", u)
            self.require(math.isfinite(cap) and cap > 0, f"links[{i}]", "capacity must be > 0 and finite", cap)
            key = frozenset((u, v))
            self.require(key not in seen, f"links[{i}]", "duplicates an earlier link between the same nodes",
                         (u, v))
            seen.add(key)
        nodes = {n for u, v, _ in self.links for n in (u, v)}
        for s in range(S):
            self.require(f"s{s}" in nodes, "links", f"must connect every server: s{s} is missing", f"s{s}")
        adj = self._adjacency
        start = next(iter(sorted(nodes)))
        reached, stack = {start}, [start]
        while stack:
            for nb, _ in adj[stack.pop()]:
                if nb not in reached:
                    reached.add(nb)
                    stack.append(nb)
        self.require(reached == nodes, "links", "must form a connected graph",
                     f"{len(nodes) - len(reached)} node(s) unreachable from {start}")

    @cached_property
    def _adjacency(self) -> dict[str, list[tuple[str, int]]]:
        """node -> [(neighbour, link index)] in neighbour-name order (graph network only)."""
        adj: dict[str, list[tuple[str, int]]] = {}
        for i, (u, v, _) in enumerate(self.links or ()):
            adj.setdefault(u, []).append((v, i))
            adj.setdefault(v, []).append((u, i))
        return {n: sorted(nbrs) for n, nbrs in adj.items()}

    @property
    def is_graph(self) -> bool:
        """True with a graph network (``links``), False with flat uplinks."""
        return self.links is not None

    @cached_property
    def link_capacity(self) -> np.ndarray:
        """Capacity (bytes/s) of every link: the uplinks (flat, link s = uplink of server s) or ``links``."""
        if self.links is None:
            return np.asarray(self.uplinks, float)
        return np.asarray([cap for _, _, cap in self.links], float)

    def link_name(self, k: int) -> str:
        if self.links is None:
            return f"uplink {k}"
        u, v, _ = self.links[k]
        return f"link {u}-{v}"

    def route(self, a: int, b: int) -> tuple[int, ...]:
        """Link indices of the fixed route between servers a and b (sorted). Flat: the two uplinks.
        Graph: the hop-shortest path of a breadth-first search from ``s{min(a, b)}`` that visits
        neighbours in name order (each node keeps the first parent that reaches it)."""
        a, b = min(a, b), max(a, b)
        if a == b:
            return ()
        if self.links is None:
            return (a, b)
        return self._routes[a, b]

    @cached_property
    def _routes(self) -> dict[tuple[int, int], tuple[int, ...]]:
        S, adj, out = len(self.servers), self._adjacency, {}
        for a in range(S):
            parent: dict[str, tuple[str, int] | None] = {f"s{a}": None}
            queue = deque([f"s{a}"])
            while queue:
                node = queue.popleft()
                for nb, k in adj[node]:
                    if nb not in parent:
                        parent[nb] = (node, k)
                        queue.append(nb)
            for b in range(a + 1, S):
                path, node = [], f"s{b}"
                while parent[node] is not None:
                    node, k = parent[node]
                    path.append(k)
                out[a, b] = tuple(sorted(path))
        return out

    def footprint(self, servers) -> tuple[int, ...]:
        """Links on which a job spread over ``servers`` reserves its r_j (once per link): the union of
        the fixed routes between every pair of them (flat: their uplinks); () for fewer than 2."""
        used = sorted(set(int(s) for s in servers))
        if len(used) < 2:
            return ()
        if self.links is None:
            return tuple(used)
        links = set()
        for i, a in enumerate(used):
            for b in used[i + 1:]:
                links.update(self._routes[a, b])
        return tuple(sorted(links))

    @cached_property
    def routed_links(self) -> tuple[int, ...]:
        """Links on the route of some pair of servers (the only ones a job can reserve on)."""
        return self.footprint(range(len(self.servers)))

    def to_dict(self) -> dict:
        data = super().to_dict()
        if self.links is None:  # flat instances keep their JSON (and SHA-256) unchanged
            del data["links"]
        return data

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    def tau(self, j: int, workers: int, spread: bool) -> float:
        """Iteration time (s) of job j on ``workers`` workers, inside one server or spread."""
        job = self.jobs[j]
        return iteration_time(model_bytes=job.model_bytes, workers=workers, compute_s=job.compute_s,
                              bandwidth=job.reserved_bandwidth if spread else self.intra_bandwidth,
                              reduction_speed=self.reduction_speed)

    def progress(self, j: int, workers: int, spread: bool) -> int:
        """Worker-iterations per slot: ``w * floor(slot_s / tau_j(w))``."""
        return workers * iterations_per_slot(self.tau(j, workers, spread), self.slot_s)

    @cached_property
    def progress_table(self) -> list[np.ndarray]:
        """``table[j][spread, w]``: progress per slot (0 for w = 0 or an impossible spread).

        Jobs of one kind (model size, compute time, reserved bandwidth, worker cap) share one
        read-only table: a stream of 10^6 jobs of a few dozen kinds holds a few dozen tables."""
        out, shared = [], {}
        spreadable = len(self.servers) >= 2
        for j, job in enumerate(self.jobs):
            key = (job.model_bytes, job.compute_s, job.reserved_bandwidth, job.max_workers)
            t = shared.get(key)
            if t is None:
                t = np.zeros((2, job.max_workers + 1), dtype=np.int64)
                for w in range(1, job.max_workers + 1):
                    t[0, w] = self.progress(j, w, False)
                    if w >= 2 and spreadable:
                        t[1, w] = self.progress(j, w, True)
                t.flags.writeable = False
                shared[key] = t
            out.append(t)
        return out

    def sha256(self) -> str:
        """SHA-256 of the canonical JSON (the digest of :meth:`Instance.sha256`), hashed in chunks
        of jobs so that a 10^6-job stream never holds its whole JSON data or text at once."""
        import functools
        import hashlib
        import json

        cached = self.__dict__.get("_sha256")
        if cached is not None:
            return cached
        dump = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"), allow_nan=False)
        head = {"format_version": self.format_version, "problem": self.problem}
        for f in dataclasses.fields(self):
            if f.name != "jobs" and not (f.name == "links" and self.links is None):
                head[f.name] = _plain(getattr(self, f.name))
        head["jobs"] = []
        before, after = dump(head).split('"jobs":[]', 1)
        digest = hashlib.sha256((before + '"jobs":[').encode())
        for lo in range(0, len(self.jobs), 4096):
            chunk = dump([job.to_dict() for job in self.jobs[lo:lo + 4096]])[1:-1]
            digest.update(((',' if lo else '') + chunk).encode())
        digest.update((']' + after).encode())
        cached = digest.hexdigest()
        object.__setattr__(self, "_sha256", cached)
        return cached

    def value_of(self, utilities: list[float | None], gpu_slots: float) -> float:
        """The objective from each job's earned utility (None = unfinished) and GPU-slots used."""
        if self.objective == "fairness":
            return float(sum(math.log(self.fairness_u0 + (u or 0.0)) for u in utilities))
        total = float(sum(u for u in utilities if u is not None))
        return total - self.energy_price * gpu_slots if self.objective == "energy" else total


def _plain(value):
    """JSON data of a scalar or (nested) tuple field."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def trusted(cls, **fields):
    """A record of ``cls`` from values of the annotated types already (generated data): skips the
    type-driven conversion of :mod:`optsched.core.instance`, still runs ``validate``. For
    generators that build 10^6 jobs; anything from outside goes through the constructor."""
    obj = object.__new__(cls)
    for f in dataclasses.fields(cls):
        value = fields.pop(f.name) if f.name in fields else f.default
        if value is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}: missing field {f.name}")
        object.__setattr__(obj, f.name, value)
    if fields:
        raise TypeError(f"{cls.__name__}: unknown field(s) {sorted(fields)}")
    obj.validate()
    return obj


def evaluate(instance: RarOnlineInstance, allocations) -> tuple[list[str], list[int | None], float, float]:
    """Violations, completion slots C_j (None if unfinished), GPU-slots used and the objective."""
    n, S, T = instance.num_jobs, len(instance.servers), instance.horizon
    violations: list[str] = []
    gpu_use = np.zeros((S, T), dtype=np.int64)
    caps = instance.link_capacity
    link_use = np.zeros((len(caps), T))
    per_job: dict[int, dict[int, int]] = {j: {} for j in range(n)}
    seen = set()
    gpu_slots = 0
    for entry in allocations:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int) and isinstance(entry[1], int)
                and isinstance(entry[2], list)):
            violations.append(f"allocation {entry!r} must be [job, slot, [[server, workers], ...]]")
            continue
        j, t, parts = entry
        if not (0 <= j < n and 0 <= t < T):
            violations.append(f"allocation ({j}, {t}): job or slot out of range")
            continue
        if (j, t) in seen:
            violations.append(f"job {j} slot {t}: more than one allocation")
            continue
        seen.add((j, t))
        if t < instance.jobs[j].arrival:
            violations.append(f"job {j} slot {t}: before its arrival slot {instance.jobs[j].arrival}")
        used = {}
        for part in parts:
            if not (isinstance(part, list) and len(part) == 2 and all(isinstance(x, int) for x in part)
                    and 0 <= part[0] < S and part[1] >= 1 and part[0] not in used):
                violations.append(f"job {j} slot {t}: bad part {part!r}")
                continue
            used[part[0]] = part[1]
        w = sum(used.values())
        if not used:
            violations.append(f"job {j} slot {t}: no workers")
            continue
        if w > instance.jobs[j].max_workers:
            violations.append(f"job {j} slot {t}: {w} workers > max_workers {instance.jobs[j].max_workers}")
            continue
        spread = len(used) >= 2
        for s, count in used.items():
            gpu_use[s, t] += count
        for k in instance.footprint(used):
            link_use[k, t] += instance.jobs[j].reserved_bandwidth
        gpu_slots += w
        per_job[j][t] = instance.progress_table[j][int(spread), w]
    for s, t in zip(*np.nonzero(gpu_use > np.asarray(instance.servers)[:, None])):
        violations.append(f"server {s} slot {t}: {gpu_use[s, t]} GPUs used > {instance.servers[s]}")
    over = link_use > caps[:, None] * (1 + 1e-12)
    for k, t in zip(*np.nonzero(over)):
        violations.append(f"{instance.link_name(k)} slot {t}: {link_use[k, t]:g} bytes/s reserved > {caps[k]:g}")
    completion: list[int | None] = []
    for j, job in enumerate(instance.jobs):
        done, c = 0, None
        for t in sorted(per_job[j]):
            done += per_job[j][t]
            if done >= job.iterations:
                c = t + 1
                break
        completion.append(c)
    utilities = [None if c is None else job.utility(c - job.arrival) for c, job in zip(completion, instance.jobs)]
    return violations, completion, float(gpu_slots), instance.value_of(utilities, gpu_slots)


def check(instance: RarOnlineInstance, solution) -> CheckReport:
    """Validate the allocations (GPU and uplink / per-link capacities, arrivals, worker caps) and compute the
    objective of the configuration."""
    if not isinstance(solution, dict) or set(solution) != {"allocations"} or not isinstance(
            solution["allocations"], list):
        return CheckReport(False, None, ['solution must be an object {"allocations": [...]}'])
    violations, completion, gpu_slots, value = evaluate(instance, solution["allocations"])
    return CheckReport(not violations, value, violations,
                       {"completion": completion, "gpu_slots": gpu_slots,
                        "completed": sum(c is not None for c in completion)})
