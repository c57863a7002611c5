"""A mutable plan with incremental cost and memory bookkeeping, and its small moves [ours].

:class:`Plan` holds the strategy vector, the memory load at the interval starts (usage is
piecewise constant and only rises at a start, so the maximum over all times is the maximum over
the starts) and, per node, the cost of each of its strategies given the neighbours' current
choices. Moves:

* :meth:`Plan.node_move` -- the best memory-feasible strategy of one node, others fixed;
* :meth:`Plan.set_move` -- the best joint choice of a few (up to 4) nodes, by enumerating
  their product (OneFlow's ``GreedyStrategy`` neighbourhoods and the local search's pair moves);
* the sweeps of these moves over all nodes, all edges or all small neighbourhoods.

The large moves (exact DPs over paths and regions) and the memory repair build on it in
:mod:`.state`. Forbidden (sentinel) costs enter the arithmetic as one penalty larger than any
allowed plan's cost (:func:`~.structure.working_costs`), so every move that removes one is an
improvement; the checker decides feasibility at the end.

Time: a plan's loops poll :attr:`Plan.clock`, a :class:`optsched.core.clock.Deadline` of the
solve's one clock (unlimited by default).
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.clock import Deadline

from .instance import FORBIDDEN, IntraOpInstance, plan_cost
from .structure import structure

__all__ = ["Plan"]


class Plan:
    """A plan under modification. ``s`` is the strategy vector; ``load[j]`` the memory in use at
    compressed time point j; ``limit`` the usage limit (inf without one); ``clock`` the deadline
    after which sweeps and fixes stop early."""

    def __init__(self, inst: IntraOpInstance, s: np.ndarray, clock: Deadline | None = None):
        self.inst = inst
        self.st = structure(inst)
        self.s = np.asarray(s, dtype=np.int64).copy()
        self.limit = self.st.limit
        self.tol = 1e-9 * self.limit if math.isfinite(self.limit) else 0.0
        self.load = np.zeros(len(self.st.times) + 1)
        u = inst.usage[self.st.off[:-1] + self.s]
        np.add.at(self.load, self.st.a, u)
        np.add.at(self.load, self.st.b, -u)
        self.load = np.cumsum(self.load)[:-1].copy()
        self.moves = {"node": 0, "set": 0, "chain": 0, "region": 0, "repair": 0}
        #: nodes whose strategy changed since the caller last cleared it (focus of the next sweeps)
        self.touched: set[int] = set()
        self.clock = Deadline() if clock is None else clock
        # local[x][t]: cost of x at strategy t plus its edges to the neighbours' current choices,
        # views into one flat array (kept up to date by set_strategy and the compiled moves)
        self.flat = self.st.kernel.local(self.s)
        self._views()

    def _views(self) -> None:
        off = self.st.off
        self.local = [self.flat[off[x]:off[x + 1]] for x in range(self.inst.num_nodes)]

    # -- evaluation ---------------------------------------------------------------------------
    def usage_of(self, x: int, strategy: int | None = None) -> float:
        return float(self.inst.usage[self.st.off[x] + (self.s[x] if strategy is None else strategy)])

    def peak(self) -> float:
        return float(self.load.max()) if self.load.size else 0.0

    def overload(self) -> float:
        return self.peak() - self.limit

    def cost(self) -> float:
        return plan_cost(self.inst, self.s)[0]

    def local_costs(self, x: int, exclude: frozenset | set = frozenset()) -> np.ndarray:
        """Cost of each strategy of x: its own cost plus its edges to the fixed neighbours (edges to
        nodes in ``exclude`` left out)."""
        st = self.st
        if not exclude:
            return self.local[x].copy()
        vec = self.local[x].copy()
        for w in exclude:
            if w == x:
                continue
            for e, tail in self._edges_between(x, w):
                mat = st.edge_matrix(e)
                vec -= mat[:, self.s[w]] if tail else mat[self.s[w], :]
        return vec

    def _edges_between(self, x: int, w: int) -> list[tuple[int, bool]]:
        """(edge, x is its tail) for every edge joining x and w."""
        st = self.st
        lo, hi = st.inc_ptr[x], st.inc_ptr[x + 1]
        others = st.inc_other[lo:hi]
        hits = np.flatnonzero(others == w)
        return [(int(st.inc_edge[lo + i]), bool(st.inc_tail[lo + i])) for i in hits]

    def headroom(self, x: int) -> float:
        """How much more memory x may take at its worst time point (inf if never live)."""
        a, b = self.st.a[x], self.st.b[x]
        if a >= b:
            return math.inf
        return self.limit - float(self.load[a:b].max()) + self.tol

    def set_strategy(self, x: int, strategy: int) -> None:
        old = self.s[x]
        if old == strategy:
            return
        st = self.st
        a, b = st.a[x], st.b[x]
        if a < b:
            self.load[a:b] += self.usage_of(x, strategy) - self.usage_of(x, old)
        self.s[x] = strategy
        self.touched.add(int(x))
        for i in range(st.inc_ptr[x], st.inc_ptr[x + 1]):
            w = st.inc_other[i]
            mat = st.edge_matrix(st.inc_edge[i])
            if st.inc_tail[i]:
                self.local[w] += mat[strategy, :] - mat[old, :]
            else:
                self.local[w] += mat[:, strategy] - mat[:, old]

    # -- moves --------------------------------------------------------------------------------
    def node_move(self, x: int, *, memory: bool = True, min_gain: float = 0.0) -> float:
        """Move x to its best strategy (memory-feasible when ``memory``); returns the gain >= 0."""
        vec = self.local_costs(x)
        cur = vec[self.s[x]]
        if memory and math.isfinite(self.limit):
            u = self.inst.usage[self.st.off[x]:self.st.off[x + 1]]
            room = self.headroom(x)
            vec = np.where(u - u[self.s[x]] <= room, vec, np.inf)
        best = int(np.argmin(vec))
        gain = cur - vec[best]
        if gain > min_gain and best != self.s[x]:
            self.set_strategy(x, best)
            self.moves["node"] += 1
            return float(gain)
        return 0.0

    def joint_table(self, nodes: list[int]) -> np.ndarray:
        """The cost of every joint choice of ``nodes`` (others fixed), as a tensor with one axis
        per node (edges inside the set counted once, edges to fixed nodes by the fixed ends)."""
        st = self.st
        inside = set(nodes)
        pos = {x: i for i, x in enumerate(nodes)}
        shape = [int(st.k[x]) for x in nodes]
        total = np.zeros(shape)
        d = len(nodes)
        for i, x in enumerate(nodes):
            vec = self.local_costs(x, exclude=inside)
            total += vec.reshape([-1 if j == i else 1 for j in range(d)])
        for i, x in enumerate(nodes):
            for y in nodes[i + 1:]:
                for e, tail in self._edges_between(x, y):
                    mat = st.edge_matrix(e)
                    pt, ph = (pos[x], pos[y]) if tail else (pos[y], pos[x])
                    if pt > ph:
                        mat, pt, ph = mat.T, ph, pt
                    shp = [1] * d
                    shp[pt], shp[ph] = mat.shape[0], mat.shape[1]
                    total += mat.reshape(shp)
        return total

    def _fit_check(self, nodes: list[int]):
        """A function ``choice -> fits`` for joint choices of ``nodes``: the load maxima of the
        elementary segments between the nodes' range ends are computed once, so each check costs
        O(nodes x segments) instead of a pass over the ranges."""
        if not math.isfinite(self.limit):
            return lambda choice: True
        st = self.st
        live = [i for i, x in enumerate(nodes) if st.a[x] < st.b[x]]
        if not live:
            return lambda choice: True
        cuts = sorted({int(st.a[nodes[i]]) for i in live} | {int(st.b[nodes[i]]) for i in live})
        lo, hi = np.array(cuts[:-1]), np.array(cuts[1:])
        segmax = np.array([self.load[a:b].max() for a, b in zip(lo, hi)])
        cover = [(i, (st.a[nodes[i]] <= lo) & (hi <= st.b[nodes[i]])) for i in live]
        usages = [self.inst.usage[st.off[nodes[i]]:st.off[nodes[i] + 1]] - self.usage_of(nodes[i])
                  for i in range(len(nodes))]
        bound = self.limit + self.tol

        def fits(choice) -> bool:
            tot = segmax.copy()
            for i, mask in cover:
                tot[mask] += usages[i][choice[i]]
            return bool(tot.max() <= bound)
        return fits

    def _fits(self, nodes: list[int], choice) -> bool:
        return self._fit_check(nodes)(choice)

    def set_move(self, nodes: list[int], *, memory: bool = True, top: int = 256, min_gain: float = 0.0) -> float:
        """The best joint re-choice of ``nodes`` among the ``top`` cheapest that fit in memory."""
        table = self.joint_table(nodes)
        cur_idx = tuple(int(self.s[x]) for x in nodes)
        cur = table[cur_idx]
        flat = table.ravel()
        cand = flat.size if flat.size <= top else top
        order = np.argpartition(flat, cand - 1)[:cand] if flat.size > cand else np.arange(flat.size)
        order = order[np.argsort(flat[order], kind="stable")]
        fits = self._fit_check(nodes) if memory else None
        for idx in order:
            gain = cur - flat[idx]
            if gain <= min_gain:
                break
            choice = np.unravel_index(int(idx), table.shape)
            if fits is not None and not fits(choice):
                continue
            for x, c in zip(nodes, choice):
                self.set_strategy(x, int(c))
            self.moves["set"] += 1
            return float(gain)
        return 0.0


    def forbidden_edges(self) -> np.ndarray:
        inst, k = self.inst, self.st.k
        if not inst.num_edges:
            return np.zeros(0, dtype=np.int64)
        idx = inst.edge_offsets[:-1] + self.s[inst.edge_u] * k[inst.edge_v] + self.s[inst.edge_v]
        return np.flatnonzero(inst.edge_cost[idx] >= FORBIDDEN)


    def snapshot(self):
        return self.s.copy(), self.load.copy(), self.flat.copy(), dict(self.moves)

    def restore(self, snap) -> None:
        self.s, self.load, self.flat, self.moves = snap[0], snap[1], snap[2], snap[3]
        self._views()


    def expired(self) -> bool:
        return self.clock.expired()

    def star_sweep(self, min_degree: int = 8) -> float:
        """Compiled star moves (:func:`.kernels.star_sweep`) around every node with at least
        ``min_degree`` incident edges, largest degree first; memory-feasible like the other
        moves. Returns the gain."""
        from .kernels import star_sweep

        st = self.st
        K = st.kernel
        deg = np.diff(st.inc_ptr)
        hubs = np.flatnonzero((deg >= min_degree) & (st.k > 1))
        if not hubs.size:
            return 0.0
        hubs = hubs[np.argsort(-deg[hubs], kind="stable")].astype(np.int64)
        changed = np.zeros(self.inst.num_nodes, dtype=np.bool_)
        self.s = np.ascontiguousarray(self.s, dtype=np.int64)
        self.load = np.ascontiguousarray(self.load, dtype=np.float64)
        size = int(deg.max()) + 1
        gain = star_sweep(hubs, self.s, self.flat, self.load, K.a, K.b, K.usage, self.limit, self.tol, *K.graph,
                          changed, np.zeros(size, np.int64), np.zeros(size, np.int64))
        moved = np.flatnonzero(changed)
        if moved.size:
            self.touched.update(moved.tolist())
            self.moves["star"] = self.moves.get("star", 0) + int(moved.size)
        return float(gain)

    def fast_sweep(self, nodes=None, *, pairs: bool = True, max_product: int = 40_000) -> float:
        """Compiled memory-feasible sweeps (:mod:`.kernels`): node moves over ``nodes`` (all by
        default), then joint moves over the edges incident to them. Returns the gain."""
        from .kernels import node_sweep, pair_sweep

        st, inst = self.st, self.inst
        K = st.kernel
        n = inst.num_nodes
        order = np.arange(n, dtype=np.int64) if nodes is None else np.asarray(sorted(nodes), dtype=np.int64)
        changed = np.zeros(n, dtype=np.bool_)
        self.s = np.ascontiguousarray(self.s, dtype=np.int64)
        self.load = np.ascontiguousarray(self.load, dtype=np.float64)
        gain = node_sweep(order, self.s, self.flat, self.load, K.a, K.b, K.usage, self.limit, self.tol, *K.graph,
                          changed)
        if pairs and not self.expired():
            if nodes is None:
                edges = np.arange(inst.num_edges, dtype=np.int64)
            elif order.size:
                edges = np.unique(np.concatenate([st.inc_edge[st.inc_ptr[x]:st.inc_ptr[x + 1]] for x in order]))
            else:
                edges = np.zeros(0, np.int64)
            gain += pair_sweep(np.asarray(edges, np.int64), K.eu, K.ev, self.s, self.flat, self.load, K.a, K.b,
                               K.usage, self.limit, self.tol, *K.graph, max_product, changed)
        moved = np.flatnonzero(changed)
        if moved.size:
            self.touched.update(moved.tolist())
            self.moves["fast"] = self.moves.get("fast", 0) + int(moved.size)
        return float(gain)

    def sweep_nodes(self, order=None, *, memory: bool = True) -> float:
        total = 0.0
        for i, x in enumerate(range(self.inst.num_nodes) if order is None else order):
            if i % 512 == 0 and self.expired():
                break
            if self.st.k[x] > 1:
                total += self.node_move(int(x), memory=memory)
        return total

    def sweep_pairs(self, *, memory: bool = True, max_size: int = 40_000) -> float:
        total = 0.0
        inst = self.inst
        for e in range(inst.num_edges):
            if e % 256 == 0 and self.expired():
                break
            x, y = int(inst.edge_u[e]), int(inst.edge_v[e])
            if self.st.k[x] * self.st.k[y] <= max_size and self.st.k[x] * self.st.k[y] > 1:
                total += self.set_move([x, y], memory=memory)
        return total

    def neighbourhood_sweep(self, nodes=None, *, size: int = 4, memory: bool = True,
                            max_product: int = 20_000, free: bool = False, top: int = 256) -> float:
        """OneFlow-style greedy: each node with up to ``size - 1`` neighbours (in increasing index;
        with ``free``, only neighbours of more than one strategy), re-chosen jointly by
        :meth:`set_move`'s rule, compiled (:func:`.kernels.group_sweep`). The clock is polled
        between blocks of nodes. Returns the gain."""
        from .kernels import group_sweep

        st, inst = self.st, self.inst
        K = st.kernel
        n = inst.num_nodes
        order = np.arange(n, dtype=np.int64) if nodes is None else np.asarray(list(nodes), dtype=np.int64)
        if not order.size:
            return 0.0
        changed = np.zeros(n, dtype=np.bool_)
        self.s = np.ascontiguousarray(self.s, dtype=np.int64)
        self.load = np.ascontiguousarray(self.load, dtype=np.float64)
        maxdeg = int(np.diff(st.inc_ptr).max()) if n else 0
        scratch = (np.empty(max_product), np.empty(max_product, np.int64), np.empty(max(maxdeg, 1), np.int64),
                   *(np.empty(max(size * maxdeg, 1), np.int64) for _ in range(3)))
        limit = self.limit if memory else np.inf
        total = 0.0
        for lo in range(0, order.size, self._GROUP_BLOCK):
            if self.expired():
                break
            total += group_sweep(order[lo:lo + self._GROUP_BLOCK], size, max_product, top, free, self.s, self.flat,
                                 self.load, K.a, K.b, K.usage, limit, self.tol, *K.graph, changed, *scratch)
        moved = np.flatnonzero(changed)
        if moved.size:
            self.touched.update(moved.tolist())
            self.moves["group"] = self.moves.get("group", 0) + int(moved.size)
        return float(total)

    #: nodes per compiled group-sweep call between two polls of the clock
    _GROUP_BLOCK = 1024
