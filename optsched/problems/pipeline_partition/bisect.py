"""``bisect``: the exact bottleneck without replication on a uniform device graph, for long chains.

Problem: cut the chain into at most min(n, N) stages (exactly K when the instance fixes it), one
device per stage, minimizing max(max_k (F_k + B_k), max_k x_k), when every device is alike and
every pair of devices has the same widest-path bandwidth bw, and memory cannot bind.

Probe (a threshold T): the cuts allowed at T are those whose transfer act / bw <= T; starting at
position 0, extend the stage as far as its time stays <= T, then cut at the last allowed cut
inside it. Exchange argument: any plan with stages <= T can be moved cut by cut to the greedy one
without adding stages (stage time only grows with the interval), so the greedy count is the
minimum; with K fixed, any further allowed cuts can be added, since splitting a stage never
raises its time. So T is feasible iff greedy count <= K_max and (K fixed) the number of allowed
cuts is >= K - 1.

Search [ours]: the optimum is a candidate value (an interval time or a transfer time). Bisect on
real T until the bracket (lo, hi] holds at most 4n candidates (counted with ``searchsorted``),
then enumerate them and binary-search the sorted candidates with the probe: exact. Each probe is
O(K log n) (``searchsorted`` jumps); the whole search O(n log n + log(range) K log n).

>>> from optsched.problems.pipeline_partition.generate import chain_instance
>>> inst = chain_instance([1, 1, 1, 1], stages=2, topology="flat:2:1000", max_replicas=1)
>>> value, cuts = min_bottleneck(inst)
>>> round(value, 9), cuts
(2.0, [2])
"""

from __future__ import annotations

import numpy as np

from .instance import PipelinePartitionInstance

__all__ = ["min_bottleneck", "applicable"]


def applicable(instance: PipelinePartitionInstance) -> tuple[bool, str]:
    if instance.replica_limit != 1 and instance.num_devices > 1:
        return False, "bisect is exact without replication only (set max_replicas = 1)"
    if not instance.is_uniform:
        return False, "bisect needs a uniform device graph (equal devices, equal pairwise bandwidth)"
    c = instance.cumulative
    live = max(instance.inflight(instance.stages or instance.max_stages))
    need = c["parameter_bytes"][-1] * instance.optimizer_factor + live * c["stash_bytes"][-1]
    if need > instance.memory_array.min():
        return False, "bisect assumes memory cannot bind (the whole model fits one device)"
    return True, "uniform graph, no replication, memory cannot bind"


def min_bottleneck(instance: PipelinePartitionInstance) -> tuple[float, list[int]]:
    """(optimal bottleneck, cuts) under the conditions of :func:`applicable`."""
    n, N = instance.num_positions, instance.num_devices
    c = instance.cumulative
    speed = float(instance.speed_array[0])
    W = (c["forward_s"] + c["backward_s"]) / speed
    if N > 1:
        bw = float(instance.widest[0, 1])
        x = np.concatenate([[np.inf], instance.scaled["activation_bytes"][:-1] / bw])  # x[p]: cut before p
    else:
        x = np.full(n, np.inf)
    fixed = instance.stages
    kmax = fixed or min(n, N)

    def probe(T: float) -> list[int] | None:
        allowed = x <= T
        allowed[0] = False
        idx = np.where(allowed, np.arange(n), -1)
        last_allowed = np.maximum.accumulate(idx)
        if fixed is not None and int(allowed.sum()) < fixed - 1:
            return None
        cuts, s = [], 0
        while True:
            e = int(np.searchsorted(W, W[s] + T, side="right")) - 1
            while e + 1 <= n and W[e + 1] - W[s] <= T:
                e += 1
            while e > s and W[e] - W[s] > T:
                e -= 1
            if e >= n:
                break
            cut = int(last_allowed[e]) if e < n else -1
            if cut <= s or len(cuts) + 1 >= kmax:
                return None
            cuts.append(cut)
            s = cut
        if fixed is not None and len(cuts) < fixed - 1:
            extra = [p for p in np.flatnonzero(allowed) if p not in set(cuts)]
            cuts = sorted(cuts + [int(p) for p in extra[:fixed - 1 - len(cuts)]])
        return cuts

    lo = 0.0
    hi = float(max(W[-1], np.max(x[1:]) if n > 1 else 0.0)) if fixed and fixed > 1 else float(W[-1])
    if fixed and fixed > 1:
        hi = float(max(W[-1], np.max(x[1:])))
    while probe(hi) is None:  # only float noise can make the full range fail; widen it
        hi = hi * 2 + 1e-300
    starts = W[:-1]

    def count(a: float, b: float) -> int:
        return int(np.sum(np.searchsorted(W, starts + b, "right") - np.searchsorted(W, starts + a, "right"))
                   + np.sum((x > a) & (x <= b)))

    while count(lo, hi) > 4 * n:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if probe(mid) is None:
            lo = mid
        else:
            hi = mid
    first = np.searchsorted(W, starts + lo, "right")
    last = np.searchsorted(W, starts + hi, "right")
    lengths = last - first
    rows = np.repeat(np.arange(n), lengths)
    cols = np.concatenate([np.arange(a, b) for a, b in zip(first, last)]) if lengths.sum() else np.zeros(0, int)
    cand = np.concatenate([W[cols] - W[rows], x[(x > lo) & (x <= hi)], [hi]])
    cand = np.unique(cand[(cand > lo) & (cand <= hi)])
    a, b = 0, len(cand) - 1  # probe(cand[b]) feasible (cand[b] = hi)
    while a < b:
        m = (a + b) // 2
        if probe(float(cand[m])) is None:
            a = m + 1
        else:
            b = m
    value = float(cand[b])
    return value, probe(value)
