"""A feasible schedule for the exact method to beat: a local search over static priority orders
[ours].

A static order (a permutation of the jobs) is run by the shared simulator's
:class:`~.policies.PriorityPolicy` (greedy + Kernighan-Lin placement, backfilling), preemptive or
not; the search starts from four orders (arrival, GPU time g n tau, isolated run time n tau,
arrival + n tau), then moves one job to another position while that improves the
checker's flow time, up to ``budget`` simulations. Its value is an upper bound on OPT (a feasible
schedule); the exact method (``model.milp``) stops at once when it meets the lower bound.
"""

from __future__ import annotations

import math
from typing import Callable

from .instance import SrptInstance
from .policies import PriorityPolicy, estimated_iteration_time_array, simulate

__all__ = ["flow_time", "run_order", "priority_search"]


def flow_time(instance: SrptInstance, solution: dict) -> float:
    """The checker's objective of a schedule: ``sum_j (C_j - a_j)``, ``C_j`` its last segment's end."""
    by_id = {job.id: job for job in instance.jobs}
    return math.fsum(entry["segments"][-1]["end"] - by_id[entry["id"]].arrival for entry in solution["jobs"])


def run_order(instance: SrptInstance, order: list[int], preemptive: bool) -> tuple[float, dict]:
    """Simulate the static priority ``order`` (positions in ``instance.jobs``, first = highest)."""
    rank = [0] * instance.num_jobs
    for r, j in enumerate(order):
        rank[j] = r
    policy = PriorityPolicy(instance, lambda sim, job: (rank[job.payload], job.id), preemptive=preemptive,
                            blocking=False)
    solution, _ = simulate(instance, policy)
    return flow_time(instance, solution), solution


def priority_search(instance: SrptInstance, budget: int = 400,
                    stop: Callable[[], bool] = lambda: False) -> tuple[float, dict, dict]:
    """``(flow time, schedule, stats)`` of the best static order found within ``budget``
    simulations (``stop()`` is polled before each one: a spent clock ends the search early)."""
    n = instance.num_jobs
    tau = estimated_iteration_time_array(instance)
    jobs = instance.jobs
    starts = [
        sorted(range(n), key=lambda j: (jobs[j].arrival, j)),
        sorted(range(n), key=lambda j: (jobs[j].gpus * jobs[j].iterations * tau[j], j)),
        sorted(range(n), key=lambda j: (jobs[j].iterations * tau[j], j)),
        sorted(range(n), key=lambda j: (jobs[j].arrival + jobs[j].iterations * tau[j], j)),
    ]
    best = (math.inf, None, None, None)   # (flow, solution, order, preemptive)
    runs = 0

    def evaluate(order, preemptive):
        nonlocal best, runs
        runs += 1
        value, solution = run_order(instance, order, preemptive)
        if value < best[0]:
            best = (value, solution, list(order), preemptive)
        return value

    for order in starts:
        for preemptive in (True, False):
            if runs >= budget or stop():
                break
            evaluate(order, preemptive)
    improved = True
    while improved and runs < budget and not stop():
        improved = False
        current, order, preemptive = best[0], best[2], best[3]
        for i in range(n):
            for k in range(n):
                if i == k or runs >= budget or stop():
                    continue
                moved = order[:i] + order[i + 1:]
                moved.insert(k, order[i])
                if evaluate(moved, preemptive) < current * (1 - 1e-12):
                    improved = True
                    break
            if improved:
                break
    return best[0], best[1], {"incumbent_simulations": runs, "incumbent_preemptive": best[3]}
