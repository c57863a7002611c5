"""Every job's configurations (w, s) plus "defer", costed with numpy, as flat column arrays.

The multiple-choice structure every SMD method works on: job i owns the columns
``start[i]:start[i+1]``; each column is a configuration with its true cost (weighted, with the
ceiling), its sum-of-ratios numerator and denominator, and its resource vector. Costs are computed
for all (w, s) pairs of a job at once (one vectorized envelope evaluation per job).

Dominance pruning (exact, [ours]): configuration (w, s) is dropped when another configuration
(w', s') with w' <= w, s' <= s (so no more of any resource: demands are nonnegative and linear)
costs no more, or when the job is deferrable and deferring (no resources) costs no more. Any
solution using a dropped column becomes one at least as good by replacing it with a dominating
kept column (induct on w + s), so OPT over the kept columns is OPT. Found with two running minima
over the job's (w, s) grid: ``O(W S)`` per job.

>>> from optsched.problems.smd.generate import generate
>>> inst = generate(0, jobs=2, max_workers=3, max_parameter_servers=2)
>>> full = enumerate_configurations(inst, prune=False)
>>> full.num_columns == 2 * (3 * 2 + 1) == full.enumerated
True
>>> enumerate_configurations(inst).num_columns <= full.num_columns
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .instance import SmdInstance

__all__ = ["Configurations", "enumerate_configurations", "segment_argmin", "improve_greedily"]


@dataclass(frozen=True)
class Configurations:
    """Flat per-column arrays; job i's columns are ``start[i]:start[i+1]`` (its defer column last).

    ``cost``: true weighted cost (``omega ceil(E D/(w mb)) tau`` or ``omega defer``);
    ``numerator``/``denominator``: the sum-of-ratios form ``omega F / g`` with
    ``F = (E D / mb) tau``, ``g = w`` (surrogate without the ceiling), or ``omega defer / 1``;
    ``demand``: (columns, resources); ``smallest[i]``: job i's least-resource column (defer when
    deferrable, else (1, 1)); ``enumerated``: columns before pruning.
    """

    start: np.ndarray
    job: np.ndarray
    workers: np.ndarray
    parameter_servers: np.ndarray
    cost: np.ndarray
    numerator: np.ndarray
    denominator: np.ndarray
    demand: np.ndarray
    smallest: np.ndarray
    enumerated: int

    @property
    def num_columns(self) -> int:
        return int(self.cost.shape[0])

    @property
    def num_jobs(self) -> int:
        return int(self.start.shape[0] - 1)

    def solution(self, choice: np.ndarray) -> dict:
        """The solution record of one column per job."""
        return {"workers": [int(v) for v in self.workers[choice]],
                "parameter_servers": [int(v) for v in self.parameter_servers[choice]]}

    def load(self, choice: np.ndarray) -> np.ndarray:
        return self.demand[choice].sum(axis=0)

    @cached_property
    def demand_by_resource(self) -> np.ndarray:
        """``demand`` transposed and contiguous per resource (fast per-job slices)."""
        return np.ascontiguousarray(self.demand.T)


def enumerate_configurations(instance: SmdInstance, prune: bool = True) -> Configurations:
    """All (w, s) in ``1..max_workers x 1..max_parameter_servers`` per job, plus defer when allowed.

    ``O(sum_i W_i S_i (log n_i + |Res|))`` with numpy; ``prune`` drops dominated columns (exact).
    """
    parts: list[tuple[np.ndarray, ...]] = []
    enumerated = 0
    for i, job in enumerate(instance.jobs):
        big_w, big_s = job.max_workers, job.max_parameter_servers
        w = np.repeat(np.arange(1, big_w + 1), big_s)
        s = np.tile(np.arange(1, big_s + 1), big_w)
        tau = instance.iteration_time(i, w, s)
        cost = job.weight * job.iterations(w) * tau
        numerator = job.weight * (job.samples / job.minibatch) * tau
        defer = job.weight * float(instance.defer_array[i])
        enumerated += w.size + job.deferrable
        if prune:
            grid = cost.reshape(big_w, big_s)
            best_below = np.minimum.accumulate(np.minimum.accumulate(grid, axis=0), axis=1)
            dominated = np.zeros_like(grid, bool)
            dominated[1:, :] |= grid[1:, :] >= best_below[:-1, :]
            dominated[:, 1:] |= grid[:, 1:] >= best_below[:, :-1]
            if job.deferrable:
                dominated |= grid >= defer
            keep = ~dominated.ravel()
            w, s, cost, numerator = w[keep], s[keep], cost[keep], numerator[keep]
        denominator = w.astype(float)
        if job.deferrable:
            w, s = np.append(w, 0), np.append(s, 0)
            cost, numerator = np.append(cost, defer), np.append(numerator, defer)
            denominator = np.append(denominator, 1.0)
        parts.append((w, s, cost, numerator, denominator))
    sizes = np.array([p[0].size for p in parts])
    start = np.concatenate([[0], np.cumsum(sizes)])
    workers, servers, cost, numerator, denominator = (np.concatenate([p[k] for p in parts]) for k in range(5))
    job = np.repeat(np.arange(instance.num_jobs), sizes)
    demand = (workers[:, None] * instance.worker_demand_matrix[job]
              + servers[:, None] * instance.ps_demand_matrix[job])
    # defer is each deferrable job's last column; (1, 1) is a non-deferrable job's first column
    # (never dominated: nothing has fewer workers and servers, and there is no defer column)
    smallest = np.where(instance.deferrable_array, start[1:] - 1, start[:-1])
    return Configurations(start=start, job=job, workers=workers, parameter_servers=servers, cost=cost,
                          numerator=numerator, denominator=denominator, demand=demand, smallest=smallest,
                          enumerated=int(enumerated))


def segment_argmin(values: np.ndarray, start: np.ndarray, job: np.ndarray) -> np.ndarray:
    """The first column attaining the minimum of ``values`` in each job's segment (vectorized)."""
    mins = np.minimum.reduceat(values, start[:-1])
    hits = np.flatnonzero(values <= mins[job])
    owners = job[hits]
    first = np.ones(hits.size, bool)
    first[1:] = owners[1:] != owners[:-1]
    return hits[first]


def improve_greedily(costs: np.ndarray, cfg: Configurations, capacities: np.ndarray, choice: np.ndarray,
                     order) -> np.ndarray:
    """One pass over ``order``: move each job to its cheapest column (by ``costs``) that fits the
    capacity left by the others, when that is strictly cheaper. Feasibility is preserved and the
    total of ``costs`` never increases. ``O(sum of the visited jobs' columns x |Res|)``; a job whose
    cheapest column fits is moved without scanning its columns."""
    choice = choice.copy()
    load = cfg.load(choice)
    cheapest = segment_argmin(costs, cfg.start, cfg.job)
    by_resource = cfg.demand_by_resource
    for i in order:
        current = choice[i]
        free = capacities - load + cfg.demand[current]
        best = cheapest[i]
        if not (cfg.demand[best] <= free).all():
            lo, hi = cfg.start[i], cfg.start[i + 1]
            fits = by_resource[0][lo:hi] <= free[0]
            for r in range(1, free.size):
                fits &= by_resource[r][lo:hi] <= free[r]
            masked = np.where(fits, costs[lo:hi], np.inf)
            k = int(np.argmin(masked))
            if masked[k] == np.inf:  # only when the input choice itself overloads a resource
                continue
            best = lo + k
        if costs[best] < costs[current]:
            load += cfg.demand[best] - cfg.demand[current]
            choice[i] = best
    return choice


def reduced_costs(costs: np.ndarray, cfg: Configurations, prices: np.ndarray) -> np.ndarray:
    """``costs + demand @ prices`` (the Lagrangian reduced cost of every column), one contiguous
    pass per priced resource. Shared by SMD's dual repair and its certification."""
    reduced = costs.copy()
    for r in np.flatnonzero(prices):
        reduced += prices[r] * cfg.demand_by_resource[r]
    return reduced


#: Polyak step factor below which the subgradient searches (dual repair, certification) stop
#: (6 halvings, after 30 iterations without a better dual value) [ours]
MIN_THETA = 1 / 64
