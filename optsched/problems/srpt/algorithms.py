"""Methods of ``srpt``: A-SRPT, its baselines and the flow-time lower bound.

None of the scheduling methods has a registered guarantee (no proof written for optsched's
variant): T7 reports their flow time against OPT on small streams where the exact ``milp``
(``model.py``, streams of <= 12 jobs) proves it, and against the lower bounds ``lb`` / ``lb-rank``
(``bounds.py``) at scale (``optsched/problems/srpt/README.md#srpt``).
"""

from __future__ import annotations

import heapq
import math
from array import array

import numpy as np

from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .instance import SrptInstance, SrptJob
from .policies import PriorityPolicy, VirtualSrpt, estimated_iteration_time_array, simulate

__all__ = ["a_srpt", "fifo", "sjf_oracle", "tiresias_las", "lower_bound", "iteration_time_floor",
           "srpt_total_flow"]


def a_srpt(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """A-SRPT [reconstruction of Luo et al., arXiv 2501.05563]: virtual single-machine SRPT order
    on predicted sizes + min-cut placement, preemptive, with restart overhead.

    Problem: online total flow time of gang-scheduled DL jobs on a GPU cluster.
    Guarantee: none registered (the paper states a competitive ratio; optsched has no proof for
    its variant); empirical ALG / LB in T7.
    Complexity: O(A log A) per event (A active jobs) plus placement: O(g) on one server, KL
    passes otherwise; O(n log n) for the virtual machine.

    >>> import optsched
    >>> inst = optsched.generate("srpt", seed=1, preset="tiny")
    >>> r = optsched.solve(inst, "a-srpt")
    >>> r.status, r.objective >= optsched.solve(inst, "lb").objective
    ('feasible', True)
    """
    opts = ctx.options
    tau_est = estimated_iteration_time_array(instance)
    total = instance.total_gpus
    virtual = VirtualSrpt()
    predicted = array("d", instance.columns["predicted_iterations"].tolist())

    def arrive(job, now):
        k = job.payload   # the job's position in instance.jobs
        virtual.arrive(job.id, now, job.gpus * predicted[k] * tau_est[k] / total)

    def done(job, now):
        virtual.forget(job.id)

    credit = instance.restart_overhead / total  # virtual size of one GPU's restart overhead

    def key(sim, job):
        virtual.advance(sim.now)
        left = virtual.remaining(job.id)
        if job.id in policy.running:
            left -= job.gpus * credit
        return (left, job.arrival, job.id)

    policy = PriorityPolicy(instance, key, preemptive=opts["preemption"], blocking=False,
                            placement=opts["placement"], rng=ctx.rng, on_arrival_hook=arrive,
                            on_completion_hook=done, solve_model=ctx.solve_model, poll=ctx.check_time)
    solution, stats = simulate(instance, policy)
    return Outcome(solution=solution, stats=stats)


def fifo(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """First come first served, head-of-line blocking, no preemption (baseline [ours])."""
    policy = PriorityPolicy(instance, lambda sim, job: (job.arrival, job.id), preemptive=False, blocking=True,
                            placement=ctx.options["placement"], rng=ctx.rng,
                            solve_model=ctx.solve_model, poll=ctx.check_time)
    solution, stats = simulate(instance, policy)
    return Outcome(solution=solution, stats=stats)


def sjf_oracle(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """Shortest job first on the *true* size ``g_j n_j tau_est_j``, backfilling, no preemption
    (baseline [ours]; an oracle: it reads the true iteration counts)."""
    tau_est = estimated_iteration_time_array(instance)
    size = array("d", [j.gpus * j.iterations * t for j, t in zip(instance.jobs, tau_est)])
    policy = PriorityPolicy(instance, lambda sim, job: (size[job.payload], job.arrival, job.id), preemptive=False,
                            blocking=False, placement=ctx.options["placement"], rng=ctx.rng,
                            solve_model=ctx.solve_model, poll=ctx.check_time)
    solution, stats = simulate(instance, policy)
    return Outcome(solution=solution, stats=stats)


def tiresias_las(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """Discretized 2D-LAS (after Tiresias, Gu et al. NSDI 2019; baseline [ours]): queue k holds the
    jobs whose attained GPU-seconds lie in ``[T_{k-1}, T_k)``; lower queues first, FIFO inside;
    preemptive; decisions at arrivals, completions and every ``tick_s`` seconds."""
    thresholds = sorted(float(t) for t in ctx.options["queue_thresholds"].split(",") if t.strip())

    def key(sim, job):
        attained = sim.gpu_seconds(job.id)
        return (sum(attained >= t for t in thresholds), job.arrival, job.id)

    policy = PriorityPolicy(instance, key, preemptive=True, blocking=False, placement=ctx.options["placement"],
                            rng=ctx.rng, solve_model=ctx.solve_model, poll=ctx.check_time)
    solution, stats = simulate(instance, policy, tick=ctx.options["tick_s"])
    return Outcome(solution=solution, stats=stats)


def iteration_time_floor(instance: SrptInstance, job: SrptJob) -> float:
    """A proven lower bound on ``job``'s iteration time under any placement.

    The cut is 0 when the job fits on one server; otherwise the job spans >= 2 servers and its
    cut is at least the graph's global minimum cut (Stoer-Wagner; 0 if the graph is disconnected).
    ``tau`` grows with the cut because ``inter_bandwidth <= intra_bandwidth``.
    """
    cut = 0.0
    if job.gpus > max(instance.gpus_per_server) and job.edges:
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(range(job.gpus))
        for u, v, w in job.edges:
            graph.add_edge(u, v, weight=graph[u][v]["weight"] + w if graph.has_edge(u, v) else w)
        if nx.is_connected(graph):
            cut = float(nx.stoer_wagner(graph, weight="weight")[0])
    return job.compute_s + cut / instance.inter_bandwidth + (job.total_bytes - cut) / instance.intra_bandwidth


def srpt_total_flow(arrivals, sizes) -> float:
    """Total flow time of preemptive SRPT on one machine of speed 1 (optimal there, Schrage 1968).

    >>> srpt_total_flow([0.0, 1.0], [4.0, 1.0])   # job 2 runs 1..2, job 1 finishes at 5
    6.0
    """
    order = np.argsort(np.asarray(arrivals, float), kind="stable")
    arrivals = np.asarray(arrivals, float)[order]
    sizes = np.asarray(sizes, float)[order]
    heap: list[tuple[float, int]] = []
    now, total, k, n = 0.0, 0.0, 0, len(arrivals)
    while k < n or heap:
        if not heap:
            now = max(now, arrivals[k])
        next_arrival = arrivals[k] if k < n else math.inf
        while k < n and arrivals[k] <= now:
            heapq.heappush(heap, (sizes[k], k))
            k += 1
            next_arrival = arrivals[k] if k < n else math.inf
        left, j = heapq.heappop(heap)
        if now + left <= next_arrival:
            now += left
            total += now - arrivals[j]
        else:
            heapq.heappush(heap, (left - (next_arrival - now), j))
            now = next_arrival
    return float(total)


def lower_bound(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """``LB = max(SRPT flow on the virtual machine with true sizes g_j n_j tau_lb_j / G,
    sum_j n_j tau_lb_j)`` -- a lower bound on every feasible schedule's total flow time
    (proof: ``optsched/problems/srpt/README.md#lower-bound``). O(n log n) plus a min cut per large job."""
    memo: dict[tuple, float] = {}   # the floor depends on the job's kind only (GPUs, graph, compute)

    def floor(job):
        key = (job.gpus, job.edges, job.compute_s)
        value = memo.get(key)
        if value is None:
            value = memo[key] = iteration_time_floor(instance, job)
        return value

    floors = [floor(j) for j in instance.jobs]
    arrivals = instance.columns["arrival"]
    sizes = [j.gpus * j.iterations * f / instance.total_gpus for j, f in zip(instance.jobs, floors)]
    virtual = srpt_total_flow(arrivals, sizes)
    isolated = math.fsum(j.iterations * f for j, f in zip(instance.jobs, floors))
    value = float(max(virtual, isolated))
    return Outcome(objective=value, bound=value, stats={"virtual_srpt": float(virtual), "sum_isolated": isolated})
