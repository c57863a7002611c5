"""Exact dynamic programs for ``pipeline-partition``: ``dp`` (uniform and clustered graphs, or a
fixed device order), ``subset-dp`` (every device subset, tests only) and the device-order
heuristic ``order-dp``.

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

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.errors import Infeasible
from optsched.pipeline import costs

from .instance import PipelinePartitionInstance

__all__ = ["Plan", "order_space", "is_exact_space", "clusters_of", "subset_space", "bottleneck_dp", "label_dp", "solve_order", "heuristic_order",
           "SUBSET_MAX_DEVICES", "SUBSET_MAX_POSITIONS"]

INF = math.inf
SUBSET_MAX_DEVICES = 10
SUBSET_MAX_POSITIONS = 30


@dataclass
class Plan:
    bounds: list[tuple[int, int]]
    groups: list[list[int]]

    def solution(self) -> dict:
        return {"cuts": [s for s, _ in self.bounds[1:]], "replicas": [len(g) for g in self.groups],
                "devices": [sorted(int(d) for d in g) for g in self.groups]}


@dataclass
class _Group:
    """What the cost model needs of a stage's device group."""

    replicas: int
    speed: float
    bandwidth: float  # within the group (inf for one device)
    memory: float


class _Space:
    """Keys, groups and successor relation of one DP search space."""

    def __init__(self, instance: PipelinePartitionInstance):
        self.instance = instance

    def keys(self) -> list:
        raise NotImplementedError

    def group(self, key) -> _Group:
        raise NotImplementedError

    def successors(self, key) -> list[tuple[object, float]]:
        """(next key, cross bandwidth) pairs for the stage after the first one of ``key``."""
        raise NotImplementedError

    def is_start(self, key) -> bool:
        raise NotImplementedError

    def fits(self, key, stages: int) -> bool:
        """Whether a suffix of ``stages`` stages can have this key (enough devices, none wasted)."""
        raise NotImplementedError

    def prefix_devices(self, key) -> int:
        """How many devices remain for the stages before this suffix."""
        raise NotImplementedError

    def realize(self, keys: list) -> list[list[int]]:
        raise NotImplementedError


class _UniformOrder(_Space):
    def __init__(self, instance, order):
        super().__init__(instance)
        self.order = list(order)
        N, rmax = instance.num_devices, instance.replica_limit
        w = instance.widest[~np.eye(N, dtype=bool)]
        self.bw = float(w[0]) if w.size else INF
        self._keys = [(u, r) for u in range(1, N + 1) for r in range(1, min(rmax, u) + 1)]
        d = self.order[0]
        self.speed, self.memory = float(instance.speed_array[d]), float(instance.memory_array[d])

    def keys(self):
        return self._keys

    def group(self, key):
        r = key[1]
        return _Group(r, self.speed, self.bw if r > 1 else INF, self.memory)

    def successors(self, key):
        u, r = key
        return [((u - r, r2), self.bw) for r2 in range(1, min(self.instance.replica_limit, u - r) + 1)]

    def is_start(self, key):
        return True

    def fits(self, key, stages):
        u, r = key
        return r + (stages - 1) <= u <= r + (stages - 1) * self.instance.replica_limit

    def prefix_devices(self, key):
        return self.instance.num_devices - key[0]

    def realize(self, keys):
        groups, at = [], 0
        for _, r in keys:
            groups.append(self.order[at:at + r])
            at += r
        return groups


class _BlockOrder(_Space):
    def __init__(self, instance, order):
        super().__init__(instance)
        self.order = list(order)
        N, rmax = instance.num_devices, instance.replica_limit
        self._keys = [(a, b) for a in range(N) for b in range(a + 1, min(N, a + rmax) + 1)]
        self._groups = {}
        for a, b in self._keys:
            g = self.order[a:b]
            self._groups[a, b] = _Group(b - a, float(instance.speed_array[g].min()),
                                        costs.group_bandwidth(instance.widest, g), float(instance.memory_array[g].min()))
        self._succ = {(a, b): [((b, c), costs.cross_bandwidth(instance.widest, self.order[a:b], self.order[b:c]))
                               for c in range(b + 1, min(N, b + rmax) + 1)] for a, b in self._keys}

    def keys(self):
        return self._keys

    def group(self, key):
        return self._groups[key]

    def successors(self, key):
        return self._succ[key]

    def is_start(self, key):
        return key[0] == 0

    def fits(self, key, stages):
        return key[1] + (stages - 1) <= self.instance.num_devices

    def prefix_devices(self, key):
        return key[0]

    def realize(self, keys):
        return [self.order[a:b] for a, b in keys]


class _Clustered(_Space):
    """Devices in clusters: equal speed and memory, every pair inside a cluster at bandwidth
    ``inner``, every pair across clusters at ``outer`` < ``inner`` (``two-level``, ``flat``).
    Permuting devices inside a cluster preserves every cost, so a group is characterized by how
    many devices it takes from each cluster: key ``(U, g)`` with U the suffix's per-cluster counts
    and g its first stage's. Exact over every plan."""

    def __init__(self, instance, clusters: list[list[int]], inner: float, outer: float):
        super().__init__(instance)
        self.clusters = clusters
        self.inner, self.outer = inner, outer
        R = instance.replica_limit
        sizes = [len(c) for c in clusters]
        vectors = list(itertools.product(*[range(s + 1) for s in sizes]))
        self._keys = [(U, g) for U in vectors if sum(U) > 0 for g in vectors
                      if 0 < sum(g) <= R and all(a <= b for a, b in zip(g, U))]
        self.speed = float(instance.speed_array[0])
        self.memory = float(instance.memory_array[0])
        self._by_used: dict = {}
        for U, g in self._keys:
            self._by_used.setdefault(U, []).append((U, g))

    @staticmethod
    def _home(g) -> int | None:
        """The one cluster a group lies in, or None when it spans clusters."""
        used = [i for i, v in enumerate(g) if v]
        return used[0] if len(used) == 1 else None

    def keys(self):
        return self._keys

    def group(self, key):
        g = key[1]
        r = sum(g)
        bandwidth = INF if r == 1 else (self.inner if self._home(g) is not None else self.outer)
        return _Group(r, self.speed, bandwidth, self.memory)

    def successors(self, key):
        U, g = key
        rest = tuple(a - b for a, b in zip(U, g))
        home = self._home(g)
        out = []
        for (U2, g2) in self._by_used.get(rest, []):
            same = home is not None and self._home(g2) == home
            out.append(((U2, g2), self.inner if same else self.outer))
        return out

    def is_start(self, key):
        return True

    def fits(self, key, stages):
        U, g = key
        extra = sum(U) - sum(g)
        return (stages - 1) <= extra <= (stages - 1) * self.instance.replica_limit

    def prefix_devices(self, key):
        return self.instance.num_devices - sum(key[0])

    def realize(self, keys):
        taken = [0] * len(self.clusters)
        groups = []
        for _, g in keys:
            group = []
            for i, v in enumerate(g):
                group += self.clusters[i][taken[i]:taken[i] + v]
                taken[i] += v
            groups.append(group)
        return groups


def clusters_of(instance: PipelinePartitionInstance) -> tuple[list[list[int]], float, float] | None:
    """The clusters of a clustered device graph (see :class:`_Clustered`), or None."""
    N = instance.num_devices
    if N < 2 or not (np.all(instance.speed_array == instance.speed_array[0])
                     and np.all(instance.memory_array == instance.memory_array[0])):
        return None
    w = instance.widest
    values = np.unique(w[~np.eye(N, dtype=bool)])
    if values.size != 2:
        return None
    outer, inner = float(values[0]), float(values[1])
    clusters, seen = [], set()
    for d in range(N):
        if d in seen:
            continue
        members = [e for e in range(N) if e == d or w[d, e] == inner]
        seen.update(members)
        clusters.append(members)
    for c in clusters:  # "inner" must be an equivalence relation: every pair of a cluster inner
        sub = w[np.ix_(c, c)]
        if np.any(sub[~np.eye(len(c), dtype=bool)] != inner):
            return None
    return clusters, inner, outer


class _Subsets(_Space):
    def __init__(self, instance):
        super().__init__(instance)
        N, rmax = instance.num_devices, instance.replica_limit
        self.groups = [m for m in range(1, 1 << N) if bin(m).count("1") <= rmax]
        self.members = {m: [d for d in range(N) if m >> d & 1] for m in self.groups}
        self._keys = [(used, g) for used in range(1, 1 << N) for g in self.groups if g & used == g]
        self._group = {}
        for g in self.groups:
            ds = self.members[g]
            self._group[g] = _Group(len(ds), float(instance.speed_array[ds].min()),
                                    costs.group_bandwidth(instance.widest, ds), float(instance.memory_array[ds].min()))
        self._cross = {}

    def keys(self):
        return self._keys

    def group(self, key):
        return self._group[key[1]]

    def successors(self, key):
        used, g = key
        rest = used & ~g
        out = []
        for g2 in self.groups:
            if g2 & rest == g2 and rest:
                if (g, g2) not in self._cross:
                    self._cross[g, g2] = costs.cross_bandwidth(self.instance.widest, self.members[g], self.members[g2])
                out.append(((rest, g2), self._cross[g, g2]))
        return out

    def is_start(self, key):
        return True

    def fits(self, key, stages):
        used, g = key
        extra = bin(used).count("1") - bin(g).count("1")
        return (stages - 1) <= extra <= (stages - 1) * self.instance.replica_limit

    def prefix_devices(self, key):
        return self.instance.num_devices - bin(key[0]).count("1")

    def realize(self, keys):
        return [self.members[g] for _, g in keys]


def order_space(instance: PipelinePartitionInstance, order=None) -> _Space:
    """The search space of ``dp``: every plan on a uniform or clustered graph (exact), else the
    plans on consecutive blocks of ``order`` (default 0..N-1)."""
    order = list(range(instance.num_devices)) if order is None else list(order)
    if instance.is_uniform:
        return _UniformOrder(instance, order)
    clustered = clusters_of(instance)
    if clustered is not None:
        return _Clustered(instance, *clustered)
    return _BlockOrder(instance, order)


def is_exact_space(space: _Space) -> bool:
    """Whether ``space`` covers every plan (up to cost-preserving relabelling of devices)."""
    return isinstance(space, (_UniformOrder, _Clustered, _Subsets))


def subset_space(instance: PipelinePartitionInstance) -> _Space:
    return _Subsets(instance)


# -- shared stage arithmetic ----------------------------------------------------------------------
class _Chain:
    def __init__(self, instance: PipelinePartitionInstance):
        c = instance.cumulative
        self.n = instance.num_positions
        self.fw, self.bw = c["forward_s"], c["backward_s"]
        self.work = self.fw + self.bw
        self.par, self.stash = c["parameter_bytes"], c["stash_bytes"]
        self.act = instance.scaled["activation_bytes"]
        self.opt = instance.optimizer_factor
        self.instance = instance
        self.max_speed = float(instance.speed_array.max())
        self._stage_cache: dict = {}
        self._memory_cache: dict = {}

    def live(self, suffix_stages: int) -> int:
        """In-flight microbatches of a stage followed by ``suffix_stages - 1`` stages."""
        inst = self.instance
        if inst.schedule == "gpipe":
            return inst.microbatches
        per = 1 if inst.schedule == "1f1b" else inst.group_size
        return min(inst.microbatches, per * suffix_stages)

    @cached_property
    def _upper(self) -> np.ndarray:
        return np.triu(np.ones((self.n + 1, self.n + 1), bool), 1)

    @cached_property
    def _differences(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(work, params, stash) of every interval [i, j) as (n+1) x (n+1) matrices."""
        return tuple(v[None, :] - v[:, None] for v in (self.work, self.par, self.stash))

    @cached_property
    def memory_free(self) -> bool:
        """True when even the whole chain on one device fits the smallest memory."""
        inst = self.instance
        live = max(inst.inflight(inst.max_stages)) if inst.schedule != "gpipe" else inst.microbatches
        return bool(self.par[-1] * self.opt + live * self.stash[-1] <= inst.memory_array.min())

    @cached_property
    def prefix_minmax(self) -> np.ndarray:
        """G[p, i]: a lower bound on max_k (F_k + B_k) over plans of positions [0, i) on at most
        p devices: the exact min-max with every device at the fastest speed, no all-reduce,
        transfers or memory (each only raises a stage's time or removes plans). O(N R n^2)."""
        N, R, n = self.instance.num_devices, self.instance.replica_limit, self.n
        work = self._differences[0] / self.max_speed
        G = np.full((N + 1, n + 1), INF)
        G[0, 0] = 0.0
        for p in range(1, N + 1):
            best = G[p - 1].copy()
            for r in range(1, min(p, R) + 1):
                cand = np.where(self._upper, np.maximum(G[p - r][:, None], work / r), INF).min(axis=0)
                best = np.minimum(best, cand)
            G[p] = best
        return G

    def stage_matrix(self, g: _Group) -> np.ndarray:
        """(n+1) x (n+1) matrix of F + B + AR of stage [i, j) on group g (inf for j <= i)."""
        key = (g.replicas, g.speed, g.bandwidth)
        if key not in self._stage_cache:
            work, par, _ = self._differences
            value = work / (g.replicas * g.speed)
            if g.replicas > 1:
                value = value + 2.0 * (g.replicas - 1) / g.replicas * par / g.bandwidth
            self._stage_cache[key] = np.where(self._upper, value, INF)
        return self._stage_cache[key]

    def memory_matrix(self, g: _Group, live: int) -> np.ndarray | None:
        """Which stages [i, j) fit g's memory with ``live`` microbatches in flight (None: all)."""
        if self.memory_free:
            return None
        key = (g.replicas, g.memory, live)
        if key not in self._memory_cache:
            _, par, stash = self._differences
            self._memory_cache[key] = par * self.opt + live * stash / g.replicas <= g.memory * (1 + 1e-12)
        return self._memory_cache[key]


# -- bottleneck: numpy min-max DP ------------------------------------------------------------------
def bottleneck_dp(instance: PipelinePartitionInstance, space: _Space) -> tuple[float, Plan | None]:
    """Exact min-max over the plans of ``space`` (vectorized; O(K * keys * successors * n^2))."""
    ch = _Chain(instance)
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
def label_dp(instance: PipelinePartitionInstance, space: _Space, objective: str,
             incumbent: tuple[float, Plan] | None = None) -> tuple[float, Plan | None, dict]:
    """Exact over ``space`` for ``objective`` (``bottleneck`` or ``sync-estimate``) by labels.

    ``incumbent`` = (value, plan) in the same space, used for pruning and returned when no
    strictly better plan exists.
    """
    ch = _Chain(instance)
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


def solve_order(instance: PipelinePartitionInstance, space: _Space, objective: str) -> tuple[float, Plan, dict]:
    """Exact over ``space`` for ``bottleneck`` or ``sync-estimate``; raises Infeasible when no
    plan of the space fits memory."""
    stats: dict = {}
    if isinstance(space, _Subsets):
        value, plan, stats = label_dp(instance, space, objective)
    else:
        value, plan = bottleneck_dp(instance, space)
        if plan is not None and objective == "sync-estimate":
            st = costs.stage_times_of(instance, plan.bounds, plan.groups)
            start = (costs.sync_estimate(st, instance.microbatches), plan)
            if isinstance(space, _Clustered):
                # a cheap strong incumbent: the optimum over the block-order plans (a subset of
                # the clustered space), whose fewer keys make it several times faster
                block = _BlockOrder(instance, [d for c in space.clusters for d in c])
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


def heuristic_order(instance: PipelinePartitionInstance) -> list[int]:
    """A device order for ``dp`` on non-uniform graphs [ours]: start at the device with the
    largest total widest-path bandwidth, then repeatedly append the unplaced device with the
    widest path from the last placed one (ties: most total bandwidth, then lowest id). Adjacent
    stages then sit on well-connected devices. O(N^2)."""
    w = instance.widest.copy()
    np.fill_diagonal(w, 0.0)
    total = w.sum(axis=1)
    N = instance.num_devices
    order = [int(max(range(N), key=lambda d: (total[d], -d)))]
    while len(order) < N:
        last = order[-1]
        rest = [d for d in range(N) if d not in order]
        order.append(int(max(rest, key=lambda d: (w[last, d], total[d], -d))))
    return order

