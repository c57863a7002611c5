"""The pre-issue-21 ``bottleneck_dp`` (n x n stage matrices), kept verbatim as a test oracle.

It materializes (n+1) x (n+1) matrices of stage times and memory fits per device group, so it is
for small chains only; the production DP (:mod:`optsched.pipeline.partition.dp`) must
return the same optimum on every instance.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.pipeline.partition.spaces import Plan

INF = math.inf


class _MatrixCosts:
    def __init__(self, instance):
        c = instance.cumulative
        self.n = instance.num_positions
        self.work = c["forward_s"] + c["backward_s"]
        self.par, self.stash = c["parameter_bytes"], c["stash_bytes"]
        self.act = instance.scaled["activation_bytes"]
        self.opt = instance.optimizer_factor
        self.instance = instance
        self.upper = np.triu(np.ones((self.n + 1, self.n + 1), bool), 1)
        self.diff = tuple(v[None, :] - v[:, None] for v in (self.work, self.par, self.stash))
        inst = instance
        live = max(inst.inflight(inst.max_stages)) if inst.schedule != "gpipe" else inst.microbatches
        self.memory_free = bool(self.par[-1] * self.opt + live * self.stash[-1] <= inst.memory_array.min())

    def live(self, suffix_stages):
        inst = self.instance
        if inst.schedule == "gpipe":
            return inst.microbatches
        per = 1 if inst.schedule == "1f1b" else inst.group_size
        return min(inst.microbatches, per * suffix_stages)

    def stage_matrix(self, g):
        work, par, _ = self.diff
        value = work / (g.replicas * g.speed)
        if g.replicas > 1:
            value = value + 2.0 * (g.replicas - 1) / g.replicas * par / g.bandwidth
        return np.where(self.upper, value, INF)

    def memory_matrix(self, g, live):
        if self.memory_free:
            return None
        _, par, stash = self.diff
        return par * self.opt + live * stash / g.replicas <= g.memory * (1 + 1e-12)


def matrix_bottleneck_dp(instance, space):
    ch = _MatrixCosts(instance)
    n = ch.n
    counts = instance.stage_counts()
    kmax = counts[-1]
    value: dict = {}
    choice: dict = {}
    best, best_state = INF, None
    x = np.concatenate([[0.0], ch.act])
    for c in range(1, kmax + 1):
        live = ch.live(c)
        for key in space.keys():
            if not space.fits(key, c):
                continue
            g = space.group(key)
            fits = ch.memory_matrix(g, live)
            stage = ch.stage_matrix(g) if fits is None else np.where(fits, ch.stage_matrix(g), INF)
            if c == 1:
                tail = np.full(n + 1, INF)
                tail[n] = 0.0
                nxt = np.full(n + 1, -1)
                succ = []
            else:
                succ = [(k2, bw) for k2, bw in space.successors(key) if (c - 1, k2) in value]
                if not succ:
                    continue
                options = np.full((len(succ), n + 1), INF)
                for s, (k2, bw) in enumerate(succ):
                    options[s] = np.maximum(value[c - 1, k2], x / bw)
                options[:, n] = INF
                nxt = np.argmin(options, axis=0)
                tail = options[nxt, np.arange(n + 1)]
            total = np.maximum(stage, tail[None, :])
            j = np.argmin(total, axis=1)
            v = total[np.arange(n + 1), j]
            if not np.isfinite(v).any():
                continue
            value[c, key] = v
            choice[c, key] = (j, nxt, succ)
            if c in counts and space.is_start(key) and v[0] < best:
                best, best_state = float(v[0]), (c, key)
    if best_state is None:
        return INF, None
    c, key = best_state
    i, keys, bounds = 0, [], []
    while True:
        j_arr, nxt, succ = choice[c, key]
        j = int(j_arr[i])
        bounds.append((i, j))
        keys.append(key)
        if c == 1:
            break
        key = succ[int(nxt[j])][0]
        c, i = c - 1, j
    return best, Plan(bounds, space.realize(keys))
