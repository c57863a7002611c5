"""The label-setting DP of the chain DPs (:mod:`.dp`): exact for ``sync-estimate`` (and
``bottleneck``) over a search space.

The objective ``sync-estimate``: a label-setting DP over suffix labels (C, T, Q) with C = sum (F + B) + 2 sum x, T = max (F + B) and
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

from .clock import Poll, SearchStopped, as_poll
from .instance import PipelinePartitionInstance
from .spaces import Plan, SearchSpace
from .stages import StageCosts

__all__ = ["label_dp"]

INF = math.inf


def label_dp(instance: PipelinePartitionInstance, space: SearchSpace, objective: str,
             incumbent: tuple[float, Plan] | None = None, poll: Poll | None = None,
             ch: StageCosts | None = None) -> tuple[float, Plan | None, dict]:
    """Exact over ``space`` for ``objective`` (``bottleneck`` or ``sync-estimate``) by labels.

    ``incumbent`` = (value, plan) in the same space, used for pruning and returned when no
    strictly better plan exists. ``poll`` (default: the space's, if any) is ticked once per
    (stage count, key) state and once per label extended; when the budget runs out the DP raises
    :class:`.clock.SearchStopped` with the best whole plan found so far (the incumbent when none
    beat it) and no lower bound. ``ch``: stage costs to share between calls.
    """
    poll = as_poll(poll if poll is not None else getattr(space, "poll", None))
    tick = poll.tick
    ch = StageCosts(instance, poll) if ch is None else ch
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
    try:
        for c in range(1, kmax + 1):
            live = ch.live(c)
            for key in space.keys():
                tick()
                if not space.fits(key, c):
                    continue
                g = space.group(key)
                avail = space.prefix_devices(key)
                start_ok = space.is_start(key) and c in counts
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
                    fits = ch.fits_column(g, live, j)
                    ok = valid_i[:j] if fits is None else fits & valid_i[:j]
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
                        keep = np.flatnonzero(ok & (bound < upper))
                        tick(1 + (keep.size >> 5))  # a label extended, and its insertions
                        stats["pruned"] += int(ok.sum()) - keep.size
                        for ii in keep:
                            new = (float(nC[ii]), float(nT[ii]), float(nQ[ii]), j, k2, lab)
                            if ii == 0:
                                val = (new[0] + (M - 1) * new[1] + max(0.0, new[2])) if sync else new[0]
                                if val < upper:
                                    upper, best_label = val, (c, key, new)
                            if ii > 0:  # a suffix starting at 0 is a whole plan, never extended
                                _insert(labels.setdefault((c, key, int(ii)), []), new, sync)
                                starts.setdefault((c, key), set()).add(int(ii))
                                stats["labels"] += 1
    except SearchStopped as stop:  # the best whole plan so far, realized with the poll disarmed
        plan = best_plan if best_label is None else _label_plan(space, best_label)
        raise SearchStopped(str(stop), value=upper, plan=plan) from None
    if best_label is None:
        return upper, best_plan, stats
    return upper, _label_plan(space, best_label), stats


def _label_plan(space: SearchSpace, best_label) -> Plan:
    """The plan of a whole-chain label (its chain of labels, realized by the space)."""
    c, key, lab = best_label
    bounds, keys, i = [], [], 0
    while lab is not None and lab[3] is not None:
        bounds.append((i, lab[3]))
        keys.append(key)
        i, key, lab = lab[3], lab[4], lab[5]
    return Plan(bounds, space.realize(keys))


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
