"""Per-instance data every heuristic of ``intra-op`` needs, computed once [ours].

:func:`working_costs` (forbidden entries at one finite penalty), :class:`Structure` (incidence
lists, neighbours, compressed time points, each node's least-usage strategy) through the cached
:func:`structure`, and :func:`least_memory_plan`.
"""

from __future__ import annotations

import itertools
import math
import weakref

import numpy as np

from .instance import FORBIDDEN, IntraOpInstance

__all__ = ["Structure", "structure", "working_costs", "working_penalty", "at_penalty", "any_at_least", "all_integral",
           "least_memory_plan", "product_size", "all_assignments"]


#: entries per pass of the chunked scans below: the masks and temporaries of one pass are 4 MB
#: of bools and 32 MB of floats, where a whole-array pass on a file with 1.45e8 edge-cost entries
#: would allocate 145 MB of bools and 1.2 GB of floats at once [ours]
CHUNK = 1 << 22


def _chunks(size: int):
    for lo in range(0, size, CHUNK):
        yield lo, min(size, lo + CHUNK)


def any_at_least(arr: np.ndarray, threshold: float) -> bool:
    """Whether some entry of ``arr`` is >= ``threshold`` (chunked: no full-size mask)."""
    return any(bool((arr[lo:hi] >= threshold).any()) for lo, hi in _chunks(arr.size))


def all_integral(arr: np.ndarray) -> bool:
    """Whether every entry of ``arr`` is a whole number (chunked: no full-size temporary)."""
    return all(bool(np.all(arr[lo:hi] == np.round(arr[lo:hi]))) for lo, hi in _chunks(arr.size))


def _allowed_maxima(arr: np.ndarray, starts: np.ndarray, bad: bool) -> np.ndarray:
    """``np.maximum.reduceat(where(arr >= FORBIDDEN, 0, arr), starts)`` for strictly increasing
    ``starts``, a few thousand segments at a time (a maximum is exact: the same numbers as the
    whole-array form, without its full-size copy)."""
    if not bad:
        return np.maximum.reduceat(arr, starts)
    out = np.empty(starts.size)
    i = 0
    while i < starts.size:
        j = max(i + 1, int(np.searchsorted(starts, starts[i] + CHUNK, side="right")))
        lo, hi = int(starts[i]), int(starts[j]) if j < starts.size else arr.size
        fin = arr[lo:hi].copy()
        np.copyto(fin, 0.0, where=fin >= FORBIDDEN)
        out[i:j] = np.maximum.reduceat(fin, starts[i:j] - lo)
        i = j
    return out


def working_penalty(inst: IntraOpInstance) -> tuple[float, bool, bool]:
    """The working penalty P of :func:`working_costs`, and whether any node / edge cost is forbidden.

    No array of the edge costs' size is made: the per-edge maxima of the allowed entries are taken
    a chunk of edges at a time (the same numbers, summed at once as before, so P is the same)."""
    bad_n = any_at_least(inst.cost, FORBIDDEN)
    bad_e = any_at_least(inst.edge_cost, FORBIDDEN)
    fin_n = np.where(inst.cost >= FORBIDDEN, 0.0, inst.cost) if bad_n else inst.cost
    upper = float(np.maximum.reduceat(fin_n, inst.offsets[:-1]).sum()) if inst.num_nodes else 0.0
    if inst.num_edges:
        nonempty = inst.edge_offsets[:-1] < inst.edge_offsets[1:]
        if nonempty.any():
            upper += float(_allowed_maxima(inst.edge_cost, inst.edge_offsets[:-1][nonempty], bad_e).sum())
    penalty = 10.0 ** math.ceil(math.log10(2 * upper + 1)) if upper > 0 else 1.0
    return penalty, bad_n, bad_e


def at_penalty(arr: np.ndarray, penalty: float, bad: bool | None = None) -> np.ndarray:
    """``arr`` with every entry >= FORBIDDEN at ``penalty``: ``arr`` itself when none is (callers
    only read the result), else a new array filled chunk by chunk (no full-size mask)."""
    if bad is None:
        bad = any_at_least(arr, FORBIDDEN)
    if not bad:
        return arr
    out = np.empty_like(arr)
    for lo, hi in _chunks(arr.size):
        seg = out[lo:hi]
        seg[...] = arr[lo:hi]
        np.copyto(seg, penalty, where=seg >= FORBIDDEN)
    return out


def working_costs(inst: IntraOpInstance) -> tuple[np.ndarray, np.ndarray, float]:
    """Node and edge costs with every forbidden entry replaced by one penalty P [ours].

    P is the smallest power of ten above twice the most an allowed plan can cost (the sum of each
    node's and edge's largest allowed cost), so a plan with a forbidden choice always costs more
    than any allowed plan, while sums stay far from the 1e18 sentinels, where float64 cannot
    hold the small costs beside them (its spacing there is 128).

    Memory: an array without forbidden entries is returned as it is (the instance's own,
    read-only array: no copy); otherwise the copy (needed: the moves read P where the instance
    holds 1e18) is built chunk by chunk, so besides it nothing of its size is allocated.
    """
    penalty, bad_n, bad_e = working_penalty(inst)
    return at_penalty(inst.cost, penalty, bad_n), at_penalty(inst.edge_cost, penalty, bad_e), penalty


class Structure:
    """Instance data the moves need, computed once per instance (adjacency, time ranges)."""

    def __init__(self, inst: IntraOpInstance):
        # a weak reference: the cache of :func:`structure` must not keep an instance (and with
        # it this structure's working costs) alive once its last user drops it (a core instance
        # of a 1.45e8-entry file and its structure are 1.2 GB each)
        self._inst = weakref.ref(inst)
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
        self.penalty, bad_n, self._bad_e = working_penalty(inst)
        self.node_cost = at_penalty(inst.cost, self.penalty, bad_n)
        self._edge_cost = at_penalty(inst.edge_cost, self.penalty, self._bad_e)
        # each node's least-usage allowed strategy (ties: least cost)
        self.least = np.array([int(np.lexsort((inst.cost[self.off[v]:self.off[v + 1]],
                                                inst.usage[self.off[v]:self.off[v + 1]],
                                                ~self.allowed[self.off[v]:self.off[v + 1]]))[0])
                               for v in range(n)], dtype=np.int64)
        self.edge_off = inst.edge_offsets

    @property
    def inst(self) -> IntraOpInstance:
        inst = self._inst()
        if inst is None:  # pragma: no cover - a structure is used while its instance is alive
            raise ReferenceError("the instance of this Structure no longer exists")
        return inst

    @property
    def edge_cost(self) -> np.ndarray:
        """The edge costs at the working penalty (:func:`working_costs`; rebuilt, the same
        numbers, after :meth:`release_edge_costs`)."""
        ec = self._edge_cost
        if ec is None:
            ec = self._edge_cost = at_penalty(self.inst.edge_cost, self.penalty, self._bad_e)
        return ec

    def release_edge_costs(self) -> None:
        """Drop the working copy of the edge costs (and the compiled moves' arrays that hold it)
        until the next use rebuilds it: for a stage that works on other arrays of that size
        meanwhile (the Lagrangian stage's core: on a 1.45e8-entry file each is 1.2 GB). Nothing
        to drop when the working costs are the instance's own array."""
        if self._bad_e:
            self._edge_cost = None
            self.__dict__.pop("_kernel", None)

    @property
    def kernel(self) -> "KernelArrays":
        """The flat, typed arrays the compiled moves take (:mod:`.kernels`)."""
        ka = self.__dict__.get("_kernel")
        if ka is None:
            ka = self.__dict__["_kernel"] = KernelArrays(self)
        return ka

    def edge_matrix(self, e: int) -> np.ndarray:
        """Edge e's matrix with forbidden entries at the working penalty."""
        a, b = self.edge_off[e], self.edge_off[e + 1]
        return self.edge_cost[a:b].reshape(self.k[self.inst.edge_u[e]], self.k[self.inst.edge_v[e]])

    def node_costs(self, x: int) -> np.ndarray:
        return self.node_cost[self.off[x]:self.off[x + 1]]


class KernelArrays:
    """Contiguous int64 / float64 / bool copies of what the compiled moves read; ``graph`` is the
    argument tuple ``(k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff, ecost)``."""

    def __init__(self, st: Structure):
        c = np.ascontiguousarray
        inst = st.inst
        self.k = c(st.k, np.int64)
        self.off = c(st.off, np.int64)
        self.node_cost = c(st.node_cost, np.float64)
        self.usage = c(inst.usage, np.float64)
        self.a = c(st.a, np.int64)
        self.b = c(st.b, np.int64)
        self.eu = c(inst.edge_u, np.int64)
        self.ev = c(inst.edge_v, np.int64)
        self.eoff = c(st.edge_off, np.int64)
        self.ecost = c(st.edge_cost, np.float64)
        self.graph = (self.k, self.off, c(st.inc_ptr, np.int64), c(st.inc_edge, np.int64),
                      c(st.inc_other, np.int64), c(st.inc_tail, np.bool_), self.eoff, self.ecost)

    def local(self, s: np.ndarray, node_cost: np.ndarray | None = None) -> np.ndarray:
        """The flat per-strategy cost vector of plan ``s`` (:func:`.kernels.build_local`)."""
        from .kernels import build_local

        out = np.empty(self.node_cost.size)
        build_local(s, self.k, self.off, self.node_cost if node_cost is None else node_cost, self.eu, self.ev,
                    self.eoff, self.ecost, out)
        return out


#: live instances' structures by ``id``: an entry leaves when its instance is freed (a finalizer;
#: the structure holds its instance only weakly), so the cache keeps nothing alive
_CACHE: dict[int, Structure] = {}


def _forget(key: int, ref: "weakref.ref[Structure]") -> None:
    st = _CACHE.get(key)
    if st is not None and st is ref():
        del _CACHE[key]


def structure(inst: IntraOpInstance) -> Structure:
    """The (cached) :class:`Structure` of an instance."""
    key = id(inst)
    st = _CACHE.get(key)
    if st is None or st._inst() is not inst:
        if len(_CACHE) > 8:
            _CACHE.clear()
        st = _CACHE[key] = Structure(inst)
        weakref.finalize(inst, _forget, key, weakref.ref(st))
    return st


def least_memory_plan(inst: IntraOpInstance) -> np.ndarray:
    """Per node the allowed strategy of least usage (ties: least cost)."""
    return structure(inst).least.copy()


def product_size(k, nodes) -> int:
    return int(np.prod([int(k[x]) for x in nodes], dtype=np.int64))


def all_assignments(k) -> np.ndarray:
    """Every joint choice of nodes with strategy counts ``k`` (rows), for small products."""
    return np.array(list(itertools.product(*[range(int(x)) for x in k])), dtype=np.int64).reshape(-1, len(k))
