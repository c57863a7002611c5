"""A mutable plan with incremental cost and memory bookkeeping, and the moves on it [ours].

Every heuristic of ``intra-op`` works on a :class:`PlanState`: the strategy vector, the memory
load at the interval starts (usage is piecewise constant and only rises at a start, so the
maximum over all times is the maximum over the starts), and neighbour lists. Moves:

* :meth:`PlanState.node_move` -- the best memory-feasible strategy of one node, others fixed;
* :meth:`PlanState.set_move` -- the best joint choice of a few (up to 4) nodes, by enumerating
  their product (OneFlow's ``GreedyStrategy`` neighbourhoods and the local search's pair moves);
* :meth:`PlanState.chain_move` -- an exact Viterbi DP over an induced path, others fixed;
* :meth:`PlanState.repair_memory` -- lower the usage at overloaded times at least cost per byte.

Forbidden (sentinel) costs enter the arithmetic as one penalty larger than any allowed plan's
cost (:func:`working_costs`), so every move that removes one is an improvement; the checker
decides feasibility at the end.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time

import numpy as np

from .instance import FORBIDDEN, IntraOpInstance

__all__ = ["PlanState", "Structure", "structure", "working_costs", "CLAMP_RATIO"]

#: above this peak / limit, the repair first moves every node live at an overloaded time to its
#: least-usage strategy (M's memory-free plan peaks at 51x the limit: a point-by-point repair
#: does not finish within the contest's time-out; A's at 4.9x repairs point by point in seconds,
#: and better than the clamp: 12.1e9 against 22.2e9, measured) [ours]
CLAMP_RATIO = 10.0


def working_costs(inst: IntraOpInstance) -> tuple[np.ndarray, np.ndarray, float]:
    """Node and edge costs with every forbidden entry replaced by one penalty P [ours].

    P is the smallest power of ten above twice the most an allowed plan can cost (the sum of each
    node's and edge's largest allowed cost), so a plan with a forbidden choice always costs more
    than any allowed plan, while sums stay far from the 1e18 sentinels, where float64 cannot
    hold the small costs beside them (its spacing there is 128).
    """
    bad_n, bad_e = inst.cost >= FORBIDDEN, inst.edge_cost >= FORBIDDEN
    fin_n = np.where(bad_n, 0.0, inst.cost)
    fin_e = np.where(bad_e, 0.0, inst.edge_cost)
    upper = float(np.maximum.reduceat(fin_n, inst.offsets[:-1]).sum()) if inst.num_nodes else 0.0
    if inst.num_edges:
        nonempty = inst.edge_offsets[:-1] < inst.edge_offsets[1:]
        upper += float(np.maximum.reduceat(fin_e, inst.edge_offsets[:-1][nonempty]).sum()) if nonempty.any() else 0.0
    penalty = 10.0 ** math.ceil(math.log10(2 * upper + 1)) if upper > 0 else 1.0
    return np.where(bad_n, penalty, inst.cost), np.where(bad_e, penalty, inst.edge_cost), penalty


class Structure:
    """Instance data the moves need, computed once per instance (adjacency, time ranges)."""

    def __init__(self, inst: IntraOpInstance):
        self.inst = inst
        n = inst.num_nodes
        self.k = inst.num_strategies
        self.off = inst.offsets
        u, v = inst.edge_u, inst.edge_v
        m = len(u)
        # incidence lists: for node x, (edge, other end, x is the edge's tail)
        ends = np.concatenate([u, v])
        order = np.argsort(ends, kind="stable")
        self.inc_edge = (np.concatenate([np.arange(m), np.arange(m)])[order]).astype(np.int64)
        self.inc_other = np.concatenate([v, u])[order]
        self.inc_tail = np.concatenate([np.ones(m, bool), np.zeros(m, bool)])[order]
        self.inc_ptr = np.searchsorted(ends[order], np.arange(n + 1))
        self.neighbours = [np.unique(self.inc_other[self.inc_ptr[x]:self.inc_ptr[x + 1]]) for x in range(n)]
        # neighbours that can change (a node with one strategy is a constant: its edges act as
        # unary costs, so it never blocks an induced path)
        self.free_neighbours = [nb[self.k[nb] > 1] for nb in self.neighbours]
        self.free_nodes = np.flatnonzero(self.k > 1)
        # compressed time points: starts of nonempty intervals
        live = inst.end > inst.start
        self.times = np.unique(inst.start[live])
        self.a = np.where(live, np.searchsorted(self.times, inst.start), 0)
        self.b = np.where(live, np.searchsorted(self.times, inst.end, side="left"), 0)
        self.limit = math.inf if inst.usage_limit is None else float(inst.usage_limit)
        self.min_usage = np.minimum.reduceat(inst.usage, self.off[:-1])
        self.allowed = inst.cost < FORBIDDEN
        self.node_cost, self.edge_cost, self.penalty = working_costs(inst)
        # each node's least-usage allowed strategy (ties: least cost)
        self.least = np.array([int(np.lexsort((inst.cost[self.off[v]:self.off[v + 1]],
                                                inst.usage[self.off[v]:self.off[v + 1]],
                                                ~self.allowed[self.off[v]:self.off[v + 1]]))[0])
                               for v in range(n)], dtype=np.int64)
        self.edge_off = inst.edge_offsets

    def edge_matrix(self, e: int) -> np.ndarray:
        """Edge e's matrix with forbidden entries at the working penalty."""
        a, b = self.edge_off[e], self.edge_off[e + 1]
        return self.edge_cost[a:b].reshape(self.k[self.inst.edge_u[e]], self.k[self.inst.edge_v[e]])

    def node_costs(self, x: int) -> np.ndarray:
        return self.node_cost[self.off[x]:self.off[x + 1]]


_CACHE: dict[int, Structure] = {}


def structure(inst: IntraOpInstance) -> Structure:
    """The (cached) :class:`Structure` of an instance."""
    key = id(inst)
    st = _CACHE.get(key)
    if st is None or st.inst is not inst:
        if len(_CACHE) > 8:
            _CACHE.clear()
        st = _CACHE[key] = Structure(inst)
    return st


class PlanState:
    """A plan under modification. ``s`` is the strategy vector; ``load[j]`` the memory in use at
    compressed time point j; ``limit`` the usage limit (inf without one)."""

    def __init__(self, inst: IntraOpInstance, s: np.ndarray):
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
        #: perf_counter time after which sweeps and fixes stop early (a method's time limit)
        self.deadline = math.inf
        # local[x][t]: cost of x at strategy t plus its edges to the neighbours' current choices
        # (kept up to date by set_strategy in O(degree))
        st = self.st
        self.local = [st.node_costs(x).astype(float) for x in range(inst.num_nodes)]
        for e in range(inst.num_edges):
            u, v = int(inst.edge_u[e]), int(inst.edge_v[e])
            mat = st.edge_matrix(e)
            self.local[u] = self.local[u] + mat[:, self.s[v]]
            self.local[v] = self.local[v] + mat[self.s[u], :]

    # -- evaluation ---------------------------------------------------------------------------
    def usage_of(self, x: int, strategy: int | None = None) -> float:
        return float(self.inst.usage[self.st.off[x] + (self.s[x] if strategy is None else strategy)])

    def peak(self) -> float:
        return float(self.load.max()) if self.load.size else 0.0

    def overload(self) -> float:
        return self.peak() - self.limit

    def cost(self) -> float:
        from .instance import plan_cost
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

    def chain_move(self, path: list[int], *, memory: bool = True) -> float:
        """Re-optimize an induced path exactly (Viterbi DP, others fixed). Tries the unrestricted
        optimum first; if it overflows memory, the optimum over strategies that use no more
        memory than the current ones (always feasible). Returns the gain."""
        best = self._viterbi(path, restrict=False)
        if best is None:
            return 0.0
        gain, choice = best
        if gain > 0 and (not memory or self._fits(path, choice)):
            for x, c in zip(path, choice):
                self.set_strategy(x, int(c))
            self.moves["chain"] += 1
            return gain
        if memory and math.isfinite(self.limit):
            best = self._viterbi(path, restrict=True)
            if best is not None and best[0] > 0:
                for x, c in zip(path, best[1]):
                    self.set_strategy(x, int(c))
                self.moves["chain"] += 1
                return best[0]
        return 0.0

    def _viterbi(self, path: list[int], restrict: bool):
        st = self.st
        inside = set(path)
        unary = [self.local_costs(x, exclude=inside) for x in path]
        if restrict:
            for i, x in enumerate(path):
                u = self.inst.usage[st.off[x]:st.off[x + 1]]
                unary[i] = np.where(u <= u[self.s[x]], unary[i], np.inf)
        pair = []
        for i in range(len(path) - 1):
            x, y = path[i], path[i + 1]
            mat = np.zeros((st.k[x], st.k[y]))
            for e, tail in self._edges_between(x, y):
                mat += st.edge_matrix(e) if tail else st.edge_matrix(e).T
            pair.append(mat)
        cur = sum(float(unary[i][self.s[x]]) for i, x in enumerate(path)) + sum(
            float(pair[i][self.s[path[i]], self.s[path[i + 1]]]) for i in range(len(pair)))
        val = unary[0]
        back = []
        for i in range(1, len(path)):
            tot = val[:, None] + pair[i - 1]
            arg = np.argmin(tot, axis=0)
            val = tot[arg, np.arange(tot.shape[1])] + unary[i]
            back.append(arg)
        last = int(np.argmin(val))
        if not np.isfinite(val[last]):
            return None
        choice = [last]
        for arg in reversed(back):
            choice.append(int(arg[choice[-1]]))
        choice.reverse()
        return float(cur - val[last]), choice

    def region(self, seeds: list[int], size: int) -> list[int]:
        """Up to ``size`` changeable nodes grown breadth-first from ``seeds``."""
        out, seen = [], set()
        queue = [int(x) for x in seeds if self.st.k[x] > 1]
        seen.update(queue)
        while queue and len(out) < size:
            x = queue.pop(0)
            out.append(x)
            for w in self.st.free_neighbours[x]:
                w = int(w)
                if w not in seen:
                    seen.add(w)
                    queue.append(w)
        return out

    def region_move(self, nodes: list[int], *, memory: bool = True) -> float:
        """Re-optimize a connected region with the others fixed, by the elimination DP on the
        region's subgraph (exact when the region is series-parallel; OneFlow's greedy on what
        remains otherwise). The unrestricted plan is taken if it fits in memory, else the plan
        restricted to strategies using no more memory than now (always fits). Returns the gain."""
        from .elimination import eliminate
        from .algorithms import solve_core

        nodes = [int(x) for x in nodes]
        if len(nodes) < 2:
            return 0.0
        best = None
        for restrict in (False, True):
            if restrict and not (memory and math.isfinite(self.limit)):
                break
            sub, cur = self._region_instance(nodes, restrict)
            el = eliminate(sub)
            choice, _ = solve_core(el, exact_limit=20_000)
            new = el.extend(choice)
            sub_state_cost = lambda sv: float(np.sum(np.asarray(sub.cost)[sub.offsets[:-1] + sv]) + sum(  # noqa: E731
                sub.edge_matrix(e)[sv[sub.edge_u[e]], sv[sub.edge_v[e]]] for e in range(sub.num_edges)))
            gain = sub_state_cost(cur) - sub_state_cost(new)
            if gain <= 1e-9 * max(1.0, abs(sub_state_cost(cur))):
                continue
            if not restrict and memory and not self._fits(nodes, new):
                continue
            best = (gain, new)
            break
        if best is None:
            return 0.0
        for x, c in zip(nodes, best[1]):
            self.set_strategy(x, int(c))
        self.moves["region"] = self.moves.get("region", 0) + 1
        return best[0]

    def _region_instance(self, nodes: list[int], restrict: bool):
        st = self.st
        pos = {x: i for i, x in enumerate(nodes)}
        inside = set(nodes)
        unary = []
        for x in nodes:
            vec = self.local_costs(x, exclude=inside)
            if restrict:
                u = self.inst.usage[st.off[x]:st.off[x + 1]]
                vec = np.where(u <= u[self.s[x]], vec, 2 * FORBIDDEN)
            unary.append(np.maximum(vec, 0.0))
        eu, ev, mats = [], [], []
        for i, x in enumerate(nodes):
            for y in nodes[i + 1:]:
                for e, tail in self._edges_between(x, y):
                    mat = st.edge_matrix(e)
                    a, b = (x, y) if tail else (y, x)
                    eu.append(pos[a])
                    ev.append(pos[b])
                    mats.append(mat.ravel())
        sub = IntraOpInstance(num_strategies=[int(st.k[x]) for x in nodes], cost=np.concatenate(unary),
                              usage=np.zeros(sum(int(st.k[x]) for x in nodes)),
                              start=np.zeros(len(nodes), np.int64), end=np.zeros(len(nodes), np.int64),
                              edge_u=eu, edge_v=ev, edge_cost=np.concatenate(mats) if mats else np.zeros(0))
        cur = np.array([int(self.s[x]) for x in nodes], dtype=np.int64)
        return sub, cur

    def clamp_overloaded(self) -> int:
        """Every node live at an overloaded time takes its least-usage allowed strategy. Usage
        only falls, and every overloaded time then holds only least-usage nodes, so the plan
        fits whenever the least-memory plan does. Returns how many nodes changed."""
        st = self.st
        over = np.concatenate([[0], np.cumsum(self.load > self.limit + self.tol)])
        hit = (st.b > st.a) & (over[st.b] - over[st.a] > 0)
        changed = 0
        for x in np.flatnonzero(hit & (self.s != st.least)):
            self.set_strategy(int(x), int(st.least[x]))
            changed += 1
        self.moves["clamp"] = self.moves.get("clamp", 0) + changed
        return changed

    def repair_memory(self, max_rounds: int = 1_000_000, *, region_size: int = 60, region_tries: int = 16,
                      allow_forbidden: bool = True) -> bool:
        """Lower the peak below the limit: at the most overloaded time point, switch live nodes
        with the least extra cost per unit of memory saved until that point fits; repeat.

        Offers that would create a forbidden pair come last: before taking one, up to
        ``region_tries`` of those nodes get a region offer instead -- the region of
        ``region_size`` nodes around it re-optimized by the elimination DP with every node kept
        at or below its current usage and the node itself strictly below (so memory falls and
        never rises). Returns whether the plan now fits."""
        st = self.st
        if not math.isfinite(self.limit):
            return True
        rounds = 0
        half = self.st.penalty / 2
        if self.peak() > CLAMP_RATIO * self.limit:
            self.clamp_overloaded()
        while rounds < max_rounds:
            if self.expired():
                self.clamp_overloaded()
                return self.overload() <= self.tol
            j = int(np.argmax(self.load)) if self.load.size else 0
            excess = self.load[j] - self.limit if self.load.size else 0.0
            if excess <= self.tol:
                return True
            live = np.flatnonzero((st.a <= j) & (st.b > j))
            clean, dirty = [], []
            for x in live:
                u = self.inst.usage[st.off[x]:st.off[x + 1]]
                save = u[self.s[x]] - u
                if not np.any(save > 0):
                    continue
                vec = self.local_costs(int(x))
                extra = vec - vec[self.s[x]]
                ok = (save > 0) & st.allowed[st.off[x]:st.off[x + 1]]
                if not ok.any():
                    ok = save > 0
                # cost per unit saved; a full fix of the excess by one node is preferred at equal ratio
                with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                    ratio = np.where(ok, np.maximum(extra, 0) / np.maximum(np.minimum(save, excess), 1e-300),
                                     np.inf)
                c = int(np.argmin(ratio))
                if np.isfinite(ratio[c]):
                    (clean if extra[c] < half else dirty).append((ratio[c], float(save[c]), int(x), c))
            if not clean and not dirty:
                return False
            if not clean and not allow_forbidden and not dirty:
                return False
            clean.sort()
            dirty.sort()
            touched: set[int] = set()
            for ratio, save, x, c in clean:
                if self.load[j] - self.limit <= self.tol:
                    break
                if x in touched:  # a neighbour changed this round: its offer is stale
                    continue
                self.set_strategy(x, c)
                self.moves["repair"] += 1
                touched.update(int(w) for w in st.neighbours[x])
            if self.load[j] - self.limit > self.tol and not touched:
                done = False
                for _, _, x, c in dirty[:region_tries]:
                    if self._region_save(x, region_size):
                        done = True
                        break
                if not done:
                    if not allow_forbidden or not dirty:
                        return False
                    _, _, x, c = dirty[0]
                    self.set_strategy(x, c)
                    self.moves["repair"] += 1
            rounds += 1
        return self.overload() <= self.tol

    def _region_save(self, x: int, size: int) -> bool:
        """Lower x's usage without a new forbidden pair and without raising any usage, by the
        elimination DP over a region around x. Returns whether it succeeded."""
        from .algorithms import solve_core
        from .elimination import eliminate

        nodes = self.region([x], size)
        if not nodes or nodes[0] != x:
            return False
        sub, cur = self._region_instance(nodes, restrict=True)
        u = self.inst.usage[self.st.off[x]:self.st.off[x + 1]]
        cost = np.array(sub.cost, dtype=float)
        cost[0:len(u)] = np.where(u < u[self.s[x]], cost[0:len(u)], 2 * FORBIDDEN)
        sub = dataclasses.replace(sub, cost=cost)
        el = eliminate(sub)
        choice, _ = solve_core(el, exact_limit=20_000)
        new = el.extend(choice)
        val = lambda sv: float(np.sum(cost[sub.offsets[:-1] + sv]) + sum(  # noqa: E731
            sub.edge_matrix(e)[sv[sub.edge_u[e]], sv[sub.edge_v[e]]] for e in range(sub.num_edges)))
        if val(new) - val(cur) >= self.st.penalty / 2 or u[new[0]] >= u[self.s[x]]:
            return False
        for y, c in zip(nodes, new):
            self.set_strategy(y, int(c))
        self.moves["region"] = self.moves.get("region", 0) + 1
        return True

    def forbidden_edges(self) -> np.ndarray:
        inst, k = self.inst, self.st.k
        if not inst.num_edges:
            return np.zeros(0, dtype=np.int64)
        idx = inst.edge_offsets[:-1] + self.s[inst.edge_u] * k[inst.edge_v] + self.s[inst.edge_v]
        return np.flatnonzero(inst.edge_cost[idx] >= FORBIDDEN)

    def _path_through(self, u: int, v: int, length: int) -> list[int]:
        """An induced path containing the edge (u, v), extended greedily on both sides."""
        path = [u, v]
        inside = {u, v}
        for side in (0, 1):
            while len(path) < length:
                end = path[0] if side == 0 else path[-1]
                nxt = None
                for w in self.st.free_neighbours[end]:
                    w = int(w)
                    if w in inside:
                        continue
                    if any(int(z) in inside and int(z) != end for z in self.st.free_neighbours[w]):
                        continue
                    nxt = w
                    break
                if nxt is None:
                    break
                inside.add(nxt)
                if side == 0:
                    path.insert(0, nxt)
                else:
                    path.append(nxt)
        return path

    def _path_from(self, x: int, length: int) -> list[int]:
        nb = self.st.free_neighbours[x]
        if not len(nb):
            return [x]
        return self._path_through(x, int(nb[0]), length)

    def fix_forbidden(self, *, length: int = 8) -> int:
        """Remove forbidden edge pairs with memory-feasible joint moves: the pair, the pair with
        neighbours, then exact DPs over induced paths through the edge. Returns how many remain."""
        for e in self.forbidden_edges():
            if self.expired():
                break
            u, v = int(self.inst.edge_u[e]), int(self.inst.edge_v[e])
            ok = lambda: self.inst.edge_matrix(e)[self.s[u], self.s[v]] < FORBIDDEN  # noqa: E731
            if ok():
                continue  # fixed by an earlier move
            free = [x for x in (u, v) if self.st.k[x] > 1]
            if not free:
                continue
            if self.set_move(free) > 0 and ok():
                continue
            for ln in (3, 5, length):
                path = self._path_through(free[0], free[1], ln) if len(free) == 2 else self._path_from(free[0], ln)
                if len(path) >= 2:
                    self.chain_move(path)
                if ok():
                    break
            for size in (12, 40, 120):
                if ok():
                    break
                self.region_move(self.region(free, size))
        return int(self.forbidden_edges().size)

    def snapshot(self):
        return self.s.copy(), self.load.copy(), [v.copy() for v in self.local], dict(self.moves)

    def restore(self, snap) -> None:
        self.s, self.load, self.local, self.moves = snap[0], snap[1], snap[2], snap[3]

    def fix_forbidden_by_trading(self, *, size: int = 40) -> int:
        """For each forbidden pair left: re-optimize a region around it ignoring memory (which
        removes the pair when the region allows it), then repair memory without creating
        forbidden pairs; undone if the repair fails or the count of forbidden pairs does not
        fall. Returns how many remain."""
        for e in self.forbidden_edges():
            if self.expired():
                break
            u, v = int(self.inst.edge_u[e]), int(self.inst.edge_v[e])
            if self.inst.edge_matrix(e)[self.s[u], self.s[v]] < FORBIDDEN:
                continue
            before = self.forbidden_edges().size
            snap = self.snapshot()
            free = [x for x in (u, v) if self.st.k[x] > 1]
            self.region_move(self.region(free, size), memory=False)
            if not (self.repair_memory(allow_forbidden=False) and self.forbidden_edges().size < before):
                self.restore(snap)
        return int(self.forbidden_edges().size)

    # -- sweeps -------------------------------------------------------------------------------
    def expired(self) -> bool:
        return time.perf_counter() > self.deadline

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
                            max_product: int = 20_000) -> float:
        """OneFlow-style greedy: each node with up to ``size - 1`` neighbours, searched jointly."""
        total = 0.0
        for i, x in enumerate(range(self.inst.num_nodes) if nodes is None else nodes):
            if i % 128 == 0 and self.expired():
                break
            group = [int(x)]
            prod = int(self.st.k[x])
            for w in self.st.neighbours[x]:
                if len(group) >= size:
                    break
                if prod * int(self.st.k[w]) <= max_product:
                    group.append(int(w))
                    prod *= int(self.st.k[w])
            if prod > 1:
                total += self.set_move(group, memory=memory)
        return total


def product_size(k, nodes) -> int:
    return int(np.prod([int(k[x]) for x in nodes], dtype=np.int64))


def all_assignments(k) -> np.ndarray:
    """Every joint choice of nodes with strategy counts ``k`` (rows), for small products."""
    return np.array(list(itertools.product(*[range(int(x)) for x in k])), dtype=np.int64).reshape(-1, len(k))
