"""Core allocation to pipeline stages: exact greedy, brute force, and the two splits of practice.

* :func:`greedy_bottleneck` [classical: marginal allocation, Fox 1966]: start every stage at
  ``min_cores``, give each remaining core to the current bottleneck stage (lowest ``r_i c_i``; ties
  to the lowest index). Guarantee: ``ALG = OPT`` (proof in ``optsched/problems/stage_cores/README.md#stage-cores``:
  while the minimum is below OPT, the bottleneck stage ``j`` has ``c_j < ceil(OPT / r_j)``, so
  greedy never exceeds the core counts OPT needs). O(C log S) with a heap.
* :func:`brute_force` -- every composition of the cores (tests).
* :func:`equal_split`, :func:`proportional_split` [ours as baselines]: ``C / S`` each, or cores
  proportional to the work per item ``1 / r_i``, both rounded by largest remainder with at
  least ``min_cores`` each.

>>> greedy_bottleneck([10.0, 5.0, 20.0], 7)
[2, 4, 1]
"""

from __future__ import annotations

import heapq
import itertools
from typing import Sequence

import numpy as np

__all__ = ["greedy_bottleneck", "brute_force", "equal_split", "proportional_split", "largest_remainder"]


def greedy_bottleneck(rates: Sequence[float], cores: int, min_cores: int = 1) -> list[int]:
    S = len(rates)
    if cores < S * min_cores:
        raise ValueError(f"{cores} cores cannot give {S} stages {min_cores} each")
    c = [min_cores] * S
    heap = [(rates[i] * c[i], i) for i in range(S)]
    heapq.heapify(heap)
    for _ in range(cores - S * min_cores):
        _, i = heapq.heappop(heap)
        c[i] += 1
        heapq.heappush(heap, (rates[i] * c[i], i))
    return c


def brute_force(rates: Sequence[float], cores: int, min_cores: int = 1) -> tuple[float, list[int]]:
    """Every ``c`` with ``c_i >= min_cores`` and ``sum c = cores`` (using every core never hurts)."""
    S = len(rates)
    spare = cores - S * min_cores
    if spare < 0:
        raise ValueError("infeasible")
    best, arg = -1.0, None
    for bars in itertools.combinations(range(spare + S - 1), S - 1):
        extra = np.diff(np.concatenate([[-1], bars, [spare + S - 1]])) - 1
        c = [min_cores + int(e) for e in extra]
        value = min(r * x for r, x in zip(rates, c))
        if value > best:
            best, arg = value, c
    return best, arg


def largest_remainder(shares: np.ndarray, cores: int, min_cores: int) -> list[int]:
    """Integer counts ``>= min_cores`` summing to ``cores``, close to ``min_cores + shares`` of the spare."""
    S = len(shares)
    spare = cores - S * min_cores
    ideal = spare * shares / shares.sum()
    base = np.floor(ideal).astype(int)
    left = spare - int(base.sum())
    order = np.argsort(-(ideal - base), kind="stable")
    base[order[:left]] += 1
    return (base + min_cores).tolist()


def equal_split(rates: Sequence[float], cores: int, min_cores: int = 1) -> list[int]:
    return largest_remainder(np.ones(len(rates)), cores, min_cores)


def proportional_split(rates: Sequence[float], cores: int, min_cores: int = 1) -> list[int]:
    return largest_remainder(1.0 / np.asarray(rates, float), cores, min_cores)
