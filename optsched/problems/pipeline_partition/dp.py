"""Exact dynamic programs for ``pipeline-partition``: ``dp`` (uniform and clustered graphs, or a
fixed device order), ``subset-dp`` (every device subset, tests only) and the device-order
heuristic ``order-dp``.

The search spaces are in :mod:`.spaces`, the stage arithmetic in :mod:`.stages`; this module
holds the two DPs and the dispatch between them.

Both DPs run *backward* over suffixes of the chain: the state is (stages in the suffix, the key
of the suffix's first stage, the suffix's first position). The number of stages in the suffix
fixes the first stage's in-flight microbatches (1F1B: K - k = stages from k to the end), so the
memory constraint is exact without knowing K in advance. Keys:

* ``dp``, uniform device graph (all devices and all pairwise widest bandwidths equal): key
  ``(u, r)``: the suffix uses u devices and its first stage r of them; the stages take
  consecutive blocks of the device order. Exact over every plan.
* ``dp``, clustered graph (equal devices, one bandwidth inside clusters, a lower one across:
  ``two-level``): key ``(U, g)`` of per-cluster device counts (:class:`_Clustered`). Exact over
  every plan.
* ``dp``, other graphs: key ``(a, b)``: the first stage of the suffix runs on the block
  ``order[a:b]`` of the device order; the next stage on ``order[b:b']``; stage 1 starts at a = 0
  (devices after the last block stay idle).
* ``subset-dp``: key ``(used, group)`` as bitmasks: the suffix uses ``used``, its first stage
  ``group``; any disjoint group may precede it.

Objective ``bottleneck``: a min-max DP; for ``dp`` vectorized with numpy over (start, end)
pairs, O(K * keys * n^2) for n positions. Objective ``sync-estimate``: label-setting DP over
suffix labels (C, T, Q) with C = sum (F + B) + 2 sum x, T = max (F + B) and
Q = max_k (AR_k - sum_{s<=j<k} (B_j + x_j)) of the suffix; prepending a stage (F, B, AR, x) gives
(C + F + B + 2x, max(T, F + B), max(AR, Q - B - x)), monotone in each component, so keeping the
labels not dominated in all three is exact; a whole plan's value is C + (M - 1) T + max(0, Q).
Labels whose completion bound (below) reaches the incumbent are pruned; the incumbent starts as
the ``bottleneck`` DP's plan (and, on clustered graphs, the optimum over block-order plans), a
plan of the same search space, returned when no label beats it: pruning keeps exactness.
Completion bound of a suffix starting at position i with p devices left for the prefix: the
prefix's work w = sum_{l<i} (fw + bw) gives sum_k (F_k + B_k) >= w / (p * max speed) (each stage
has at most p replicas), and max_k (F_k + B_k) is at least G[p, i], the min-max of the prefix on
p devices at the fastest speed without all-reduce, transfers or memory (``prefix_minmax``).
The same bounds make two clamps exact: a label's T is stored as max(T, G[p, i]) (every
completion's maximum includes the prefix's, which is >= G[p, i]), and its Q as 0 when
Q <= w_b / (p * max speed) with w_b the prefix's backward work (every completion subtracts the
prefix's sum of B_j + x_j, at least that, so such a Q never reaches max(0, .)). Labels that
differ only below those thresholds then dominate each other.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import Infeasible
from optsched.pipeline import costs

from .instance import PipelinePartitionInstance
from .spaces import (
    SUBSET_MAX_DEVICES,
    SUBSET_MAX_POSITIONS,
    Plan,
    SearchSpace,
    clusters_of,
    heuristic_order,
    is_exact_space,
    order_space,
    subset_space,
)
from .stages import StageCosts

__all__ = ["Plan", "order_space", "is_exact_space", "clusters_of", "subset_space", "bottleneck_dp", "label_dp",
           "solve_order", "heuristic_order", "why_infeasible", "SUBSET_MAX_DEVICES", "SUBSET_MAX_POSITIONS"]

INF = math.inf


def bottleneck_dp(instance: PipelinePartitionInstance, space: SearchSpace) -> tuple[float, Plan | None]:
    """Exact min-max over the plans of ``space`` (vectorized; O(K * keys * successors * n^2))."""
    ch = StageCosts(instance)
    n = ch.n
    counts = instance.stage_counts()
    kmax = counts[-1]
    value: dict = {}
    choice: dict = {}
    best, best_state = INF, None
    x = np.concatenate([[0.0], ch.act])  # x[j]: bytes crossing a cut before position j
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


# -- sync-estimate: label-setting DP ---------------------------------------------------------------
def label_dp(instance: PipelinePartitionInstance, space: SearchSpace, objective: str,
             incumbent: tuple[float, Plan] | None = None) -> tuple[float, Plan | None, dict]:
    """Exact over ``space`` for ``objective`` (``bottleneck`` or ``sync-estimate``) by labels.

    ``incumbent`` = (value, plan) in the same space, used for pruning and returned when no
    strictly better plan exists.
    """
    ch = StageCosts(instance)
    n, M = ch.n, instance.microbatches
    counts = instance.stage_counts()
    kmax = counts[-1]
    sync = objective == "sync-estimate"
    upper, best_plan = (incumbent if incumbent is not None else (INF, None))
    best_label = None
    labels: dict = {}  # (c, key, i) -> list of labels (C, T, Q, j, next_key, next_label)
    starts: dict = {}  # (c, key) -> the positions i with labels
    prefix_work = ch.work  # work of [0, i) = work[i]
    stats = {"labels": 0, "pruned": 0}
    idx = np.arange(n + 1)
    for c in range(1, kmax + 1):
        live = ch.live(c)
        for key in space.keys():
            if not space.fits(key, c):
                continue
            g = space.group(key)
            avail = space.prefix_devices(key)
            start_ok = space.is_start(key) and c in counts
            fits = ch.memory_matrix(g, live)
            denom = g.replicas * g.speed
            ar_coef = 2.0 * (g.replicas - 1) / g.replicas / g.bandwidth if g.replicas > 1 else 0.0
            lb = np.where(idx > 0, prefix_work / (max(avail, 1) * ch.max_speed), 0.0)
            lb_top = ch.prefix_minmax[avail] if sync else None
            lb_back = np.where(idx > 0, ch.bw / (max(avail, 1) * ch.max_speed), 0.0)
            valid_i = (idx == 0) & start_ok | (idx > 0) & (avail > 0)
            if c == 1:
                sources = [(n, None, INF, [(0.0, 0.0, -INF, None, None, None)])]
            else:
                sources = []
                for k2, bw in space.successors(key):
                    for j in sorted(starts.get((c - 1, k2), ())):
                        sources.append((j, k2, bw, labels[c - 1, k2, j]))
            for j, k2, bw, lst in sources:
                ok = valid_i[:j] if fits is None else fits[:j, j] & valid_i[:j]
                if not ok.any():
                    continue
                fb = (ch.work[j] - ch.work[:j]) / denom
                b = (ch.bw[j] - ch.bw[:j]) / denom
                ar = ar_coef * (ch.par[j] - ch.par[:j])
                x = ch.act[j - 1] / bw if c > 1 else 0.0
                for lab in lst:
                    C, T, Q = lab[0], lab[1], lab[2]
                    if sync:
                        nC = C + fb + 2.0 * x
                        # clamps that keep every completion's value (see the module docstring)
                        nT = np.maximum(np.maximum(T, fb), lb_top[:j])
                        nQ = np.maximum(ar, Q - b - x)
                        nQ = np.where(nQ > lb_back[:j], nQ, 0.0)
                        bound = nC + lb[:j] + (M - 1) * nT
                    else:
                        nC = np.maximum(np.maximum(C, x), fb + ar)
                        nT = nQ = np.zeros(j)
                        bound = nC
                    keep = ok & (bound < upper)
                    stats["pruned"] += int(ok.sum() - keep.sum())
                    for ii in np.flatnonzero(keep):
                        new = (float(nC[ii]), float(nT[ii]), float(nQ[ii]), j, k2, lab)
                        if ii == 0:
                            val = (new[0] + (M - 1) * new[1] + max(0.0, new[2])) if sync else new[0]
                            if val < upper:
                                upper, best_label = val, (c, key, new)
                        if ii > 0:  # a suffix starting at 0 is a whole plan, never extended
                            _insert(labels.setdefault((c, key, int(ii)), []), new, sync)
                            starts.setdefault((c, key), set()).add(int(ii))
                            stats["labels"] += 1
    if best_label is None:
        return upper, best_plan, stats
    c, key, lab = best_label
    bounds, keys, i = [], [], 0
    while lab is not None and lab[3] is not None:
        bounds.append((i, lab[3]))
        keys.append(key)
        i, key, lab = lab[3], lab[4], lab[5]
    return upper, Plan(bounds, space.realize(keys)), stats


def _insert(front: list, new: tuple, three: bool) -> None:
    """Insert ``new`` into a Pareto front (minimize C, T, Q; only C when not ``three``)."""
    if not three:
        if not front:
            front.append(new)
        elif new[0] < front[0][0]:
            front[0] = new
        return
    C, T, Q = new[0], new[1], new[2]
    for lab in front:
        if lab[0] <= C and lab[1] <= T and lab[2] <= Q:
            return
    front[:] = [lab for lab in front if not (C <= lab[0] and T <= lab[1] and Q <= lab[2])]
    front.append(new)


def solve_order(instance: PipelinePartitionInstance, space: SearchSpace, objective: str) -> tuple[float, Plan, dict]:
    """Exact over ``space`` for ``bottleneck`` or ``sync-estimate``; raises Infeasible when no
    plan of the space fits memory."""
    stats: dict = {}
    if space.needs_labels:
        value, plan, stats = label_dp(instance, space, objective)
    else:
        value, plan = bottleneck_dp(instance, space)
        if plan is not None and objective == "sync-estimate":
            st = costs.stage_times_of(instance, plan.bounds, plan.groups)
            start = (costs.sync_estimate(st, instance.microbatches), plan)
            if space.block_order() is not None:
                # a cheap strong incumbent: the optimum over the block-order plans (a subset of
                # the clustered space), whose fewer keys make it several times faster
                block = space.block_order()
                start = label_dp(instance, block, "sync-estimate", incumbent=start)[:2]
            value, plan, stats = label_dp(instance, space, "sync-estimate", incumbent=start)
    if plan is None:
        raise Infeasible(why_infeasible(instance))
    return value, plan, stats


def why_infeasible(instance: PipelinePartitionInstance) -> str:
    inst = instance
    per_byte = inst.optimizer_factor
    total = float(np.sum(inst.scaled["parameter_bytes"])) * per_byte
    biggest = float(np.max(inst.scaled["parameter_bytes"])) * per_byte
    return (f"no partition fits device memory (largest device {inst.memory_array.max():.6g} bytes; one position "
            f"needs at least {biggest:.6g} bytes of parameter state, the whole model {total:.6g})")


