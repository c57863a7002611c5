"""Stage arithmetic shared by the chain-partition DPs: prefix sums of the chain, the time of a
stage ``[i, j)`` on a device group, its memory fit, the farthest end / earliest start of a stage
under a threshold, and the min-max prefix bound (:class:`StageCosts`).

Nothing here builds an n x n matrix: every quantity is evaluated on demand from the prefix sums
for the (start, end) pairs asked for, so memory is O(n) per call.

Float semantics (kept identical to the original matrix DP, so that the optimum is the same float):
a stage's time is ``(W[j] - W[i]) / (r s) + (2 (r - 1) / r * (A[j] - A[i])) / bw`` (the second
term only for r > 1), its memory ``(A[j] - A[i]) opt + live (S[j] - S[i]) / r <= mem (1 + 1e-12)``
with W, A, S the prefix sums of work, parameter and stash bytes. Both are monotone in each end
(IEEE rounding is monotone), which makes the threshold searches below exact.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from .clock import Poll, as_poll
from .instance import PipelinePartitionInstance
from .spaces import Group

__all__ = ["StageCosts", "last_true"]

INF = math.inf


def last_true(pred, lo: np.ndarray, hi: np.ndarray, guess: np.ndarray | None = None) -> np.ndarray:
    """Vectorized binary search: for each element the largest ``x`` in ``[lo, hi]`` with
    ``pred(sel, x)`` true, where ``pred`` is monotone (true, then false) on ``(lo, hi]`` and ``lo``
    counts as true (it is never evaluated). ``pred(sel, x)`` gets the element indices ``sel`` and
    their candidates ``x``. ``guess`` (optional) is tried first with its right neighbour, so a good
    guess resolves an element in two evaluations. O(log(hi - lo)) evaluations otherwise."""
    lo = np.array(lo, dtype=np.int64, copy=True)
    hi = np.array(hi, dtype=np.int64, copy=True)
    if guess is not None:
        g = np.clip(guess, lo, hi)
        sel = np.flatnonzero(g > lo)
        if sel.size:
            t = pred(sel, g[sel])
            lo[sel[t]] = g[sel[t]]
            hi[sel[~t]] = g[sel[~t]] - 1
        mode = np.where(lo == g, 1, -1)  # 1: gallop up from the guess, -1: down, 0: bracketed
        sel = np.flatnonzero((mode == 1) & (lo < hi))
        if sel.size:
            t = pred(sel, lo[sel] + 1)
            lo[sel[t]] += 1
            hi[sel[~t]] = lo[sel[~t]]
        if not np.any(lo < hi):
            return lo
        # gallop away from the guess (steps 4, 32, 256), then bisect the bracket left
        for step in (4, 32, 256):
            sel = np.flatnonzero((mode == 1) & (lo < hi))
            if sel.size:
                x = np.minimum(lo[sel] + step, hi[sel])
                t = pred(sel, x)
                lo[sel[t]] = x[t]
                hi[sel[~t]] = x[~t] - 1
                mode[sel[~t]] = 0
            sel = np.flatnonzero((mode == -1) & (hi - step > lo))
            if sel.size:
                x = hi[sel] - step
                t = pred(sel, x)
                hi[sel[~t]] = x[~t] - 1
                lo[sel[t]] = x[t]
                mode[sel[t]] = 0
    while True:
        sel = np.flatnonzero(lo < hi)
        if not sel.size:
            return lo
        mid = (lo[sel] + hi[sel] + 1) // 2
        t = pred(sel, mid)
        lo[sel[t]] = mid[t]
        hi[sel[~t]] = mid[~t] - 1


class StageCosts:
    def __init__(self, instance: PipelinePartitionInstance, poll: Poll | None = None):
        self.poll = as_poll(poll)  # ticked by the O(N R) loop of ``prefix_minmax``
        c = instance.cumulative
        self.n = instance.num_positions
        self.fw, self.bw = c["forward_s"], c["backward_s"]
        self.work = self.fw + self.bw
        self.par, self.stash = c["parameter_bytes"], c["stash_bytes"]
        self.act = instance.scaled["activation_bytes"]
        self.opt = instance.optimizer_factor
        self.instance = instance
        self.max_speed = float(instance.speed_array.max())
        self._guess_cache: dict = {}

    @cached_property
    def _top_live(self) -> int:
        return self.live(self.instance.max_stages)

    def live(self, suffix_stages: int) -> int:
        """In-flight microbatches of a stage followed by ``suffix_stages - 1`` stages."""
        inst = self.instance
        if inst.schedule == "gpipe":
            return inst.microbatches
        per = 1 if inst.schedule == "1f1b" else inst.group_size
        return min(inst.microbatches, per * suffix_stages)

    @cached_property
    def memory_free(self) -> bool:
        """True when even the whole chain on one device fits the smallest memory."""
        inst = self.instance
        live = max(inst.inflight(inst.max_stages)) if inst.schedule != "gpipe" else inst.microbatches
        return bool(self.par[-1] * self.opt + live * self.stash[-1] <= inst.memory_array.min())

    # -- one stage [i, j) --------------------------------------------------------------------
    def time(self, r, speed, bandwidth, i, j) -> np.ndarray:
        """F + B + AR of stages ``[i, j)`` (arrays, broadcast) on ``r`` replicas (scalar or array)."""
        value = (self.work[j] - self.work[i]) / (r * speed)
        if np.ndim(r) == 0:
            if r > 1:
                value = value + 2.0 * (r - 1) / r * (self.par[j] - self.par[i]) / bandwidth
            return value
        r = np.asarray(r)
        multi = r > 1
        coef = 2.0 * (r - 1) / r
        extra = coef * (self.par[j] - self.par[i]) / np.where(multi, bandwidth, 1.0)
        return np.where(multi, value + extra, value)

    def fits(self, r, memory, live, i, j) -> np.ndarray:
        """Whether stages ``[i, j)`` fit ``memory`` with ``live`` microbatches in flight."""
        return ((self.par[j] - self.par[i]) * self.opt + live * (self.stash[j] - self.stash[i]) / r
                <= memory * (1 + 1e-12))

    def fits_column(self, g: Group, live: int, j: int) -> np.ndarray | None:
        """Which starts ``i < j`` give a stage ``[i, j)`` that fits g's memory (None: all)."""
        if self.memory_free:
            return None
        return self.fits(g.replicas, g.memory, live, np.arange(j), j)

    def ok(self, r, speed, bandwidth, memory, live, T: float, i, j) -> np.ndarray:
        """Stage ``[i, j)`` (j > i) takes at most ``T`` and fits memory."""
        good = self.time(r, speed, bandwidth, i, j) <= T
        if not self.memory_free:
            good &= self.fits(r, memory, live, i, j)
        return good

    def _guess_arrays(self, g: Group, live: int):
        """Monotone prefix arrays whose differences approximate time and memory (search guesses)."""
        key = (g.replicas, g.speed, g.bandwidth, g.memory, live)
        if key not in self._guess_cache:
            r = g.replicas
            z = self.work / (r * g.speed)
            if r > 1:
                z = z + 2.0 * (r - 1) / r * self.par / g.bandwidth
            m = None if self.memory_free else self.par * self.opt + live * self.stash / r
            self._guess_cache[key] = (z, m)
        return self._guess_cache[key]

    def _stacked(self, key, rmax: int) -> tuple[np.ndarray, np.ndarray]:
        """Prefix arrays Z_1..Z_rmax of one kind stacked into one increasing array (each block
        shifted above the previous one) and the shifts: one searchsorted serves every r.
        O(rmax n) memory, cached; only guesses are read from it (every answer is checked)."""
        if key not in self._guess_cache or len(self._guess_cache[key][1]) < rmax:
            blocks, shifts, base = [], [], 0.0
            for r in range(1, rmax + 1):
                if key[0] == "time":
                    z = self.work / (r * key[1])
                    if r > 1:
                        z = z + 2.0 * (r - 1) / r * self.par / key[2]
                else:
                    z = self.par * self.opt + key[1] * self.stash / r
                shifts.append(base - z[0])
                blocks.append(z + shifts[-1])
                base = blocks[-1][-1] + 1.0 + abs(blocks[-1][-1]) * 1e-9
            self._guess_cache[key] = (np.concatenate(blocks), np.asarray(shifts))
        return self._guess_cache[key]

    def _first_guess(self, key, r: np.ndarray, ends: np.ndarray, budget: float) -> np.ndarray:
        """About the smallest i with Z_r[j] - Z_r[i] <= budget, for each (r, j)."""
        stacked, shifts = self._stacked(key, max(self.instance.replica_limit, int(r.max()) if r.size else 1))
        block = (r - 1) * (self.n + 1)
        at = stacked[block + ends] - budget
        return np.clip(np.searchsorted(stacked, at, side="left") - block, 0, ends)

    def reach(self, g: Group, live: int, T: float, starts: np.ndarray) -> np.ndarray:
        """For each start i the largest end j in [i, n] with stage [i, j) within ``T`` and memory
        (j = i: not even one position fits). Exact; O(len(starts)) work for good guesses."""
        starts = np.asarray(starts, np.int64)
        z, m = self._guess_arrays(g, live)
        guess = np.searchsorted(z, z[starts] + T, side="right") - 1
        if m is not None:
            guess = np.minimum(guess, np.searchsorted(m, m[starts] + g.memory, side="right") - 1)
        r, sp, bw, mem = g.replicas, g.speed, g.bandwidth, g.memory
        return last_true(lambda sel, x: self.ok(r, sp, bw, mem, live, T, starts[sel], x),
                         starts, np.full(starts.shape, self.n), guess)

    def first(self, r, speed, bandwidth, memory, live, T: float, ends: np.ndarray) -> np.ndarray:
        """For each end j (and replica count r, scalar or per element) the smallest start i in
        [0, j] with stage [i, j) within ``T`` and memory (i = j: not even one position fits)."""
        ends = np.asarray(ends, np.int64)
        rr = np.broadcast_to(np.asarray(r), ends.shape)
        # both conditions are monotone in i, so the answer is the larger of the two first starts:
        # the time one (guessed by searchsorted on per-r prefix arrays, usually two evaluations),
        # then the memory one searched only to the right of it (one evaluation where memory
        # does not bind there)
        guess = self._first_guess(("time", speed, bandwidth), rr, ends, T)
        x = last_true(lambda sel, x: self.time(rr[sel], speed, bandwidth, x, ends[sel]) > T,
                      np.full(ends.shape, -1), ends - 1, guess - 1)
        if self.memory_free:
            return x + 1
        guess = x
        if live == self._top_live:
            # (a cached guess array only for the largest in-flight count: one per count would
            # take O(R n) memory each)
            guess = np.maximum(guess, self._first_guess(("memory", live), rr, ends, memory) - 1)
        x = last_true(lambda sel, x: ~self.fits(rr[sel], memory, live, x, ends[sel]), x, ends - 1, guess)
        return x + 1

    # -- the prefix bound of the label DP ---------------------------------------------------
    @cached_property
    def prefix_minmax(self) -> np.ndarray:
        """G[p, i]: a lower bound on max_k (F_k + B_k) over plans of positions [0, i) on at most
        p devices: the exact min-max with every device at the fastest speed, no all-reduce,
        transfers or memory (each only raises a stage's time or removes plans).

        G[p - r] is non-decreasing in the cut l and the last stage's time (W[i] - W[l]) / s / r
        non-increasing, so the minimum over l sits at their crossing: a vectorized binary search,
        O(N R n log n) time and O(N n) memory."""
        N, R, n = self.instance.num_devices, self.instance.replica_limit, self.n
        W = self.work
        s = self.max_speed
        G = np.full((N + 1, n + 1), INF)
        G[0, 0] = 0.0
        i = np.arange(1, n + 1)
        for p in range(1, N + 1):
            best = G[p - 1].copy()
            for r in range(1, min(p, R) + 1):
                self.poll.tick()
                prev = G[p - r]
                # the largest l in [-1, i - 1] with prev[l] < last(l, i); optimum at l or l + 1
                lt = last_true(lambda sel, l: prev[l] < (W[i[sel]] - W[l]) / s / r,
                               np.full(n, -1), i - 1)
                cand = np.full(n, INF)
                for l in (lt, lt + 1):
                    okl = (l >= 0) & (l < i)
                    lc = np.where(okl, l, 0)
                    v = np.maximum(prev[lc], (W[i] - W[lc]) / s / r)
                    cand = np.minimum(cand, np.where(okl, v, INF))
                best[1:] = np.minimum(best[1:], cand)
            G[p] = best
        return G
