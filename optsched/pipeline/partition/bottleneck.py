"""The bottleneck objective of the chain DPs (:mod:`.dp`): an exact threshold search.

The objective ``bottleneck`` (:func:`bottleneck_dp`): the least threshold T whose probe succeeds,
searched over the ordered bit patterns of the non-negative doubles (about 55 probes). Every
stage time and transfer time is computed by one float expression (:mod:`.stages`), the optimum is
one of them, so the least feasible float is the optimum itself, bit for bit the value of the
original min-max recursion. Probe on a uniform graph with K free: the device-count recursion
of :class:`_UniformProbe` (the smallest coverable start per number of devices; O(N R) searches
per probe, memory O(n R + N K)); with K fixed the fewest devices per (stages, start) of
:class:`_FixedUniformProbe`; on the other spaces: boolean reachability per
(stages, key) with range counts (:class:`_ReachProbe`; O(K keys successors n) per probe, the last
probe's vectors kept as bits for the plan). No n x n matrix anywhere.
"""

from __future__ import annotations

import math

import numpy as np

from .clock import Poll, SearchStopped, as_poll
from .instance import PipelinePartitionInstance
from .spaces import Plan, SearchSpace, UniformOrder
from .stages import StageCosts

__all__ = ["bottleneck_dp", "CANDIDATE_LIMIT"]

INF = math.inf


def bottleneck_dp(instance: PipelinePartitionInstance, space: SearchSpace, poll: Poll | None = None,
                  ch: StageCosts | None = None) -> tuple[float, Plan | None]:
    """Exact min-max over the plans of ``space``: the least threshold T whose probe succeeds.

    The optimum is one of the finitely many stage times and transfer times, each computed with the
    same float expression as every probe, so the least feasible float T (a binary search over the
    ordered bit patterns of non-negative doubles, about 55 probes) is exactly the optimum.
    Probes (module docstring): on a uniform graph with K free the device-count recursion
    (:class:`_UniformProbe`, O(N R log n) per probe); on a uniform graph with K fixed the
    fewest-devices recursion (:class:`_FixedUniformProbe`, O(K (n log n + R n)) per probe);
    otherwise the reachability recursion (:class:`_ReachProbe`, O(K keys successors n) per
    probe). Memory O(n R + N K), O(n log n + K n) resp. O(K keys n / 8) bytes; no n x n matrix.
    Short chains (at most ``CANDIDATE_LIMIT`` candidate values) search the sorted candidates
    instead (about 16 probes).

    Guarantee: exact over ``space`` (value = the minimum over its plans of the bottleneck, the
    same float as the original min-max recursion). Returns ``(inf, None)`` when no plan fits
    memory.

    Time limit: ``poll`` (:class:`.clock.Poll`, default: none) is ticked once per state of every
    probe (default: the space's own poll, if it has one; else none); when the budget runs out the
    search raises :class:`.clock.SearchStopped` with the plan found by the first probe (T = inf;
    None before it) and, as ``lower``, the largest threshold whose probe failed (every plan of
    ``space`` has a larger bottleneck; None when no probe failed). ``ch``: stage costs to share
    between calls (the same values; it only saves recomputation).

    >>> from optsched.pipeline.partition.generate import chain_instance
    >>> from optsched.pipeline.partition.spaces import order_space
    >>> inst = chain_instance([1, 2, 3, 4], topology="nvlink:2", max_replicas=1)
    >>> value, plan = bottleneck_dp(inst, order_space(inst))
    >>> value, plan.bounds, plan.groups
    (6.0, [(0, 3), (3, 4)], [[0], [1]])
    """
    poll = as_poll(poll if poll is not None else getattr(space, "poll", None))
    ch = StageCosts(instance, poll) if ch is None else ch
    found = {"lower": None, "first": None}  # what the search has proven so far

    def probe(T: float) -> bool:
        ok = engine.run(T)
        if not ok:  # no plan of the space has a bottleneck <= T
            found["lower"] = T if found["lower"] is None else max(found["lower"], T)
        return ok

    try:
        if isinstance(space, UniformOrder) and instance.stages is None:
            engine = _UniformProbe(instance, space, ch, poll)
        elif isinstance(space, UniformOrder):
            engine = _FixedUniformProbe(instance, space, ch, poll)
        else:
            engine = _ReachProbe(instance, space, ch, poll)
        if not engine.run(INF):
            return INF, None
        first = engine.stages(INF)
        hi = engine.value(first)
        found["first"] = (hi, first)
        cands = _candidates(ch, engine.groups(), engine.bandwidths(), hi)
        if cands is not None:  # short chains: binary search over the candidate values themselves
            a, b = 0, len(cands) - 1
            while a < b:
                m = (a + b) // 2
                if probe(float(cands[m])):
                    b = m
                else:
                    a = m + 1
            T = float(cands[b])
        else:
            lo = float(ch.work[-1]) / (instance.num_devices * ch.max_speed) * 0.5  # half a valid lower bound
            T = _least_feasible(probe, lo, hi)
        stages = engine.stages(T)
    except SearchStopped as stop:
        value, plan = INF, None
        if found["first"] is not None:  # realized with the poll disarmed (bounded: K keys)
            value, plan = found["first"][0], engine.plan(found["first"][1])
        raise SearchStopped(str(stop), lower=found["lower"], value=value, plan=plan) from None
    return engine.value(stages), engine.plan(stages)


CANDIDATE_LIMIT = 1 << 16


def _candidates(ch: StageCosts, groups, bandwidths, hi: float) -> np.ndarray | None:
    """Every stage time and transfer time <= hi, sorted and unique, when there are at most
    ``CANDIDATE_LIMIT`` of them (short chains: fewer probes than the float search; a bounded
    buffer, independent of n beyond that), else None. Computed by the same float expressions
    as the probes, so the optimum is one of them."""
    n = ch.n
    if len(groups) * n * (n + 1) // 2 + len(bandwidths) * n > CANDIDATE_LIMIT:
        return None
    i, j = np.triu_indices(n + 1, 1)
    parts = [np.array([hi])]
    for r, speed, bw in groups:
        parts.append(ch.time(r, speed, bw, i, j))
    for bw in bandwidths:
        parts.append(ch.act[:n - 1] / bw)
    c = np.unique(np.concatenate(parts))
    return c[c <= hi]


def _least_feasible(feasible, lo: float, hi: float) -> float:
    """The least float T in [0, hi] with ``feasible(T)``, given ``feasible(hi)`` and monotonicity.
    Non-negative doubles are ordered like their int64 bit patterns."""
    bits = lambda v: int(np.float64(v).view(np.int64))  # noqa: E731
    flt = lambda b: float(np.int64(b).view(np.float64))  # noqa: E731
    b = bits(hi)
    if 0.0 < lo < hi and not feasible(lo):
        a = bits(lo) + 1
    else:
        a = 0
    while a < b:
        m = (a + b) // 2
        if feasible(flt(m)):
            b = m
        else:
            a = m + 1
    return flt(b)


class _UniformProbe:
    """Uniform graph, K free. ``E[q]``: the smallest start i such that the suffix [i, n) has a plan
    on at most q devices with every stage <= T (memory included) and every cut's transfer <= T.
    The feasible starts are up-closed (drop the leading stages before a later start, shrink the
    stage containing it: stage times and memory only fall, later stages keep their in-flight
    count, cuts stay cuts), so E describes them. Prepending a stage on r replicas to the best
    suffix on q - r devices: its end is the first allowed cut j >= E[q - r] (or n when the suffix
    is empty), its start the smallest i with stage [i, j) <= T (``StageCosts.first``). The stage's
    in-flight count depends on its distance c from the end: layers c = 1..c_sat - 1 (in-flight
    count still growing; a stage of layer c is checked with c's count, an upper bound on its
    true one) and then one recursion over q for every c >= c_sat (constant count). Feasible iff
    E[N] = 0. Per probe O((c_sat + N) R log n) element operations."""

    def __init__(self, instance, space, ch: StageCosts, poll: Poll | None = None):
        self.space, self.ch, self.poll = space, ch, as_poll(poll)
        self.n, self.N, self.R = instance.num_positions, instance.num_devices, instance.replica_limit
        self.speed, self.bw, self.mem = space.speed, space.bw, space.memory
        kmax = min(self.n, self.N)
        if ch.memory_free:
            self.layers, self.top = 0, 0
        else:
            self.top = ch.live(kmax)
            self.layers = next(c for c in range(1, kmax + 1) if ch.live(c) == self.top) - 1
        self.xt = ch.act / self.bw  # transfer time of the cut before position j: xt[j - 1]
        pairs = [(r, q) for r in range(1, self.R + 1) for q in range(r, self.N + 1)]
        self._pairs = tuple(np.array(v, np.int64) for v in zip(*pairs))

    def groups(self):
        return [(r, self.speed, self.bw) for r in range(1, self.R + 1)]

    def bandwidths(self):
        return [self.bw]

    def _next_cut(self, T):
        n = self.n
        at = np.full(n + 1, n, np.int64)
        at[1:n] = np.where(self.xt[:n - 1] <= T, np.arange(1, n), n)
        return np.minimum.accumulate(at[::-1])[::-1]

    def run(self, T, record=False):
        ch, n, N, R = self.ch, self.n, self.N, self.R
        nc = self._next_cut(T)
        E = np.full(N + 1, n, np.int64)
        trail = []
        rr, qq = self._pairs
        cols = np.arange(N + 1)
        tick = self.poll.tick
        for c in range(1, self.layers + 1):  # every (r, q) pair of a layer in one search
            tick()
            f = ch.first(rr, self.speed, self.bw, self.mem, ch.live(c), T, nc[E[qq - rr]])
            table = np.full((R, N + 1), n + 1, np.int64)
            table[rr - 1, qq] = f
            k = np.argmin(table, axis=0)
            best = table[k, cols]
            better = best < E
            new = np.where(better, best, E)
            arg = np.where(better, k + 1, 0)
            trail.append((E, new, arg))
            E = new
            if not record and E[N] == 0:  # a plan of at most c stages covers the chain
                return True
        H, arg = E.copy(), np.zeros(N + 1, np.int64)
        rs = np.arange(1, R + 1)
        for q in range(1, N + 1):
            tick()
            r = rs[:min(q, R)]
            f = ch.first(r, self.speed, self.bw, self.mem, self.top, T, nc[H[q - r]])
            k = int(np.argmin(f))
            if f[k] < H[q]:
                H[q], arg[q] = f[k], r[k]
                if not record and H[q] == 0:  # q <= N devices cover the chain
                    return True
        trail.append((H, H, arg))
        if record:
            return trail, nc
        return bool(H[N] == 0)

    def stages(self, T):
        """The plan at a feasible T as [(start, end, replicas)] from the front."""
        trail, nc = self.run(T, record=True)
        n, q, level = self.n, self.N, len(trail) - 1
        recorded = []
        while level >= 0:
            prev, cur, arg = trail[level]
            r = int(arg[q])
            if r == 0:  # inherited from the layer below (fewer stages)
                level -= 1
                continue
            j = int(nc[prev[q - r]])
            recorded.append((int(cur[q]), j, r))
            if j == n:
                break
            q -= r
            if level < len(trail) - 1:
                level -= 1
        out, at = [], 0
        for a, b, r in recorded:  # move each suffix's start to the cut chosen before it
            if b <= at:
                continue
            out.append((at, b, r))
            at = b
        return out

    def value(self, stages):
        ch = self.ch
        v = 0.0
        for k, (a, b, r) in enumerate(stages):
            v = max(v, float(ch.time(r, self.speed, self.bw, a, b)))
            if k:
                v = max(v, float(self.xt[a - 1]))
        return v

    def plan(self, stages):
        keys, u = [], sum(r for _, _, r in stages)
        for _, _, r in stages:
            keys.append((u, r))
            u -= r
        return Plan([(a, b) for a, b, _ in stages], self.space.realize(keys))


class _FixedUniformProbe:
    """Uniform graph, K fixed. ``D[c][i]``: the fewest devices of a plan of exactly c stages for
    the suffix [i, n) with every stage <= T (memory at the in-flight count of its distance c from
    the end) and every cut's transfer <= T. ``D[1][i]`` is the least r whose stage [i, n) fits;
    ``D[c][i] = min_r (r + min over allowed cuts j in (i, reach_r(i)] of D[c - 1][j])``, the range
    minimum read from a sparse table of ``D[c - 1]`` (allowed cuts only). Feasible iff
    ``D[K][0] <= N``. Per probe O(K (n log n + R n)) element operations and R (or R x in-flight
    counts) vectorized reach searches; memory O(n log n) scratch plus O(K n) kept for the plan."""

    BIG = 1 << 40

    def __init__(self, instance, space, ch: StageCosts, poll: Poll | None = None):
        self.space, self.ch, self.poll = space, ch, as_poll(poll)
        self.n, self.N, self.R = instance.num_positions, instance.num_devices, instance.replica_limit
        self.K = instance.stages
        self.speed, self.bw, self.mem = space.speed, space.bw, space.memory
        self.xt = ch.act / self.bw
        self._log2 = np.zeros(self.n + 2, np.int64)  # floor(log2(length)) for range lengths >= 1
        self._log2[2:] = np.floor(np.log2(np.arange(2, self.n + 2))).astype(np.int64)

    def groups(self):
        return [(r, self.speed, self.bw) for r in range(1, self.R + 1)]

    def bandwidths(self):
        return [self.bw]

    def _reach(self, T, r, live, cache):
        key = (r, 0 if self.ch.memory_free else live)
        if key not in cache:
            g = self.space.group((self.N, r))
            cache[key] = self.ch.reach(g, live, T, np.arange(self.n))
        return cache[key]

    @staticmethod
    def _sparse_table(V: np.ndarray, big: int) -> np.ndarray:
        """table[k, j] = min V[j .. j + 2^k) (``big`` past the end): O(n log n)."""
        m = len(V)
        levels = max(1, int(m).bit_length())
        table = np.full((levels, m), big, np.int64)
        table[0] = V
        length = 1
        for k in range(1, levels):
            table[k, :m - length] = np.minimum(table[k - 1, :m - length], table[k - 1, length:])
            length *= 2
        return table

    def _range_min(self, table: np.ndarray, a: np.ndarray, b: np.ndarray, big: int) -> np.ndarray:
        """min V[a..b] per element (inclusive; ``big`` where a > b) from V's sparse table."""
        length = np.maximum(b - a + 1, 1)
        k = self._log2[length]
        a = np.minimum(a, table.shape[1] - 1)
        out = np.minimum(table[k, a], table[k, np.maximum(b - (1 << k) + 1, 0)])
        return np.where(b >= a, out, big)

    def run(self, T, record=False):
        ch, n, R, big = self.ch, self.n, self.R, self.BIG
        allowed = np.zeros(n + 1, bool)
        allowed[1:n] = self.xt[:n - 1] <= T
        cache: dict = {}
        starts = np.arange(n)
        D = np.full(n + 1, big, np.int64)
        D[n] = 0
        table = [D]
        for c in range(1, self.K + 1):
            live = ch.live(c)
            new = np.full(n + 1, big, np.int64)
            levels = self._sparse_table(np.where(allowed, D, big), big) if c > 1 else None
            for r in range(1, R + 1):
                self.poll.tick()
                e = self._reach(T, r, live, cache)
                if c == 1:
                    best = np.where(e == n, 0, big)
                else:
                    best = self._range_min(levels, starts + 1, e, big)
                new[:n] = np.minimum(new[:n], best + r)
            D = np.minimum(new, big)
            table.append(D)
        if record:
            return table, allowed, cache
        return bool(D[0] <= self.N)

    def stages(self, T):
        table, allowed, cache = self.run(T, record=True)
        n, out, i = self.n, [], 0
        for c in range(self.K, 0, -1):
            live = self.ch.live(c)
            target = table[c][i]
            for r in range(1, self.R + 1):
                e = int(self._reach(T, r, live, cache)[i])
                if c == 1:
                    if e == n and r == target:
                        out.append((i, n, r))
                        return out
                    continue
                js = np.arange(i + 1, e + 1)
                hit = js[allowed[js] & (table[c - 1][js] + r == target)]
                if hit.size:
                    out.append((i, int(hit[0]), r))
                    i = int(hit[0])
                    break
        return out

    value = _UniformProbe.value
    plan = _UniformProbe.plan


class _ReachProbe:
    """Any search space. ``ok[c, key]``: the boolean vector over starts i of "the suffix [i, n)
    has a plan of c stages whose first stage has ``key``, every stage <= T (memory included) and
    every cut's transfer <= T". ``ok[1, key][i]`` iff stage [i, n) fits; ``ok[c, key][i]`` iff some
    allowed cut j in (i, reach(i)] has ``ok[c - 1, k2][j]`` for a successor k2 (range count over a
    cumulative sum). Feasible iff ``ok[c, key][0]`` for a start key and a stage count of the
    instance. Per probe O(K keys successors n); the last probe keeps the vectors as bits."""

    def __init__(self, instance, space, ch: StageCosts, poll: Poll | None = None):
        self.instance, self.space, self.ch, self.poll = instance, space, ch, as_poll(poll)
        self.n = instance.num_positions
        self.counts = instance.stage_counts()
        self.layers = []
        tick = self.poll.tick
        succ: dict = {}  # one tuple per key, shared by the layers (fewer objects to build and free)
        for c in range(1, self.counts[-1] + 1):
            layer = []
            for key in space.keys():
                tick()
                if space.fits(key, c):
                    if c > 1 and key not in succ:
                        succ[key] = tuple(space.successors(key))
                    layer.append((key, space.group(key), succ[key] if c > 1 else ()))
            self.layers.append((ch.live(c), layer))

    def groups(self):
        return sorted({(g.replicas, g.speed, g.bandwidth) for _, layer in self.layers for _, g, _ in layer})

    def bandwidths(self):
        return sorted({bw for _, layer in self.layers for _, _, succ in layer for _, bw in succ})

    def _cuts(self, T, bw, cache):
        if bw not in cache:
            n = self.n
            m = np.zeros(n + 1, bool)
            m[1:n] = self.ch.act[:n - 1] / bw <= T
            cache[bw] = m
        return cache[bw]

    def run(self, T, record=False):
        ch, n = self.ch, self.n
        starts = np.arange(n)
        cut_cache, reach_cache = {}, {}
        prev: dict = {}
        trail = []
        found = None
        tick = self.poll.tick
        for c, (live, layer) in enumerate(self.layers, start=1):
            cur, sums = {}, {}
            for key, g, succ in layer:
                tick()
                gk = (g.replicas, g.speed, g.bandwidth, g.memory, live)
                if gk not in reach_cache:
                    reach_cache[gk] = ch.reach(g, live, T, starts)
                rc = reach_cache[gk]
                if c == 1:
                    ok = rc == n
                else:
                    succ = tuple((k2, bw) for k2, bw in succ if k2 in prev)
                    if not succ:
                        continue
                    if succ not in sums:
                        m = np.zeros(n + 1, bool)
                        for k2, bw in succ:
                            m |= prev[k2] & self._cuts(T, bw, cut_cache)
                        sums[succ] = np.concatenate([[0], np.cumsum(m)])
                    cs = sums[succ]
                    ok = cs[rc + 1] - cs[starts + 1] > 0
                if not ok.any():
                    continue
                full = np.zeros(n + 1, bool)
                full[:n] = ok
                cur[key] = full
                if found is None and c in self.counts and self.space.is_start(key) and ok[0]:
                    found = (c, key)
                    if not record:
                        return True
            prev = cur
            if record:
                trail.append({k: np.packbits(v) for k, v in cur.items()})
        if record:
            return found, trail, cut_cache
        return False

    def stages(self, T):
        """The plan at a feasible T as [(start, end, key, bandwidth of the cut at its start)]."""
        (c, key), trail, cut_cache = self.run(T, record=True)
        ch, n = self.ch, self.n
        out, i, bw_in = [], 0, None
        while True:
            live, layer = self.layers[c - 1]
            g = self.space.group(key)
            if c == 1:
                out.append((i, n, key, bw_in))
                return out
            e = int(ch.reach(g, live, T, np.array([i]))[0])
            best = None
            for k2, bw in self.space.successors(key):
                if k2 not in trail[c - 2]:
                    continue
                bits = np.unpackbits(trail[c - 2][k2], count=n + 1).astype(bool)
                m = bits[i + 1:e + 1] & self._cuts(T, bw, cut_cache)[i + 1:e + 1]
                if m.any():
                    j = i + 1 + int(np.argmax(m))
                    if best is None or j < best[0]:
                        best = (j, k2, bw)
            j, k2, bw = best
            out.append((i, j, key, bw_in))
            i, key, bw_in, c = j, k2, bw, c - 1

    def value(self, stages):
        ch = self.ch
        v = 0.0
        for a, b, key, bw in stages:
            g = self.space.group(key)
            v = max(v, float(ch.time(g.replicas, g.speed, g.bandwidth, a, b)))
            if bw is not None:
                v = max(v, float(ch.act[a - 1] / bw))
        return v

    def plan(self, stages):
        return Plan([(a, b) for a, b, _, _ in stages], self.space.realize([k for _, _, k, _ in stages]))



# -- sync-estimate: label-setting DP ---------------------------------------------------------------
