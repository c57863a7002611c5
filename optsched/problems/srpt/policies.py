"""A-SRPT and its baselines as policies on the shared simulator (:mod:`optsched.simulation.cluster`).

Every policy is a :class:`PriorityPolicy`: at every arrival and completion (and tick, for
Tiresias) it orders the active jobs by a priority key and walks them in that order on a
hypothetical free-GPU vector (all GPUs for a preemptive policy, the free ones otherwise): a
running job keeps its GPUs if they are still free there (else it is preempted); a waiting job is
started if it fits on the fewest servers it would need on an empty cluster -- optsched's
*fragmentation guard* [ours]: without it, count-based admission spreads 8-GPU jobs over several
servers and makes them many times slower. A job that does not fit is skipped (backfilling) unless
``blocking``, which stops the walk.
A started job runs at ``1 / tau`` iterations per second, ``tau`` its iteration time under the
placement (:meth:`SrptInstance.iteration_time`); the simulator charges the instance's restart
overhead after each preemption. The policy records every run segment, which is the solution the
checker verifies.

* ``a-srpt`` [reconstruction]: key = remaining size of the job on the *virtual single machine*
  (preemptive SRPT on sizes ``p_j = g_j * n_hat_j * tau_est_j / G``, simulated alongside; the
  scheduler sees predictions only), preemptive, backfilling, min-cut placement.
* ``fifo`` [ours]: arrival order, non-preemptive, blocking (head of line).
* ``sjf-oracle`` [ours]: smallest true size ``g_j * n_j * tau_est_j`` first, non-preemptive,
  backfilling.
* ``tiresias-las`` [ours, after Gu et al. NSDI 2019]: discretized 2D-LAS -- queues by attained
  GPU-seconds (thresholds ``queue_thresholds``), FIFO inside a queue, preemptive, re-evaluated
  every ``tick_s`` seconds too.

``tau_est_j`` is the iteration time of the greedy+KL placement on an empty cluster.
"""

from __future__ import annotations

import heapq
from array import array
from typing import Callable

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.simulation.cluster import Cluster, FifoPolicy, JobTable, Policy, SimJob, Simulator

from .instance import SrptInstance, SrptJob
from .placement import PLACEMENTS, place_greedy_kl, place_milp, place_random

__all__ = ["PriorityPolicy", "VirtualSrpt", "estimated_iteration_times", "estimated_iteration_time_array",
           "simulate"]


def _tau_by_kind(instance: SrptInstance) -> Callable[[SrptJob], float]:
    """``job -> tau_est``, one greedy+KL placement per distinct (GPUs, graph, compute time)."""
    free = list(instance.gpus_per_server)
    cache: dict[tuple, float] = {}

    def tau(job: SrptJob) -> float:
        key = (job.gpus, job.edges, job.compute_s)
        value = cache.get(key)
        if value is None:
            value = cache[key] = instance.iteration_time(job, place_greedy_kl(job, free))
        return value

    return tau


def estimated_iteration_times(instance: SrptInstance) -> dict[int, float]:
    """``tau_est_j``: iteration time of the greedy+KL placement on the empty cluster."""
    tau = _tau_by_kind(instance)
    return {job.id: tau(job) for job in instance.jobs}


def estimated_iteration_time_array(instance: SrptInstance) -> array:
    """``tau_est`` of every job, in the instance's job order (a compact ``array('d')``)."""
    tau = _tau_by_kind(instance)
    return array("d", [tau(job) for job in instance.jobs])


class VirtualSrpt:
    """Preemptive SRPT on one machine of speed 1, advanced lazily to the simulator's clock.

    :meth:`forget` drops a job the caller no longer asks about (its entry would otherwise stay
    for the whole run: 10^6 jobs would keep 10^6 entries).

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
        heap, left_of = self._heap, self._left
        while budget > 0 and heap:
            left, jid = heap[0]
            if left <= budget:
                heapq.heappop(heap)
                budget -= left
                if jid in left_of:
                    left_of[jid] = 0.0
            else:
                heapq.heapreplace(heap, (left - budget, jid))
                if jid in left_of:
                    left_of[jid] = left - budget
                budget = 0.0

    def arrive(self, jid: int, now: float, size: float) -> None:
        self.advance(now)
        self._left[jid] = size
        heapq.heappush(self._heap, (size, jid))

    def remaining(self, jid: int) -> float:
        return self._left[jid]

    def forget(self, jid: int) -> None:
        self._left.pop(jid, None)


class PriorityPolicy(Policy):
    """Run the active jobs in the order of ``key(sim, job)`` (see the module docstring).

    The simulator's jobs carry their position in ``instance.jobs`` as payload (:func:`simulate`);
    the policy keeps its own view of the running (with their GPUs) and waiting jobs -- it is
    the only one that starts and preempts them -- so a dispatch costs no query per job. ``key``
    must end with the job id (a total order), as every key of this module does.
    """

    def __init__(self, instance: SrptInstance, key: Callable[[Simulator, SimJob], tuple], *, preemptive: bool,
                 blocking: bool, placement: str = "heuristic", rng: np.random.Generator | None = None,
                 on_arrival_hook: Callable[[SimJob, float], None] | None = None,
                 on_completion_hook: Callable[[SimJob, float], None] | None = None,
                 solve_model: Callable | None = None, poll: Callable[[], None] | None = None):
        if placement not in PLACEMENTS:
            raise InvalidOptionError("srpt", "option placement", f"must be one of {', '.join(PLACEMENTS)}",
                                       placement)
        self.instance = instance
        self.key = key
        self.preemptive, self.blocking = preemptive, blocking
        self.placement, self.rng = placement, rng
        self._arrival_hook = on_arrival_hook
        self._completion_hook = on_completion_hook
        #: run segments per job position (None until the job first starts)
        self.segments: list[list[dict] | None] = [None] * instance.num_jobs
        self._capacity = list(instance.gpus_per_server)
        self._min_servers: dict[int, int] = {}
        #: running jobs: id -> (SimJob, {server: GPUs}); waiting jobs: id -> SimJob
        self.running: dict[int, tuple[SimJob, dict[int, int]]] = {}
        self.waiting: dict[int, SimJob] = {}
        self.placement_calls = {"heuristic": 0, "milp": 0, "random": 0}
        self.milp_not_optimal = 0
        self.milp_fallbacks = 0
        self.milp_fallback_reason: str | None = None
        self._one_server: dict[tuple[int, int], list[int]] = {}
        if placement == "milp" and solve_model is None:
            raise ValueError("MILP placement needs the method's solve_model (SolveContext.solve_model)")
        self.solve_model = solve_model
        #: called at every dispatch before any work (a method's clock check: it stops the run by
        #: raising), and after a placement MILP that returned no point
        self.poll = poll

    def min_servers(self, gpus: int) -> int:
        """Fewest servers ``gpus`` GPUs need on the empty cluster (the fragmentation guard)."""
        value = self._min_servers.get(gpus)
        if value is None:
            value = self._min_servers[gpus] = len(FifoPolicy.place(self._capacity, gpus))
        return value

    def on_arrival(self, sim, job, now):
        self.waiting[job.id] = job
        if self._arrival_hook is not None:
            self._arrival_hook(job, now)
        self._dispatch(sim, now)

    def on_completion(self, sim, job, now):
        self.segments[job.payload][-1]["end"] = now
        del self.running[job.id]
        if self._completion_hook is not None:
            self._completion_hook(job, now)
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
            if self.poll is not None:  # the budget is spent: stop here rather than place by the heuristic
                self.poll()
            self.milp_fallbacks += 1   # the time budget is spent: the greedy + KL heuristic instead
            if self.milp_fallback_reason is None:
                self.milp_fallback_reason = (f"placement MILP of job {job.id} returned no point ({status}: the "
                                             "solve stopped at a limit before any point); greedy + KL placement "
                                             "used for it and every later placement whose MILP has no point")
        return place_greedy_kl(job, free)

    def _dispatch(self, sim: Simulator, now: float) -> None:
        """Walk the candidates in priority order on a hypothetical free-GPU vector (all GPUs when
        preemptive, the free ones otherwise): a running job keeps its GPUs if they are still
        free there, else it is preempted; a waiting job is started if it fits on the fewest
        servers it would need on the empty cluster (the fragmentation guard)."""
        if self.poll is not None:
            self.poll()
        key = self.key
        running, waiting = self.running, self.waiting
        if self.preemptive:
            free = list(self._capacity)
            candidates = [entry[0] for entry in running.values()]
            candidates += waiting.values()
            running_left = len(running)
        else:
            free = list(sim.free_gpus())
            candidates = list(waiting.values())
            running_left = 0
        total_free = sum(free)
        if total_free == 0 and running_left == 0:
            return
        candidates.sort(key=lambda job: key(sim, job))
        keep, starts = set(), []
        place = FifoPolicy.place
        for job in candidates:
            if total_free == 0 and running_left == 0:
                break
            entry = running.get(job.id)
            if entry is not None:
                running_left -= 1
                held = entry[1]
                if all(free[s] >= c for s, c in held.items()):
                    for s, c in held.items():
                        free[s] -= c
                    total_free -= job.gpus
                    keep.add(job.id)
                continue
            counts = place(free, job.gpus) if job.gpus <= total_free else None
            if counts is None or len(counts) > self.min_servers(job.gpus):
                if self.blocking:
                    break
                continue
            servers = self._place(self.instance.jobs[job.payload], free)
            if servers[0] == servers[-1] and len(set(servers)) == 1:
                # one-server placements are few distinct lists: the segments share them (a 10^6-job
                # schedule then holds one list per (server, GPUs) instead of one per segment)
                servers = self._one_server.setdefault((servers[0], len(servers)), servers)
            for s in servers:
                free[s] -= 1
            total_free -= job.gpus
            starts.append((job, servers))
        if self.preemptive and len(keep) < len(running):
            for job_id in [job_id for job_id in running if job_id not in keep]:
                sim.preempt(job_id)
                job = running.pop(job_id)[0]
                waiting[job_id] = job
                self.segments[job.payload][-1]["end"] = now
        jobs = self.instance.jobs
        for job, servers in starts:
            counts: dict[int, int] = {}
            for s in servers:
                counts[s] = counts.get(s, 0) + 1
            sim.start(job.id, gpus=counts, rate=1.0 / self.instance.iteration_time(jobs[job.payload], servers))
            del waiting[job.id]
            running[job.id] = (job, counts)
            segments = self.segments[job.payload]
            if segments is None:
                segments = self.segments[job.payload] = []
            segments.append({"start": now, "end": None, "servers": servers})

    def solution(self) -> dict:
        return {"jobs": [{"id": job.id, "segments": segs if segs is not None else []}
                         for job, segs in zip(self.instance.jobs, self.segments)]}


def job_table(instance: SrptInstance) -> JobTable:
    """The instance's jobs as simulator columns (work = iterations; payload = position)."""
    cols = instance.columns
    return JobTable(cols["id"], cols["arrival"], cols["iterations"].astype(float), cols["gpus"],
                    payloads=range(instance.num_jobs))


def simulate(instance: SrptInstance, policy: PriorityPolicy, tick: float | None = None) -> tuple[dict, dict]:
    """Run ``policy`` on the instance; returns (solution, stats). Unfinished jobs raise."""
    cluster = Cluster(gpus_per_server=instance.gpus_per_server, intra_bandwidth=instance.intra_bandwidth,
                      inter_bandwidth=instance.inter_bandwidth)
    sim = Simulator(cluster, job_table(instance), policy, tick=tick, restart_overhead=instance.restart_overhead,
                    record_log=False)
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
        stats["placement_milp_fallback_reason"] = policy.milp_fallback_reason
    return policy.solution(), stats
