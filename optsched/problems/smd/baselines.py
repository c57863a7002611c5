"""Baselines for the SMD problem [ours, after Optimus and DRF]; no guarantees.

All three first place the non-deferrable jobs at (1, 1) (they fit: :func:`require_feasible`),
then admit the other jobs at (1, 1) in FIFO order (job index) while they fit, deferring the rest.

* ``one-to-one``: stops there (1 worker : 1 PS per admitted job).
* ``optimus-greedy`` (after Optimus, Peng et al. 2018): repeatedly add the worker or PS with the
  largest reduction of weighted completion time per unit of dominant resource share, while one fits
  and helps.
* ``drf`` (dominant resource fairness, Ghodsi et al. 2011, by progressive filling): repeatedly give
  the admitted job of smallest dominant share one more worker, with enough PSs that the PS side is
  not the bottleneck (``s >= w B_wk / B_ps``, up to ``max_parameter_servers``), while it fits.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .instance import SmdInstance, require_feasible

__all__ = ["one_to_one", "optimus_greedy", "drf"]


class _Allocation:
    """Workers and PSs per job with the running load."""

    def __init__(self, instance: SmdInstance):
        self.instance = instance
        self.workers = np.zeros(instance.num_jobs, int)
        self.servers = np.zeros(instance.num_jobs, int)
        self.load = np.zeros(instance.num_resources)
        self.cap = instance.capacity_array

    def delta(self, i: int, workers: int, servers: int) -> np.ndarray:
        return self.instance.demand(i, workers, servers) - self.instance.demand(i, self.workers[i], self.servers[i])

    def fits(self, i: int, workers: int, servers: int) -> bool:
        return bool(np.all(self.load + self.delta(i, workers, servers) <= self.cap))

    def set(self, i: int, workers: int, servers: int) -> None:
        self.load += self.delta(i, workers, servers)
        self.workers[i], self.servers[i] = workers, servers

    def admit_fifo(self) -> None:
        """Non-deferrable jobs at (1, 1), then deferrable ones in index order while they fit."""
        fixed = ~self.instance.deferrable_array
        for i in np.flatnonzero(fixed):
            self.set(int(i), 1, 1)
        for i in np.flatnonzero(~fixed):
            if self.fits(int(i), 1, 1):
                self.set(int(i), 1, 1)

    def cost(self, i: int, workers: int, servers: int) -> float:
        """Weighted completion time of job i at (w, s) (defer cost at (0, 0))."""
        inst = self.instance
        if workers == 0:
            return inst.jobs[i].weight * float(inst.defer_array[i])
        return inst.jobs[i].weight * float(inst.completion_time(i, workers, servers))

    def outcome(self, **stats) -> Outcome:
        objective = sum(self.cost(i, int(w), int(s)) for i, (w, s) in enumerate(zip(self.workers, self.servers)))
        return Outcome(solution={"workers": self.workers.tolist(), "parameter_servers": self.servers.tolist()},
                       objective=objective, stats={"deferred": int(np.sum(self.workers == 0)), **stats})

    def dominant_share(self, demand: np.ndarray) -> float:
        """``max_r demand[r] / cap[r]`` (infinite where a positive demand meets a zero capacity)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(demand > 0, demand / self.cap, 0.0)
        return float(share.max(initial=0.0))


def one_to_one(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """One worker and one PS per job, FIFO admission while capacity lasts; the rest deferred.

    No guarantee; empirical. ``O(jobs * |Res|)``.

    >>> import optsched
    >>> from optsched.problems.smd.generate import generate
    >>> r = optsched.solve(generate(0, jobs=5), "one-to-one")
    >>> set(r.solution["workers"]) <= {0, 1}
    True
    """
    require_feasible(instance)
    alloc = _Allocation(instance)
    alloc.admit_fifo()
    return alloc.outcome()


def optimus_greedy(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """FIFO admission at (1, 1), then marginal-gain growth per unit of dominant resource share.

    Each admitted job offers two moves, +1 worker and +1 PS; the move with the largest
    ``(cost before - cost after) / dominant share of the added unit`` is applied if it fits and
    lowers the cost. Moves that do not fit are dropped (capacity only shrinks). No guarantee;
    empirical. ``O((W + S) * jobs * log jobs)`` moves and cost evaluations.
    """
    require_feasible(instance)
    alloc = _Allocation(instance)
    alloc.admit_fifo()
    heap: list[tuple[float, int, int, int, int]] = []
    version = np.zeros(instance.num_jobs, int)

    def push_moves(i: int) -> None:
        w, s = int(alloc.workers[i]), int(alloc.servers[i])
        job = instance.jobs[i]
        here = alloc.cost(i, w, s)
        for nw, ns in ((w + 1, s), (w, s + 1)):
            if nw > job.max_workers or ns > job.max_parameter_servers:
                continue
            gain = here - alloc.cost(i, nw, ns)
            if gain <= 0:
                continue
            share = alloc.dominant_share(alloc.delta(i, nw, ns))
            priority = math.inf if share == 0 else gain / share
            heapq.heappush(heap, (-priority, i, int(version[i]), nw, ns))

    for i in np.flatnonzero(alloc.workers > 0):
        push_moves(int(i))
    moves = 0
    while heap:
        _, i, ver, nw, ns = heapq.heappop(heap)
        if ver != version[i] or not alloc.fits(i, nw, ns):
            continue
        alloc.set(i, nw, ns)
        version[i] += 1
        moves += 1
        push_moves(i)
    return alloc.outcome(moves=moves)


def drf(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """Dominant resource fairness by progressive filling over the admitted jobs.

    The admitted job with the smallest dominant share (ties: lowest index) grows to
    ``w + 1`` workers and ``max(s, min(S, ceil((w + 1) B_wk / B_ps)))`` PSs; a job whose growth
    does not fit, or that reached ``max_workers``, stops growing. Ignores completion times: a
    fairness baseline. No guarantee; empirical. ``O(W * jobs * log jobs)``.
    """
    require_feasible(instance)
    alloc = _Allocation(instance)
    alloc.admit_fifo()
    ratio = instance.worker_bandwidth / instance.ps_bandwidth
    heap = [(alloc.dominant_share(instance.demand(int(i), 1, 1)), int(i)) for i in np.flatnonzero(alloc.workers > 0)]
    heapq.heapify(heap)
    while heap:
        _, i = heapq.heappop(heap)
        job = instance.jobs[i]
        w, s = int(alloc.workers[i]), int(alloc.servers[i])
        if w >= job.max_workers:
            continue
        ns = max(s, min(job.max_parameter_servers, math.ceil((w + 1) * ratio)))
        if not alloc.fits(i, w + 1, ns):
            continue
        alloc.set(i, w + 1, ns)
        heapq.heappush(heap, (alloc.dominant_share(instance.demand(i, w + 1, ns)), i))
    return alloc.outcome()
