"""Exact contiguous chain partition over processors of given speeds in a fixed order [classical].

Problem (chains-on-chains, Bokhari 1988; Nicol 1994; Pinar & Aykanat 2004 for the heterogeneous
fixed-order case): items ``0..n-1`` with weights ``w_i >= 0`` in a fixed order, processors
``0..K-1`` with speeds ``s_k > 0`` in a fixed order. A partition is a vector of bounds
``0 = b_0 <= b_1 <= ... <= b_K = n``; processor ``k`` gets items ``[b_k, b_{k+1})`` (possibly
none) and the load ``L_k = (P[b_{k+1}] - P[b_k]) / s_k`` with prefix sums ``P``. Optionally every
*cut* (an interior bound ``0 < b < n`` between two non-empty sides) costs ``c_b``, which also
enters the bottleneck (a transfer time in a pipeline).

* min-max: minimize ``max(max_k L_k, max_{cuts b} c_b)``.
* min-sum: minimize ``sum_k f(k, b_k, b_{k+1})`` for any segment cost ``f``.

Why the probe is exact (the classical exchange argument): for a threshold ``T``, let processor
``k`` starting at ``s`` take the farthest allowed end ``e`` with ``L <= T`` (allowed: ``c_e <= T``).
If some partition has bottleneck ``<= T``, its ``k``-th end is ``<=`` the greedy one by induction
(a later start reaches at least as far), so the greedy one also covers the chain. Hence
``probe(T)`` succeeds iff ``OPT <= T``, and OPT is one of the finitely many candidate values
``(P[j] - P[i]) / s_k`` and ``c_b``.

>>> part = min_max_partition([3, 1, 1, 1, 2, 2], speeds=[1, 2])
>>> part.value, part.bounds.tolist()
(3.5, [0, 1, 6])
>>> min_max_dp([3, 1, 1, 1, 2, 2], speeds=[1, 2]).value
3.5
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

INF = np.inf

__all__ = ["ChainPartition", "prefix_sums", "probe", "min_max_partition", "min_max_dp", "min_sum_partition",
           "brute_min_max", "segment_loads"]


@dataclass(frozen=True)
class ChainPartition:
    """An optimal partition: its ``value`` and ``bounds`` (``K + 1`` non-decreasing ints, from 0 to n)."""

    value: float
    bounds: np.ndarray
    method: str = ""

    @property
    def cuts(self) -> list[int]:
        """The distinct interior bounds (positions where the chain is cut)."""
        n = int(self.bounds[-1])
        return sorted({int(b) for b in self.bounds[1:-1] if 0 < b < n})

    def segments(self) -> list[tuple[int, int]]:
        return [(int(a), int(b)) for a, b in zip(self.bounds[:-1], self.bounds[1:])]


def prefix_sums(weights) -> np.ndarray:
    """``P[0] = 0, P[i] = w_0 + ... + w_{i-1}``; ``ValueError`` on negative or non-finite weights."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"weights must be one-dimensional, got shape {w.shape}")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise ValueError(f"weights[{bad[0]}] = {w[bad[0]]} must be finite and >= 0")
    return np.concatenate([[0.0], np.cumsum(w)])


def _speeds(speeds, num_parts) -> np.ndarray:
    if speeds is None:
        if num_parts is None or int(num_parts) < 1:
            raise ValueError("give speeds or num_parts >= 1")
        return np.ones(int(num_parts))
    s = np.asarray(speeds, dtype=np.float64)
    if s.ndim != 1 or len(s) < 1:
        raise ValueError("speeds must be a non-empty one-dimensional sequence")
    bad = np.flatnonzero(~np.isfinite(s) | (s <= 0))
    if bad.size:
        raise ValueError(f"speeds[{bad[0]}] = {s[bad[0]]} must be finite and > 0")
    if num_parts is not None and int(num_parts) != len(s):
        raise ValueError(f"num_parts = {num_parts} but {len(s)} speeds")
    return s


def _check_prefix(prefix) -> np.ndarray:
    P = np.asarray(prefix, dtype=np.float64)
    if P.ndim != 1 or len(P) < 1 or np.any(np.diff(P) < 0) or not np.all(np.isfinite(P)):
        raise ValueError("prefix sums must be a finite non-decreasing one-dimensional array")
    return P


def _cut_cost(cut_cost, n) -> np.ndarray | None:
    if cut_cost is None:
        return None
    c = np.asarray(cut_cost, dtype=np.float64)
    if c.shape != (n + 1,):
        raise ValueError(f"cut_cost needs one entry per position 0..n ({n + 1}), got shape {c.shape}")
    if np.any(np.isnan(c[1:n])) or np.any(c[1:n] < 0):
        raise ValueError("cut_cost entries must be >= 0 (inf forbids a cut)")
    return c


def segment_loads(prefix, speeds, bounds) -> np.ndarray:
    """``L_k = (P[b_{k+1}] - P[b_k]) / s_k`` for every processor."""
    P = np.asarray(prefix, float)
    b = np.asarray(bounds, dtype=np.int64)
    return (P[b[1:]] - P[b[:-1]]) / np.asarray(speeds, float)


def _reach(P: np.ndarray, s: int, speed: float, T: float) -> int:
    """The largest ``e`` in ``[s, n]`` with ``(P[e] - P[s]) / speed <= T``."""
    n = len(P) - 1
    e = int(np.searchsorted(P, P[s] + T * speed, side="right")) - 1
    e = min(max(e, s), n)
    while e + 1 <= n and (P[e + 1] - P[s]) / speed <= T:
        e += 1
    while e > s and (P[e] - P[s]) / speed > T:
        e -= 1
    return e


def probe(prefix, speeds, T: float, cut_cost=None) -> np.ndarray | None:
    """The greedy partition with bottleneck ``<= T``, or None when none exists.

    Each processor in order takes the farthest allowed end its speed reaches within ``T``.
    O(K log n) without cut costs, O(n + K log n) with them.

    >>> probe([0, 1, 2, 3, 4], [1, 1], 2.0).tolist(), probe([0, 1, 2, 3, 4], [1, 1], 1.5)
    ([0, 2, 4], None)
    """
    P = _check_prefix(prefix)
    s_arr = np.asarray(speeds, float)
    return _probe(P, s_arr, float(T), _cut_cost(cut_cost, len(P) - 1))


def _probe(P: np.ndarray, speeds: np.ndarray, T: float, cost: np.ndarray | None,
           last_allowed: np.ndarray | None = None) -> np.ndarray | None:
    n, K = len(P) - 1, len(speeds)
    if cost is not None and last_allowed is None:
        allowed = cost <= T
        allowed[0] = allowed[n] = True
        last_allowed = np.maximum.accumulate(np.where(allowed, np.arange(n + 1), 0))
    bounds = np.full(K + 1, n, dtype=np.int64)
    bounds[0] = 0
    s = 0
    for k in range(K):
        if s >= n:
            break
        e = _reach(P, s, float(speeds[k]), T)
        if e < n and last_allowed is not None:
            e = max(int(last_allowed[e]), s)
        bounds[k + 1] = e
        s = e
    if s < n:
        return None
    return bounds


def _value(P, speeds, bounds, cost) -> float:
    loads = segment_loads(P, speeds, bounds)
    value = float(loads.max()) if len(loads) else 0.0
    if cost is not None:
        n = len(P) - 1
        for b in set(int(x) for x in bounds[1:-1]):
            if 0 < b < n:
                value = max(value, float(cost[b]))
    return value


def min_max_partition(weights=None, speeds=None, *, num_parts: int | None = None, prefix=None,
                      cut_cost=None, method: str = "auto", poll=None) -> ChainPartition:
    """The exact min-max (bottleneck) contiguous partition.

    Parameters
    ----------
    weights : item weights ``>= 0`` (or give ``prefix``, the prefix sums, instead)
    speeds : processor speeds ``> 0`` in their fixed order (or ``num_parts`` equal ones)
    cut_cost : optional array of ``n + 1`` costs of a cut at each position (entries 0 and n unused;
        ``inf`` forbids a cut there)
    method : ``"bisect"`` (real bisection, then a binary search over the exact candidate values
        left in the bracket), ``"nicol"`` (Nicol's parametric search: per processor, a binary
        search over its end with the probe; no cut costs) or ``"auto"`` (nicol for many distinct
        speeds without cut costs, else bisect)
    poll : optional clock check (raises at a time limit), called before every probe of the
        bisection and per processor of the other searches

    Guarantee: exact, ``value = OPT`` (the returned bounds attain it), by the probe's exchange
    argument (module docstring) and because OPT is a candidate value.

    Complexity: bisect O(d n log n) per counting step (d distinct speeds) and O(log) probes;
    nicol O(K^2 log^2 n) probe work without touching all candidates; memory O(n + K).

    >>> min_max_partition([1, 1, 1, 1], num_parts=2).bounds.tolist()
    [0, 2, 4]
    >>> min_max_partition([1, 1, 1, 1], num_parts=2, method="nicol").value
    2.0
    >>> cost = [0, 5, 5, 0.5, 0]   # cutting after item 2 costs 0.5, elsewhere 5
    >>> min_max_partition([1, 1, 1, 1], num_parts=2, cut_cost=cost).bounds.tolist()
    [0, 3, 4]

    References: S. H. Bokhari, IEEE TC 1988; D. M. Nicol, JPDC 1994; A. Pinar, C. Aykanat,
    JPDC 2004 (probe-based exact algorithms).
    """
    if prefix is None:
        if weights is None:
            raise ValueError("give weights or prefix")
        P = prefix_sums(weights)
    else:
        P = _check_prefix(prefix)
    s = _speeds(speeds, num_parts)
    n = len(P) - 1
    cost = _cut_cost(cut_cost, n)
    if method == "auto":
        method = "nicol" if cost is None and len(np.unique(s)) > 4 else "bisect"
    if n == 0 or P[-1] == P[0] and cost is None:
        bounds = np.zeros(len(s) + 1, np.int64)
        bounds[1:] = n
        return ChainPartition(0.0, bounds, method)
    if method == "bisect":
        value, bounds = _bisect(P, s, cost, poll)
    elif method == "nicol":
        if cost is not None:
            raise ValueError("method 'nicol' does not take cut costs (use 'bisect')")
        value, bounds = _nicol(P, s, poll)
    elif method == "dp":
        return min_max_dp(prefix=P, speeds=s, cut_cost=cost, poll=poll)
    else:
        raise ValueError(f"unknown method {method!r} (auto, bisect, nicol, dp)")
    return ChainPartition(_value(P, s, bounds, cost), bounds, method)


def _bisect(P: np.ndarray, speeds: np.ndarray, cost: np.ndarray | None, poll=None) -> tuple[float, np.ndarray]:
    poll = poll or (lambda: None)
    n = len(P) - 1
    distinct = np.unique(speeds)
    inner = cost[1:n] if cost is not None else np.zeros(0)
    inner = inner[np.isfinite(inner)]
    if _probe(P, speeds, 0.0, cost) is not None:
        return 0.0, _probe(P, speeds, 0.0, cost)
    lo, hi = 0.0, float(P[-1] - P[0]) / float(speeds.max())  # one processor takes all: feasible
    starts = P[:-1]

    def count(a: float, b: float) -> int:
        total = int(np.sum((inner > a) & (inner <= b)))
        for sp in distinct:
            total += int(np.sum(np.searchsorted(P, starts + b * sp, "right")
                                - np.searchsorted(P, starts + a * sp, "right")))
        return total

    limit = 4 * (n + 1) * len(distinct) + len(inner)
    while count(lo, hi) > limit:
        poll()
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _probe(P, speeds, mid, cost) is None:
            lo = mid
        else:
            hi = mid
    cands = [inner[(inner > lo) & (inner <= hi)], [hi]]
    idx = np.arange(n)
    for sp in distinct:
        # widen the searchsorted ranges by one on each side against float noise, then filter exactly
        first = np.maximum(np.searchsorted(P, starts + lo * sp, "right") - 1, idx + 1)
        last = np.minimum(np.searchsorted(P, starts + hi * sp, "right") + 1, n + 1)
        lengths = np.maximum(last - first, 0)
        if lengths.sum() == 0:
            continue
        rows = np.repeat(idx, lengths)
        offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        cols = np.repeat(first, lengths) + offsets
        cands.append((P[cols] - P[rows]) / sp)
    cand = np.concatenate(cands)
    cand = np.unique(cand[(cand > lo) & (cand <= hi)])
    a, b = 0, len(cand) - 1  # cand[b] = hi is feasible
    while a < b:
        poll()
        m = (a + b) // 2
        if _probe(P, speeds, float(cand[m]), cost) is None:
            a = m + 1
        else:
            b = m
    value = float(cand[b])
    return value, _probe(P, speeds, value, cost)


def _nicol(P: np.ndarray, speeds: np.ndarray, poll=None) -> tuple[float, np.ndarray]:
    n, K = len(P) - 1, len(speeds)
    best = float(P[-1] - P[0]) / float(speeds.max())
    s = 0
    for k in range(K):
        if poll is not None:
            poll()
        sp = float(speeds[k])
        if k == K - 1 or s >= n:
            # the last processor takes the rest. Every earlier load on this path is below OPT (each
            # was infeasible as a threshold), so last >= OPT, and any value >= OPT is feasible
            best = min(best, float(P[n] - P[s]) / sp)
            break
        # smallest end e in (s, n] whose load as a threshold is feasible; ends beyond the reach of
        # the best value so far cannot improve it
        lo, hi = s + 1, _reach(P, s, sp, best)
        if hi < lo or _probe(P, speeds, float(P[hi] - P[s]) / sp, None) is None:
            # even the largest useful end is infeasible as a threshold: OPT's processor k reaches hi
            s = max(hi, s)
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if _probe(P, speeds, float(P[mid] - P[s]) / sp, None) is None:
                lo = mid + 1
            else:
                hi = mid
        best = min(best, float(P[lo] - P[s]) / sp)
        s = lo - 1  # if OPT < that value, processor k ends exactly at lo - 1 in the greedy at OPT
    bounds = _probe(P, speeds, best, None)
    return best, bounds


def min_max_dp(weights=None, speeds=None, *, num_parts: int | None = None, prefix=None,
               cut_cost=None, poll=None) -> ChainPartition:
    """The min-max partition by dynamic programming over prefix sums (an independent route).

    ``F[k][j]`` = best bottleneck covering items ``[0, j)`` with processors ``0..k``:
    ``F[k][j] = min_{i <= j} max(F[k-1][i], L_k(i, j), c_i)``; ``F[k-1]`` is non-decreasing in
    ``i`` and ``L_k(i, j)`` non-increasing, so without cut costs the minimum sits at their
    crossing, found by a vectorized binary search: O(K n log n) time. With cut costs the
    minimum is taken over all ``i`` (O(K n^2) time in blocks of about 2^20 (i, j) pairs, no n x n
    matrix). Memory O(K n) for the arg-min table. ``poll`` (a clock check that raises) is called
    once per processor.

    >>> part = min_max_dp([5, 1, 1, 1, 1, 1], speeds=[1, 1, 1])   # the 5 alone bounds it
    >>> part.value, part.bounds.tolist()                          # a processor may stay idle
    (5.0, [0, 0, 1, 6])
    """
    if prefix is None:
        P = prefix_sums(weights)
    else:
        P = _check_prefix(prefix)
    s = _speeds(speeds, num_parts)
    n, K = len(P) - 1, len(s)
    cost = _cut_cost(cut_cost, n)
    F = (P - P[0]) / s[0]
    arg = np.zeros((K, n + 1), dtype=np.int32)
    J = np.arange(n + 1)
    for k in range(1, K):
        if poll is not None:
            poll()
        if cost is None:
            lo, hi = np.zeros(n + 1, np.int64), J.copy()
            # smallest i in [0, j] with F[i] >= L(i, j); the optimum is at i or i - 1
            while np.any(lo < hi):
                mid = (lo + hi) // 2
                ok = F[mid] >= (P[J] - P[mid]) / s[k]
                hi = np.where(ok & (lo < hi), mid, hi)
                lo = np.where(~ok & (lo < hi), mid + 1, lo)
            i1 = lo
            i0 = np.maximum(lo - 1, 0)
            v1 = np.maximum(F[i1], (P[J] - P[i1]) / s[k])
            v0 = np.maximum(F[i0], (P[J] - P[i0]) / s[k])
            pick = np.where(v0 <= v1, i0, i1)
            newF = np.minimum(v0, v1)
        else:
            c = np.where((J > 0) & (J < n), cost, 0.0)
            newF = np.empty(n + 1)
            pick = np.empty(n + 1, np.int64)
            for j0 in range(0, n + 1, _block(n)):  # ends j0..j1-1 against starts 0..j1-1
                j1 = min(n + 1, j0 + _block(n))
                jj = J[j0:j1, None]
                ii = J[None, :j1]
                ci = np.where(ii == jj, 0.0, c[:j1][None, :])  # an empty segment adds no new cut
                v = np.maximum(np.maximum(F[None, :j1], (P[jj] - P[ii]) / s[k]), ci)
                v = np.where(ii <= jj, v, INF)
                pick[j0:j1] = np.argmin(v, axis=1)
                newF[j0:j1] = v[np.arange(j1 - j0), pick[j0:j1]]
        arg[k] = pick
        F = newF
    bounds = np.empty(K + 1, np.int64)
    bounds[K] = n
    j = n
    for k in range(K - 1, 0, -1):
        j = int(arg[k][j])
        bounds[k] = j
    bounds[0] = 0
    return ChainPartition(_value(P, s, bounds, cost), bounds, "dp")


def _block(n: int) -> int:
    """Ends per block of the DPs that scan every start: about 2^20 (start, end) pairs at a time."""
    return max(1, (1 << 20) // (n + 1))


def min_sum_partition(num_items: int, num_parts: int,
                      segment_cost: Callable[[int, np.ndarray, np.ndarray], np.ndarray],
                      *, nonempty: bool = False) -> ChainPartition:
    """Minimize ``sum_k segment_cost(k, b_k, b_{k+1})`` over contiguous partitions (exact DP).

    ``segment_cost(k, starts, ends)`` is vectorized: arrays of equal shape with ``starts <= ends``,
    returning the cost of giving items ``[start, end)`` to processor ``k`` (``inf`` forbids it).
    ``nonempty`` requires every segment to hold at least one item.

    Guarantee: exact (Bellman's principle over the ``K`` processors in order). Complexity
    O(K n^2) cost evaluations in blocks of ends (about 2^20 pairs of scratch at a time, no n x n
    matrix) and O(K n) memory for the arg-min.

    >>> P = prefix_sums([4, 1, 1, 4])
    >>> sq = lambda k, a, b: (P[b] - P[a]) ** 2        # minimize the sum of squared loads
    >>> part = min_sum_partition(4, 2, sq)
    >>> part.value, part.bounds.tolist()
    (50.0, [0, 2, 4])
    """
    n, K = int(num_items), int(num_parts)
    if n < 0 or K < 1:
        raise ValueError("need num_items >= 0 and num_parts >= 1")
    if nonempty and K > n:
        raise ValueError(f"{K} non-empty segments need at least {K} items, got {n}")
    F = np.full(n + 1, np.inf)
    F[0] = 0.0
    arg = np.zeros((K, n + 1), dtype=np.int32)
    for k in range(K):
        newF = np.empty(n + 1)
        for j0 in range(0, n + 1, _block(n)):  # a block of ends at a time: O(n x block) scratch
            j1 = min(n + 1, j0 + _block(n))
            I, J = np.meshgrid(np.arange(j1), np.arange(j0, j1), indexing="ij")  # I: start, J: end
            valid = I < J if nonempty else I <= J
            c = np.full(I.shape, np.inf)
            c[valid] = np.asarray(segment_cost(k, I[valid], J[valid]), float)
            total = F[:j1, None] + c
            pick = np.argmin(total, axis=0)
            arg[k, j0:j1] = pick
            newF[j0:j1] = total[pick, np.arange(j1 - j0)]
        F = newF
    if not np.isfinite(F[n]):
        raise ValueError("no partition has finite cost")
    bounds = np.empty(K + 1, np.int64)
    bounds[K] = n
    j = n
    for k in range(K - 1, -1, -1):
        j = int(arg[k][j])
        bounds[k] = j
    return ChainPartition(float(F[n]), bounds, "min-sum-dp")


def brute_min_max(weights: Sequence[float], speeds: Sequence[float], cut_cost=None) -> ChainPartition:
    """Enumerate every bound vector (C(n + K - 1, K - 1) of them): for tests on small chains.

    Computes the loads directly from the weights (no prefix sums, no probe).
    """
    w = [float(x) for x in weights]
    s = [float(x) for x in speeds]
    n, K = len(w), len(s)
    best, best_b = np.inf, None
    for inner in itertools.combinations_with_replacement(range(n + 1), K - 1):
        b = (0, *inner, n)
        value = max(sum(w[b[k]:b[k + 1]]) / s[k] for k in range(K))
        if cut_cost is not None:
            for x in set(inner):
                if 0 < x < n:
                    value = max(value, float(cut_cost[x]))
        if value < best:
            best, best_b = value, b
    return ChainPartition(float(best), np.asarray(best_b, np.int64), "brute")
