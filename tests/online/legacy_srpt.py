"""The srpt policies as they were before the compact rewrite, kept as a reference oracle for
``tests/online/test_srpt_scale.py`` (git: ``optsched/problems/srpt/policies.py`` and the method
wiring of ``algorithms.py`` before the online-scale branch), running on the previous engine
(``tests/simulation/legacy_cluster.py``) with the previous, un-memoized greedy + KL placement.
Not imported by optsched."""

from __future__ import annotations

import heapq
from typing import Callable

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.graphs import Graph
from optsched.graphs.placement import fill_in_order
from optsched.graphs.refine import pairwise_kl_refine
from optsched.problems.srpt.instance import SrptInstance, SrptJob
from optsched.problems.srpt.placement import PLACEMENTS, place_milp, place_random
from tests.simulation.legacy_cluster import Cluster, FifoPolicy, Policy, SimJob, Simulator


def _old_place_greedy_kl(job, free):
    counts = FifoPolicy.place(list(free), job.gpus)
    servers = fill_in_order(counts)
    if len(counts) == 1 or not job.edges:
        return servers
    u, v, w = job.edge_array
    return pairwise_kl_refine(Graph(job.gpus, u, v, w), servers, cut=job.cut_bytes)


def estimated_iteration_times(instance: SrptInstance) -> dict[int, float]:
    """``tau_est_j``: iteration time of the greedy+KL placement on the empty cluster."""
    free = list(instance.gpus_per_server)
    cache: dict[tuple, float] = {}
    out = {}
    for job in instance.jobs:
        key = (job.gpus, job.edges, job.compute_s)
        if key not in cache:
            cache[key] = instance.iteration_time(job, _old_place_greedy_kl(job, free))
        out[job.id] = cache[key]
    return out


class VirtualSrpt:
    """Preemptive SRPT on one machine of speed 1, advanced lazily to the simulator's clock.

    >>> v = VirtualSrpt()
    >>> v.arrive(1, 0.0, 4.0); v.arrive(2, 1.0, 1.0)
    >>> v.advance(1.5); v.remaining(1), v.remaining(2)
    (3.0, 0.5)
    """

    def __init__(self):
        self._heap: list[tuple[float, int]] = []  # (remaining at self._now, job id)
        self._left: dict[int, float] = {}
        self._now = 0.0

    def advance(self, now: float) -> None:
        budget = now - self._now
        self._now = now
        while budget > 0 and self._heap:
            left, jid = self._heap[0]
            if left <= budget:
                heapq.heappop(self._heap)
                budget -= left
                self._left[jid] = 0.0
            else:
                heapq.heapreplace(self._heap, (left - budget, jid))
                self._left[jid] = left - budget
                budget = 0.0

    def arrive(self, jid: int, now: float, size: float) -> None:
        self.advance(now)
        self._left[jid] = size
        heapq.heappush(self._heap, (size, jid))

    def remaining(self, jid: int) -> float:
        return self._left[jid]


class PriorityPolicy(Policy):
    """Run the active jobs in the order of ``key(sim, job)`` (see the module docstring)."""

    def __init__(self, instance: SrptInstance, key: Callable[[Simulator, SimJob], tuple], *, preemptive: bool,
                 blocking: bool, placement: str = "heuristic", rng: np.random.Generator | None = None,
                 on_arrival_hook: Callable[[SimJob, float], None] | None = None,
                 solve_model: Callable | None = None):
        if placement not in PLACEMENTS:
            raise InvalidInstanceError("srpt", "option placement", f"must be one of {', '.join(PLACEMENTS)}",
                                       placement)
        self.instance = instance
        self.key = key
        self.preemptive, self.blocking = preemptive, blocking
        self.placement, self.rng = placement, rng
        self._arrival_hook = on_arrival_hook
        self.segments: dict[int, list[dict]] = {job.id: [] for job in instance.jobs}
        empty = list(instance.gpus_per_server)
        self.min_servers = {job.id: len(FifoPolicy.place(empty, job.gpus)) for job in instance.jobs}
        self.placement_calls = {"heuristic": 0, "milp": 0, "random": 0}
        self.milp_not_optimal = 0
        self.milp_fallbacks = 0
        if placement == "milp" and solve_model is None:
            raise ValueError("MILP placement needs the method's solve_model (SolveContext.solve_model)")
        self.solve_model = solve_model

    def on_arrival(self, sim, job, now):
        if self._arrival_hook is not None:
            self._arrival_hook(job, now)
        self._dispatch(sim, now)

    def on_completion(self, sim, job, now):
        self.segments[job.id][-1]["end"] = now
        self._dispatch(sim, now)

    def on_tick(self, sim, now):
        self._dispatch(sim, now)

    def _place(self, job: SrptJob, free) -> list[int]:
        self.placement_calls[self.placement] += 1
        if self.placement == "random":
            return place_random(job, free, self.rng)
        if self.placement == "milp" and job.gpus > 1 and max(free) < job.gpus:
            servers, status, _ = place_milp(job, free, self.solve_model)
            self.milp_not_optimal += status != "optimal"
            if servers is not None:
                return servers
            self.milp_fallbacks += 1   # the time budget is spent: the greedy + KL heuristic instead
        return _old_place_greedy_kl(job, free)

    def _dispatch(self, sim: Simulator, now: float) -> None:
        """Walk the candidates in priority order on a hypothetical free-GPU vector (all GPUs when
        preemptive, the free ones otherwise): a running job keeps its GPUs if they are still
        free there, else it is preempted; a waiting job is started if it fits on the fewest
        servers it would need on the empty cluster (the fragmentation guard)."""
        key = self.key
        running = sim.running()
        if self.preemptive:
            free = list(self.instance.gpus_per_server)
            candidates = sorted(running + sim.waiting(), key=lambda j: key(sim, j))
            running_left = len(running)
        else:
            free = list(sim.free_gpus())
            candidates = sorted(sim.waiting(), key=lambda j: key(sim, j))
            running_left = 0
        total_free = sum(free)
        keep, starts = set(), []
        for job in candidates:
            if total_free == 0 and running_left == 0:
                break
            if sim.status(job.id) == "running":
                running_left -= 1
                held = sim.allocation(job.id).gpus
                if all(free[s] >= c for s, c in held.items()):
                    for s, c in held.items():
                        free[s] -= c
                    total_free -= job.gpus
                    keep.add(job.id)
                continue
            counts = FifoPolicy.place(free, job.gpus) if job.gpus <= total_free else None
            if counts is None or len(counts) > self.min_servers[job.id]:
                if self.blocking:
                    break
                continue
            servers = self._place(job.payload, free)
            for s in servers:
                free[s] -= 1
            total_free -= job.gpus
            starts.append((job, servers))
        for job in running:
            if job.id not in keep and self.preemptive:
                sim.preempt(job.id)
                self.segments[job.id][-1]["end"] = now
        for job, servers in starts:
            counts: dict[int, int] = {}
            for s in servers:
                counts[s] = counts.get(s, 0) + 1
            sim.start(job.id, gpus=counts, rate=1.0 / self.instance.iteration_time(job.payload, servers))
            self.segments[job.id].append({"start": now, "end": None, "servers": servers})

    def solution(self) -> dict:
        return {"jobs": [{"id": jid, "segments": segs} for jid, segs in self.segments.items()]}


def simulate(instance: SrptInstance, policy: PriorityPolicy, tick: float | None = None) -> tuple[dict, dict]:
    """Run ``policy`` on the instance; returns (solution, stats). Unfinished jobs raise."""
    cluster = Cluster(gpus_per_server=instance.gpus_per_server, intra_bandwidth=instance.intra_bandwidth,
                      inter_bandwidth=instance.inter_bandwidth)
    jobs = [SimJob(id=j.id, arrival=j.arrival, work=float(j.iterations), gpus=j.gpus, payload=j)
            for j in instance.jobs]
    sim = Simulator(cluster, jobs, policy, tick=tick, restart_overhead=instance.restart_overhead, record_log=False)
    result = sim.run()
    if result.unfinished:
        raise RuntimeError(f"simulation ended with {len(result.unfinished)} unfinished job(s)")
    stats = {"preemptions": int(sum(result.preemptions.values())), "makespan": result.makespan,
             "mean_flow_time": result.total_flow_time / instance.num_jobs,
             "placement_calls": {k: v for k, v in policy.placement_calls.items() if v}}
    if policy.milp_not_optimal:
        stats["placement_milp_not_optimal"] = policy.milp_not_optimal
    if policy.milp_fallbacks:
        stats["placement_milp_fallbacks"] = policy.milp_fallbacks  # budget spent: greedy + KL used
    return policy.solution(), stats


class _Ctx:
    def __init__(self, options, rng=None):
        self.options, self.rng, self.solve_model = options, rng, None


def a_srpt(instance, placement="heuristic", preemption=True):
    tau_est = estimated_iteration_times(instance)
    total = instance.total_gpus
    virtual = VirtualSrpt()
    predicted = {j.id: j.predicted_iterations for j in instance.jobs}

    def arrive(job, now):
        virtual.arrive(job.id, now, job.gpus * predicted[job.id] * tau_est[job.id] / total)

    credit = instance.restart_overhead / total

    def key(sim, job):
        virtual.advance(sim.now)
        left = virtual.remaining(job.id)
        if sim.status(job.id) == "running":
            left -= job.gpus * credit
        return (left, job.arrival, job.id)

    policy = PriorityPolicy(instance, key, preemptive=preemption, blocking=False, placement=placement,
                            on_arrival_hook=arrive)
    return simulate(instance, policy)


def fifo(instance):
    policy = PriorityPolicy(instance, lambda sim, job: (job.arrival, job.id), preemptive=False, blocking=True)
    return simulate(instance, policy)


def sjf_oracle(instance):
    tau_est = estimated_iteration_times(instance)
    size = {j.id: j.gpus * j.iterations * tau_est[j.id] for j in instance.jobs}
    policy = PriorityPolicy(instance, lambda sim, job: (size[job.id], job.arrival, job.id), preemptive=False,
                            blocking=False)
    return simulate(instance, policy)


def tiresias_las(instance, thresholds=(3600.0, 36000.0), tick=300.0):
    def key(sim, job):
        attained = sim.gpu_seconds(job.id)
        return (sum(attained >= t for t in thresholds), job.arrival, job.id)

    policy = PriorityPolicy(instance, key, preemptive=True, blocking=False)
    return simulate(instance, policy, tick=tick)


METHODS = {"a-srpt": a_srpt, "fifo": fifo, "sjf-oracle": sjf_oracle, "tiresias-las": tiresias_las}
