"""The rank lower bound of ``srpt`` [ours, from classical single-machine results].

Docs and the proof: ``optsched/problems/srpt/README.md#rank-bound``.

``lb`` (``algorithms.lower_bound``) takes the larger of two sums: the virtual single machine's
SRPT flow time and the jobs' isolated run times. ``lb-rank`` combines them job by job: with
``F_(1) <= ... <= F_(n)`` the completion times of preemptive SRPT on the virtual machine (sizes
``p_j = g_j n_j tau_lb_j / G``) and ``e_(1) <= ... <= e_(n)`` the sorted ``e_j = a_j + n_j
tau_lb_j``,

    LB_rank = sum_k max(e_(k), F_(k)) - sum_j a_j.

It is ``>= lb`` (each summand is at least either of its two terms, and both sums are sums of
sorted vectors) and O(n log n), so it applies to streams of any length.
"""

from __future__ import annotations

import heapq
import itertools
import math

from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .algorithms import iteration_time_floor
from .instance import SrptInstance

__all__ = ["srpt_completions", "rank_bound_terms", "rank_bound", "rank_lower_bound", "subset_rank_bounds"]


def srpt_completions(arrivals, sizes) -> list[float]:
    """Completion times of preemptive SRPT on one machine of speed 1, in the jobs' order.

    >>> srpt_completions([0.0, 1.0], [4.0, 1.0])   # job 1 runs 1..2, job 0 finishes at 5
    [5.0, 2.0]
    """
    n = len(sizes)
    order = sorted(range(n), key=lambda j: (arrivals[j], j))
    heap: list[tuple[float, int]] = []
    out = [0.0] * n
    now, k = 0.0, 0
    while k < n or heap:
        if not heap:
            now = max(now, float(arrivals[order[k]]))
        while k < n and arrivals[order[k]] <= now:
            j = order[k]
            heapq.heappush(heap, (float(sizes[j]), j))
            k += 1
        next_arrival = float(arrivals[order[k]]) if k < n else math.inf
        left, j = heapq.heappop(heap)
        if now + left <= next_arrival:
            now += left
            out[j] = now
        else:
            heapq.heappush(heap, (left - (next_arrival - now), j))
            now = next_arrival
    return out


def rank_bound(arrivals, sizes, isolated) -> float:
    """``sum_k max(e_(k), F_(k)) - sum_j a_j`` (module docstring): ``F`` the sorted SRPT
    completions of ``sizes``, ``e`` the sorted ``arrival + isolated``.

    >>> rank_bound([0.0, 0.0], [1.0, 1.0], [2.0, 2.0])   # F = (1, 2), e = (2, 2): 2 + 2
    4.0
    """
    completions = sorted(srpt_completions(arrivals, sizes))
    ends = sorted(float(a) + float(t) for a, t in zip(arrivals, isolated))
    return math.fsum(max(e, f) for e, f in zip(ends, completions)) - math.fsum(float(a) for a in arrivals)


def rank_bound_terms(instance: SrptInstance) -> tuple[list[float], list[float], list[float]]:
    """``(arrivals, p_j, n_j tau_lb_j)`` per job (``tau_lb`` memoized per job kind)."""
    memo: dict[tuple, float] = {}
    arrivals, sizes, isolated = [], [], []
    G = instance.total_gpus
    for job in instance.jobs:
        key = (job.gpus, job.edges, job.compute_s)
        floor = memo.get(key)
        if floor is None:
            floor = memo[key] = iteration_time_floor(instance, job)
        arrivals.append(float(job.arrival))
        sizes.append(job.gpus * job.iterations * floor / G)
        isolated.append(job.iterations * floor)
    return arrivals, sizes, isolated


def rank_lower_bound(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """``lb-rank``: the rank bound (module docstring), a proven lower bound on every feasible
    schedule's total flow time; O(n log n) plus a min cut per job kind larger than a server."""
    arrivals, sizes, isolated = rank_bound_terms(instance)
    value = float(rank_bound(arrivals, sizes, isolated))
    return Outcome(objective=value, bound=value, stats={"sum_isolated": math.fsum(isolated)})


def subset_rank_bounds(instance: SrptInstance, max_subsets: int = 5000,
                       stop=lambda: False) -> list[tuple[tuple[int, ...], float]]:
    """``(S, LB_rank(S))`` for every subset ``S`` of at least two jobs (at most ``max_subsets``,
    smallest first): ``sum_{j in S} (C_j - a_j) >= LB_rank(S)`` holds in every feasible schedule
    (its restriction to ``S`` is a feasible schedule of ``S``). ``stop()`` (polled per subset
    size) ends the enumeration early: fewer rows, all still valid."""
    arrivals, sizes, isolated = rank_bound_terms(instance)
    n = instance.num_jobs
    out = []
    for size in range(2, n + 1):
        if stop():
            return out
        for subset in itertools.combinations(range(n), size):
            if len(out) >= max_subsets:
                return out
            out.append((subset, rank_bound([arrivals[j] for j in subset], [sizes[j] for j in subset],
                                           [isolated[j] for j in subset])))
    return out
