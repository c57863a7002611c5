"""The search spaces of the chain-partition DPs: keys, device groups and successor relations.

* :class:`UniformOrder` -- uniform device graph, key ``(u, r)`` (exact over every plan);
* :class:`Clustered` -- clustered (``two-level``) graph, key ``(U, g)`` of per-cluster device
  counts (exact over every plan);
* :class:`BlockOrder` -- any graph, consecutive blocks of a device order (exact over that order);
* :class:`Subsets` -- every device subset as bitmasks (exact on any graph; tests only).

:func:`order_space` picks the space of ``dp``; :func:`heuristic_order` is ``order-dp``'s device
order. The DPs over these spaces are in :mod:`.dp`, the stage arithmetic in :mod:`.stages`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from optsched.pipeline import costs

from .instance import PipelinePartitionInstance

__all__ = ["Plan", "Group", "SearchSpace", "UniformOrder", "BlockOrder", "Clustered", "Subsets", "order_space",
           "is_exact_space", "clusters_of", "subset_space", "heuristic_order", "SUBSET_MAX_DEVICES",
           "SUBSET_MAX_POSITIONS"]

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
class Group:
    """What the cost model needs of a stage's device group."""

    replicas: int
    speed: float
    bandwidth: float  # within the group (inf for one device)
    memory: float


class SearchSpace:
    """Keys, groups and successor relation of one DP search space.

    ``exact``: the space covers every plan (up to cost-preserving relabelling of devices);
    ``needs_labels``: the min-max DP is not exact on it for ``bottleneck`` either (the label DP
    runs for every objective).
    """

    exact = False
    needs_labels = False

    def __init__(self, instance: PipelinePartitionInstance):
        self.instance = instance

    def keys(self) -> list:
        raise NotImplementedError

    def group(self, key) -> Group:
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

    def block_order(self) -> "SearchSpace | None":
        """A smaller sub-space whose optimum is a cheap strong incumbent (None: none)."""
        return None


class UniformOrder(SearchSpace):
    exact = True

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
        return Group(r, self.speed, self.bw if r > 1 else INF, self.memory)

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


class BlockOrder(SearchSpace):
    def __init__(self, instance, order):
        super().__init__(instance)
        self.order = list(order)
        N, rmax = instance.num_devices, instance.replica_limit
        self._keys = [(a, b) for a in range(N) for b in range(a + 1, min(N, a + rmax) + 1)]
        self._groups = {}
        for a, b in self._keys:
            g = self.order[a:b]
            self._groups[a, b] = Group(b - a, float(instance.speed_array[g].min()),
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


class Clustered(SearchSpace):
    """Devices in clusters: equal speed and memory, every pair inside a cluster at bandwidth
    ``inner``, every pair across clusters at ``outer`` < ``inner`` (``two-level``, ``flat``).
    Permuting devices inside a cluster preserves every cost, so a group is characterized by how
    many devices it takes from each cluster: key ``(U, g)`` with U the suffix's per-cluster counts
    and g its first stage's. Exact over every plan."""

    exact = True

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
        return Group(r, self.speed, bandwidth, self.memory)

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


    def block_order(self) -> SearchSpace:
        """The block-order plans over the clusters' devices in turn (a subset of this space)."""
        return BlockOrder(self.instance, [d for c in self.clusters for d in c])


def clusters_of(instance: PipelinePartitionInstance) -> tuple[list[list[int]], float, float] | None:
    """The clusters of a clustered device graph (see :class:`Clustered`), or None."""
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


class Subsets(SearchSpace):
    exact = True
    needs_labels = True

    def __init__(self, instance):
        super().__init__(instance)
        N, rmax = instance.num_devices, instance.replica_limit
        self.groups = [m for m in range(1, 1 << N) if bin(m).count("1") <= rmax]
        self.members = {m: [d for d in range(N) if m >> d & 1] for m in self.groups}
        self._keys = [(used, g) for used in range(1, 1 << N) for g in self.groups if g & used == g]
        self._group = {}
        for g in self.groups:
            ds = self.members[g]
            self._group[g] = Group(len(ds), float(instance.speed_array[ds].min()),
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


#: the most keys :class:`Clustered` may build (about prod_c (G_c + 1)(G_c + 2) / 2); beyond it
#: ``dp`` searches the block order instead and says so (status ``feasible``). 4 servers of 8 GPUs
#: would need 45^4 = 4.1 million keys; ``map-bb`` is the exact method there. [ours]
CLUSTERED_MAX_KEYS = 200_000


def clustered_key_count(clusters: list[list[int]]) -> int:
    """The number of (suffix counts, group counts) keys of :class:`Clustered` without the
    replication limit: per cluster of size G, the pairs g <= u <= G."""
    count = 1
    for c in clusters:
        count *= (len(c) + 1) * (len(c) + 2) // 2
    return count


def order_space(instance: PipelinePartitionInstance, order=None) -> SearchSpace:
    """The search space of ``dp``: every plan on a uniform or clustered graph (exact), else the
    plans on consecutive blocks of ``order`` (default 0..N-1). A clustered graph whose exact
    space would exceed :data:`CLUSTERED_MAX_KEYS` keys is searched in block order too."""
    order = list(range(instance.num_devices)) if order is None else list(order)
    if instance.is_uniform:
        return UniformOrder(instance, order)
    clustered = clusters_of(instance)
    if clustered is not None and clustered_key_count(clustered[0]) <= CLUSTERED_MAX_KEYS:
        return Clustered(instance, *clustered)
    return BlockOrder(instance, order)


def is_exact_space(space: SearchSpace) -> bool:
    """Whether ``space`` covers every plan (up to cost-preserving relabelling of devices)."""
    return space.exact


def subset_space(instance: PipelinePartitionInstance) -> SearchSpace:
    return Subsets(instance)


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

