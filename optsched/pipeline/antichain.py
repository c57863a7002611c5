"""Cuts of a layer DAG: the lattice of its down-sets and PipeDream's antichain DAG.

A pipeline plan of a layer DAG is a chain of *down-sets* (sets of layers closed under
predecessors) ``{} = D_0 < D_1 < ... < D_K = V``; stage k runs ``D_k \\ D_{k-1}``. Two views of
the possible cuts:

* :class:`DownsetLattice`: every down-set, enumerated level by level (level L = the down-sets of
  L layers, built from level L - 1 by adding one layer whose predecessors are all present), with
  per down-set sums of work, parameters and the activation bytes crossing it, and for each
  down-set the indices of its *children* ``D - {v}`` for every maximal layer v of D. Every
  proper sub-down-set of D is a sub-down-set of one of its children, which is what an exact DP over
  down-sets relies on. [ours]
* :func:`pipedream_antichain_dag`: the states PipeDream's planner reaches [code: PipeDream
  ``graph/graph.py``, ``antichain_dag`` / ``next_antichains`` / ``augment_antichain``,
  re-implemented, not copied]: from the first source, replace one node of the *augmented*
  antichain by a successor; a state's down-set is the predecessor closure of its antichain. On a
  DAG with one source its down-sets are every non-empty down-set (tested); with several sources
  only those containing the first source that the moves reach.

Layers are ``0..n-1``; sets of layers are Python ints used as bitmasks.

>>> dag = LayerDag.from_edges(4, [(0, 1), (0, 2), (1, 3), (2, 3)])
>>> lat = DownsetLattice(dag, work=[1, 1, 1, 1], params=[0, 0, 0, 0], cut_bytes=[1, 1, 1, 1])
>>> [len(level) for level in lat.masks]
[1, 1, 2, 1, 1]
>>> len(pipedream_antichain_dag(dag).masks)
5
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from optsched.core.errors import InvalidInstanceError

__all__ = ["LayerDag", "DownsetLattice", "ChainLattice", "PipeDreamStates", "pipedream_antichain_dag",
           "bits", "popcount"]

#: a caller's ``poll`` runs at least this often (down-sets) inside one level of the enumeration
POLL_STATES = 4096


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, ascending."""
    if mask.bit_count() > 12:
        text = bin(mask)[:1:-1]
        return [i for i, ch in enumerate(text) if ch == "1"]
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    return mask.bit_count()


@dataclass
class LayerDag:
    """A DAG on layers ``0..n-1`` as bitmasks: direct and transitive predecessors/successors."""

    n: int
    pred: list[int]
    succ: list[int]
    succ_lists: list[list[int]]
    anc: list[int] = field(default_factory=list)
    desc: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)

    @classmethod
    def from_edges(cls, n: int, edges: Sequence[tuple[int, int]], problem: str = "layer-dag") -> "LayerDag":
        pred, succ = [0] * n, [0] * n
        succ_lists: list[list[int]] = [[] for _ in range(n)]
        for u, v in edges:
            pred[v] |= 1 << u
            succ[u] |= 1 << v
            succ_lists[u].append(v)
        indeg = [popcount(p) for p in pred]
        ready = [v for v in range(n) if indeg[v] == 0]
        order = []
        while ready:
            v = ready.pop()
            order.append(v)
            for w in succ_lists[v]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    ready.append(w)
        if len(order) != n:
            stuck = [v for v in range(n) if indeg[v] > 0]
            raise InvalidInstanceError(problem, "edges", "the layer graph has a cycle through layers "
                                       + ", ".join(map(str, stuck[:6])))
        anc, desc = [0] * n, [0] * n
        for v in order:
            a = pred[v]
            for u in bits(pred[v]):
                a |= anc[u]
            anc[v] = a
        for v in reversed(order):
            d = succ[v]
            for w in succ_lists[v]:
                d |= desc[w]
            desc[v] = d
        return cls(n, pred, succ, succ_lists, anc, desc, order)

    @property
    def full(self) -> int:
        return (1 << self.n) - 1

    def maximal(self, mask: int) -> list[int]:
        """The layers of ``mask`` with no successor in ``mask``."""
        return [v for v in bits(mask) if not self.succ[v] & mask]

    def is_downset(self, mask: int) -> bool:
        return all(not self.pred[v] & ~mask for v in bits(mask))

    def open_layers(self, mask: int) -> int:
        """The layers of ``mask`` with a successor outside it (their outputs cross the cut)."""
        out = 0
        for v in bits(mask):
            if self.succ[v] & ~mask:
                out |= 1 << v
        return out

    def pipedream_extras(self, poll: Callable[[], None] | None = None) -> list[int]:
        """Per layer a, PipeDream's augmenting predecessors: the ancestors p of a with an out-edge
        to a layer that is neither a nor an ancestor of a [code: ``augment_antichain``].
        O(n^2) bit operations on n-bit masks the first time (then cached); ``poll``, when given,
        is called once per layer (a caller's clock check: it stops the computation by raising)."""
        cached = self.__dict__.get("_extras")
        if cached is not None:
            return cached
        out = []
        for a in range(self.n):
            if poll is not None:
                poll()
            extra = 0
            for p in bits(self.anc[a]):
                if self.succ[p] & ~self.anc[a] & ~(1 << a):
                    extra |= 1 << p
            out.append(extra)
        self.__dict__["_extras"] = out
        return out

    def pipedream_augmented(self, mask: int, extras: list[int] | None = None) -> int:
        """PipeDream's augmented antichain of the down-set ``mask``: its maximal layers and their
        augmenting predecessors (the layers whose activation PipeDream charges at that cut)."""
        extras = extras if extras is not None else self.pipedream_extras()
        out = 0
        for a in self.maximal(mask):
            out |= (1 << a) | extras[a]
        return out


class _Levels:
    """Shared per-level arrays: ``masks[L]`` (list of ints), ``children[L]`` (n_L x w ints into
    level L - 1, -1 padded), ``work[L]``, ``params[L]``, ``cut[L]``, ``pd_cut[L]`` (float arrays)."""

    masks: list[list[int]]
    children: list[np.ndarray]
    work: list[np.ndarray]
    params: list[np.ndarray]
    cut: list[np.ndarray]
    pd_cut: list[np.ndarray]

    @property
    def num_states(self) -> int:
        return sum(len(m) for m in self.masks)

    def locate(self, mask: int) -> tuple[int, int]:
        for L, level in enumerate(self.masks):
            index = self._index[L].get(mask)
            if index is not None:
                return L, index
        raise KeyError(mask)


def _sum_bits(values: Sequence[float], mask: int) -> float:
    return float(sum(values[v] for v in bits(mask)))


class DownsetLattice(_Levels):
    """Every down-set of ``dag``, level by level (see the module docstring).

    ``work``, ``params``, ``cut_bytes`` and ``pd_bytes`` are per-layer values; a down-set's
    ``work``/``params`` are sums over its layers, its ``cut`` the sum of ``cut_bytes`` over its
    open layers (:meth:`LayerDag.open_layers`), its ``pd_cut`` the sum of ``pd_bytes`` over
    PipeDream's augmented antichain (computed only when ``pd_bytes`` is given, else 0).
    Sums are accumulated along the enumeration (their rounding differs from a direct sum by a
    few ulps). Enumeration stops with :class:`MemoryError` past
    ``max_states`` down-sets (the memory bound). O(S n) time for S down-sets. ``poll``, when
    given, is called once per level and every :data:`POLL_STATES` down-sets of a level (a
    caller's clock check: it stops the enumeration by raising).
    """

    def __init__(self, dag: LayerDag, work: Sequence[float], params: Sequence[float], cut_bytes: Sequence[float],
                 pd_bytes: Sequence[float] | None = None, max_states: int = 2_000_000,
                 poll: Callable[[], None] | None = None):
        self.dag = dag
        extras = dag.pipedream_extras(poll) if pd_bytes is not None else None
        self.masks, self.children, self._index = [[0]], [np.zeros((1, 0), np.int64)], [{0: 0}]
        self.work, self.params = [np.zeros(1)], [np.zeros(1)]
        self.cut, self.pd_cut = [np.zeros(1)], [np.zeros(1)]
        total = 1
        # per state of the previous level: (mask, addable layers, maximal layers, open layers)
        prev_states = [(0, sum(1 << v for v in range(dag.n) if not dag.pred[v]), 0, 0)]
        prev_w, prev_p, prev_c = [0.0], [0.0], [0.0]
        work = [float(x) for x in work]
        params = [float(x) for x in params]
        cutb = [float(x) for x in cut_bytes]
        bit = [1 << v for v in range(dag.n)]
        pred, succ, succ_lists = dag.pred, dag.succ, dag.succ_lists
        pred_bits = [bits(m) for m in pred]
        for _ in range(dag.n):
            if poll is not None:
                poll()
            prev_index = self._index[-1]
            index: dict[int, int] = {}
            states, w, p, c, kids_rows = [], [], [], [], []
            for s, (D, free, top, opened) in enumerate(prev_states):
                if poll is not None and s % POLL_STATES == POLL_STATES - 1:
                    poll()
                f = free
                while f:
                    low = f & -f
                    f ^= low
                    v = low.bit_length() - 1
                    E = D | low
                    if E in index:
                        continue
                    index[E] = len(states)
                    new_free = free ^ low
                    for x in succ_lists[v]:
                        if not pred[x] & ~E:
                            new_free |= bit[x]
                    new_top = (top & ~pred[v]) | low
                    cut = prev_c[s]
                    new_open = opened
                    if succ[v]:
                        new_open |= low
                        cut += cutb[v]
                    for u in pred_bits[v]:
                        if new_open & bit[u] and not succ[u] & ~E:
                            new_open ^= bit[u]
                            cut -= cutb[u]
                    states.append((E, new_free, new_top, new_open))
                    w.append(prev_w[s] + work[v])
                    p.append(prev_p[s] + params[v])
                    c.append(cut)
                    row = []
                    t = new_top
                    while t:
                        lt = t & -t
                        t ^= lt
                        row.append(prev_index[E ^ lt])
                    kids_rows.append(row)
            if not states:
                break
            total += len(states)
            if total > max_states:
                raise MemoryError(f"more than {max_states} down-sets")
            width = max(len(row) for row in kids_rows)
            kids = np.full((len(states), width), -1, np.int64)
            for i, row in enumerate(kids_rows):
                kids[i, :len(row)] = row
            pc = np.zeros(len(states))
            if pd_bytes is not None:
                for i, (E, _, top, _) in enumerate(states):
                    aug = 0
                    for a in bits(top):
                        aug |= bit[a] | extras[a]
                    pc[i] = _sum_bits(pd_bytes, aug)
            self.masks.append([st[0] for st in states])
            self._index.append(index)
            self.children.append(kids)
            prev_w, prev_p, prev_c = w, p, c
            self.work.append(np.asarray(w))
            self.params.append(np.asarray(p))
            self.cut.append(np.maximum(np.asarray(c), 0.0))
            self.pd_cut.append(pc)
            prev_states = states


class ChainLattice(_Levels):
    """One chain of nested down-sets (``chain[i]`` bitmasks, strictly increasing, ending at V)
    as a lattice whose level i holds ``chain[i - 1]`` with child the previous level: the
    one-path restriction (the DP over it is exact over plans whose cuts lie on the chain).
    ``poll``, when given, is called once per cut (a caller's clock check)."""

    def __init__(self, dag: LayerDag, chain: Sequence[int], work, params, cut_bytes, pd_bytes=None,
                 poll: Callable[[], None] | None = None):
        pd_bytes = cut_bytes if pd_bytes is None else pd_bytes
        extras = dag.pipedream_extras(poll)
        self.dag = dag
        self.masks, self._index = [[0]], [{0: 0}]
        self.children = [np.zeros((1, 0), np.int64)]
        self.work, self.params, self.cut, self.pd_cut = [np.zeros(1)], [np.zeros(1)], [np.zeros(1)], [np.zeros(1)]
        prev = 0
        for D in chain:
            if poll is not None:
                poll()
            if D & ~prev == 0 or prev & ~D or not dag.is_downset(D):
                raise ValueError("the chain must be strictly increasing down-sets")
            self.masks.append([D])
            self._index.append({D: 0})
            self.children.append(np.zeros((1, 1), np.int64))
            self.work.append(np.asarray([_sum_bits(work, D)]))
            self.params.append(np.asarray([_sum_bits(params, D)]))
            self.cut.append(np.asarray([_sum_bits(cut_bytes, dag.open_layers(D))]))
            self.pd_cut.append(np.asarray([_sum_bits(pd_bytes, dag.pipedream_augmented(D, extras))]))
            prev = D
        if prev != dag.full:
            raise ValueError("the chain must end at the full set of layers")


@dataclass
class PipeDreamStates:
    """PipeDream's antichain DAG: ``masks[i]`` the down-set of state i (states in an order where
    every ancestor comes first), ``augmented[i]`` its augmented antichain, ``ancestors[i]`` the
    indices of its ancestors in the antichain DAG (PipeDream's ``antichain_gr.predecessors``)."""

    masks: list[int]
    augmented: list[int]
    ancestors: list[np.ndarray]


def pipedream_antichain_dag(dag: LayerDag, max_states: int = 100_000, poll=None) -> PipeDreamStates:
    """PipeDream's antichain DAG from the first source (``sources()[0]``: the lowest-numbered
    layer without predecessors; PipeDream takes the first in its file order, which the importer
    keeps as layer order). Raises :class:`MemoryError` past ``max_states`` states. ``poll`` (a
    clock check that raises) is called once per layer of the augmenting sets and per state."""
    sources = [v for v in range(dag.n) if not dag.pred[v]]
    extras = dag.pipedream_extras(poll)

    def augment(antichain: int) -> int:
        out = antichain
        for a in bits(antichain):
            out |= extras[a]
        return out

    def deaugment(nodes: int) -> int:
        return sum(1 << v for v in bits(nodes) if not dag.desc[v] & nodes)

    start = 1 << sources[0]
    ids = {start: 0}
    antichains = [start]
    edges: list[list[int]] = [[]]
    queue = [start]
    head = 0
    while head < len(queue):
        if poll is not None:
            poll()
        A = queue[head]
        head += 1
        aug = augment(A)
        for a in bits(aug):
            for b in dag.succ_lists[a]:
                if A >> b & 1:
                    continue
                if dag.desc[b] & aug:  # PipeDream's is_next_antichain
                    continue
                new = deaugment((aug & ~(1 << a)) | (1 << b))
                if new not in ids:
                    if len(ids) >= max_states:
                        raise MemoryError(f"more than {max_states} PipeDream states")
                    ids[new] = len(antichains)
                    antichains.append(new)
                    edges.append([])
                    queue.append(new)
                edges[ids[A]].append(ids[new])
    closure = []
    for A in antichains:
        m = A
        for a in bits(A):
            m |= dag.anc[a]
        closure.append(m)
    # an order with ancestors first: by closure size (an edge strictly grows the closure)
    order = sorted(range(len(antichains)), key=lambda i: (popcount(closure[i]), i))
    pos = {s: k for k, s in enumerate(order)}
    anc_sets: list[int] = [0] * len(order)  # bitsets over positions
    parents: list[list[int]] = [[] for _ in order]
    for s, outs in enumerate(edges):
        for t in outs:
            parents[pos[t]].append(pos[s])
    for k in range(len(order)):
        a = 0
        for p in parents[k]:
            a |= (1 << p) | anc_sets[p]
        anc_sets[k] = a
    return PipeDreamStates(masks=[closure[s] for s in order], augmented=[augment(antichains[s]) for s in order],
                           ancestors=[np.asarray(bits(a), np.int64) for a in anc_sets])
