"""Compiled kernels for partitioning large graphs: k-way FM refinement, rebalancing, streaming
(LDG / Fennel) assignment, and the cut, on a CSR adjacency with several balance rows [ours].

Everything works on plain arrays -- ``indptr``, ``indices``, ``data`` of the symmetric adjacency
(:func:`csr_arrays`), ``parts`` (int64), node weights ``(ncon, n)`` and capacities ``(ncon, k)``
-- so a graph of 10^7 edges costs a few arrays and no Python object per node. The kernels are
compiled by numba when it is installed; without it they run as plain Python (same results, meant
for small graphs only).

* :func:`fm_refine_csr` -- k-way Fiduccia-Mattheyses: passes of single-node moves, largest gain
  first (lazy max-heap), each node moved at most once per pass, negative-gain moves allowed, the
  pass rolled back to its best prefix; a move is made only into a part with room in every row.
  The cut never increases and a balanced input stays balanced. Same rule as
  :func:`optsched.graphs.refine.fm_refine` (Fiduccia & Mattheyses, DAC 1982), compiled.
* :func:`rebalance_csr` -- moves the nodes that add the least cut out of parts above capacity,
  into parts with room, cheapest first (a lazy heap per over-full part and row), until balanced; when no single move fits (the other parts are full in
  another row), swaps a node carrying the excess with a node of another part that carries none
  of it, the cheapest pair per target part (``ValueError`` when neither exists).
* :func:`stream_assign` -- one pass over the nodes in a given order, each to the part maximizing
  LDG's ``conn * prod_rows (1 - load / cap)`` (Stanton & Kliot, KDD 2012) or Fennel's
  ``conn - alpha * gamma * load^(gamma - 1)`` (Tsourakakis et al., WSDM 2014) among parts with
  room; ``conn`` counts the weight of the node's edges into nodes already placed.

>>> import numpy as np
>>> from optsched.graphs import Graph
>>> g = Graph.from_edges(4, [(0, 1, 5), (1, 2, 1), (2, 3, 5), (3, 0, 1)])
>>> indptr, indices, data = csr_arrays(g)
>>> parts = fm_refine_csr(indptr, indices, data, np.array([0, 1, 0, 1]), 2, np.ones((1, 4)), np.full((1, 2), 3.0))
>>> cut_csr(indptr, indices, data, parts)
2.0
"""

from __future__ import annotations

import heapq

import numpy as np
import scipy.sparse as sp

from optsched.core.jit import HAVE_NUMBA, njit

from .partition import LOAD_TOL
from .record import Graph

__all__ = ["csr_arrays", "cut_csr", "fm_refine_csr", "rebalance_csr", "stream_assign", "connectivity_csr",
           "HAVE_NUMBA"]


def csr_arrays(graph: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, indices, data)`` of the symmetric weighted adjacency (parallel edges summed),
    int64 / int64 / float64."""
    g = graph.undirected()
    n = g.num_nodes
    A = sp.csr_matrix((np.concatenate([g.weight, g.weight]), (np.concatenate([g.src, g.dst]),
                                                              np.concatenate([g.dst, g.src]))), shape=(n, n))
    A.sum_duplicates()
    return A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.float64)


@njit(cache=True)
def cut_csr(indptr, indices, data, parts):
    """Weight of the edges between parts (each undirected edge once)."""
    total = 0.0
    for v in range(len(indptr) - 1):
        pv = parts[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u > v and parts[u] != pv:
                total += data[e]
    return total


@njit(cache=True)
def connectivity_csr(indptr, indices, data, parts, k):
    """``(n, k)``: weight of each node's edges into each part."""
    n = len(indptr) - 1
    conn = np.zeros((n, k))
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            conn[v, parts[indices[e]]] += data[e]
    return conn


@njit(cache=True)
def _fits(loads, caps, w, v, p):
    for c in range(loads.shape[0]):
        if loads[c, p] + w[c, v] > caps[c, p] * (1.0 + 1e-9) + 1e-9:
            return False
    return True


@njit(cache=True)
def _best_target(conn, loads, caps, w, v, own, k):
    best_p = -1
    best_g = -np.inf
    for p in range(k):
        if p == own:
            continue
        g = conn[v, p] - conn[v, own]
        if g > best_g and _fits(loads, caps, w, v, p):
            best_g = g
            best_p = p
    return best_p, best_g


@njit(cache=True)
def _fm_pass(indptr, indices, data, parts, k, w, caps, conn, loads, frozen, patience):
    n = len(indptr) - 1
    locked = frozen.copy()
    heap = [(0.0, np.int64(0), np.int64(0))]
    heap.pop()
    for v in range(n):
        if locked[v]:
            continue
        own = parts[v]
        internal = conn[v, own]
        external = 0.0
        for p in range(k):
            if p != own:
                external += conn[v, p]
        if external > 0.0:
            p, g = _best_target(conn, loads, caps, w, v, own, k)
            if p >= 0:
                heapq.heappush(heap, (-g, np.int64(v), np.int64(p)))
    moved_v = np.empty(n, np.int64)
    moved_src = np.empty(n, np.int64)
    nmoves = 0
    total = 0.0
    best = 0.0
    best_len = 0
    since = 0
    while len(heap) > 0 and since < patience:
        negg, v, p = heapq.heappop(heap)
        if locked[v]:
            continue
        own = parts[v]
        q, g = _best_target(conn, loads, caps, w, v, own, k)
        if q < 0:
            continue  # no part has room now; a neighbour's move re-queues it
        if q != p or g != -negg:
            heapq.heappush(heap, (-g, v, np.int64(q)))
            continue
        for c in range(w.shape[0]):
            loads[c, own] -= w[c, v]
            loads[c, q] += w[c, v]
        parts[v] = q
        locked[v] = True
        moved_v[nmoves] = v
        moved_src[nmoves] = own
        nmoves += 1
        total += g
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            conn[u, own] -= data[e]
            conn[u, q] += data[e]
            if not locked[u]:
                pu, gu = _best_target(conn, loads, caps, w, u, parts[u], k)
                if pu >= 0:
                    heapq.heappush(heap, (-gu, np.int64(u), np.int64(pu)))
        if total > best + 1e-12 * max(1.0, abs(best)):
            best = total
            best_len = nmoves
            since = 0
        else:
            since += 1
    for i in range(nmoves - 1, best_len - 1, -1):  # roll back to the best prefix
        v = moved_v[i]
        src = moved_src[i]
        dst = parts[v]
        for c in range(w.shape[0]):
            loads[c, dst] -= w[c, v]
            loads[c, src] += w[c, v]
        parts[v] = src
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            conn[u, dst] -= data[e]
            conn[u, src] += data[e]
    return best, best_len


def _loads(parts, k, w):
    return np.stack([np.bincount(parts, weights=row, minlength=k) for row in w]).astype(np.float64)


def _rows(node_weights, n):
    w = np.asarray(node_weights, np.float64)
    w = w[None, :] if w.ndim == 1 else w
    if w.shape[1] != n:
        raise ValueError(f"node_weights must have {n} columns, got shape {w.shape}")
    return np.ascontiguousarray(w)


def fm_refine_csr(indptr, indices, data, parts, k: int, node_weights, capacities, *, max_passes: int = 10,
                  patience: int = 200, fixed=None) -> np.ndarray:
    """k-way FM refinement under every balance row (see the module docstring); returns a new array.

    A pass stops after ``patience`` moves without a new best cut; passes repeat until one gains
    nothing or ``max_passes``. Complexity O(passes * (n k + m k log m)).
    """
    n = len(indptr) - 1
    parts = np.asarray(parts, np.int64).copy()
    w = _rows(node_weights, n)
    caps = np.ascontiguousarray(np.asarray(capacities, np.float64))
    frozen = np.zeros(n, np.bool_)
    if fixed is not None and len(fixed):
        frozen[np.asarray(fixed, np.int64)] = True
    if k <= 1 or n == 0:
        return parts
    conn = connectivity_csr(indptr, indices, data, parts, k)
    loads = _loads(parts, k, w)
    for _ in range(max_passes):
        gain, length = _fm_pass(indptr, indices, data, parts, k, w, caps, conn, loads, frozen, patience)
        if length == 0:
            break
    return parts


@njit(cache=True)
def _rebalance(indptr, indices, data, parts, k, w, caps, conn, loads, frozen, swaps):
    n = len(indptr) - 1
    ncon = w.shape[0]
    mark = np.zeros(n)
    for _round in range(4 * n + 4):
        # the first over-full (row, part)
        src = -1
        row = -1
        for p in range(k):
            for c in range(ncon):
                if loads[c, p] > caps[c, p] * (1.0 + 1e-9) + 1e-9:
                    src = p
                    row = c
                    break
            if src >= 0:
                break
        if src < 0:
            return True
        # cheapest nodes of src carrying weight in that row, each to a part with room, cheapest
        # first (a lazy heap: a popped loss that grew since is pushed back), while src is over
        heap = [(0.0, np.int64(0))]
        heap.pop()
        for v in range(n):
            if parts[v] == src and not frozen[v] and w[row, v] > 0.0:
                q, g = _best_target(conn, loads, caps, w, v, src, k)
                if q >= 0:
                    heapq.heappush(heap, (-g, np.int64(v)))
        moved = 0
        while len(heap) > 0 and loads[row, src] > caps[row, src] * (1.0 + 1e-9) + 1e-9:
            negg, v = heapq.heappop(heap)
            if parts[v] != src:
                continue
            q, g = _best_target(conn, loads, caps, w, v, src, k)
            if q < 0:
                continue
            if -g > negg + 1e-12 * max(1.0, abs(negg)):
                heapq.heappush(heap, (-g, v))
                continue
            _move(indptr, indices, data, parts, w, conn, loads, v, q)
            moved += 1
        if moved > 0:
            continue
        if not swaps:
            return False
        best_loss = np.inf
        best_v = -1
        best_p = -1
        best_u = -1
        # no single move fits: swap a node carrying the excess row with a node of another part
        # that carries none of it (the cheapest such pair per target part, each side's loss summed)
        best_loss = np.inf
        for p in range(k):
            if p == src:
                continue
            bv = -1
            lv = np.inf
            for x in range(n):
                if not frozen[x] and parts[x] == src and w[row, x] > 0.0:
                    loss = conn[x, src] - conn[x, p]
                    if loss < lv:
                        lv = loss
                        bv = x
            if bv < 0:
                continue
            # its partner: an edge between the two stays cut after the swap (counted twice above)
            for e in range(indptr[bv], indptr[bv + 1]):
                mark[indices[e]] += data[e]
            bu = -1
            lu = np.inf
            for x in range(n):
                if not frozen[x] and parts[x] == p and w[row, x] == 0.0:
                    loss = conn[x, p] - conn[x, src] + 2.0 * mark[x]
                    if loss < lu:
                        lu = loss
                        bu = x
            for e in range(indptr[bv], indptr[bv + 1]):
                mark[indices[e]] = 0.0
            if bu < 0:
                continue
            ok = True
            for c in range(ncon):
                if loads[c, p] - w[c, bu] + w[c, bv] > caps[c, p] * (1.0 + 1e-9) + 1e-9:
                    ok = False
                if loads[c, src] - w[c, bv] + w[c, bu] > max(loads[c, src], caps[c, src] * (1.0 + 1e-9) + 1e-9):
                    ok = False
            if ok and lv + lu < best_loss:
                best_loss = lv + lu
                best_v = bv
                best_p = p
                best_u = bu
        if best_v < 0:
            return False
        _move(indptr, indices, data, parts, w, conn, loads, best_v, best_p)
        _move(indptr, indices, data, parts, w, conn, loads, best_u, src)
    return False


@njit(cache=True)
def _move(indptr, indices, data, parts, w, conn, loads, v, q):
    src = parts[v]
    for c in range(w.shape[0]):
        loads[c, src] -= w[c, v]
        loads[c, q] += w[c, v]
    parts[v] = q
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        conn[u, src] -= data[e]
        conn[u, q] += data[e]


def rebalance_csr(indptr, indices, data, parts, k: int, node_weights, capacities, *, fixed=None,
                  swaps: bool = True) -> np.ndarray:
    """Repair an over-full partition by cheapest moves, then swaps (see the module docstring).
    O((n k + moves deg k) log n) per over-full part and row; a swap costs O(n k).
    ``swaps=False`` (tests): single moves only. ``ValueError`` when stuck."""
    n = len(indptr) - 1
    parts = np.asarray(parts, np.int64).copy()
    w = _rows(node_weights, n)
    caps = np.ascontiguousarray(np.asarray(capacities, np.float64))
    loads = _loads(parts, k, w)
    if np.all(loads <= caps * (1 + LOAD_TOL) + LOAD_TOL):
        return parts
    frozen = np.zeros(n, np.bool_)
    if fixed is not None and len(fixed):
        frozen[np.asarray(fixed, np.int64)] = True
    conn = connectivity_csr(indptr, indices, data, parts, k)
    if not _rebalance(indptr, indices, data, parts, k, w, caps, conn, loads, frozen, swaps):
        raise ValueError("rebalance: no move reduces the excess within the capacities")
    return parts


@njit(cache=True)
def _stream(indptr, indices, data, order, k, w, caps, fennel, alpha, gamma):
    n = len(indptr) - 1
    ncon = w.shape[0]
    parts = np.full(n, -1, np.int64)
    loads = np.zeros((ncon, k))
    conn = np.zeros(k)
    for v in order:
        for p in range(k):
            conn[p] = 0.0
        for e in range(indptr[v], indptr[v + 1]):
            pu = parts[indices[e]]
            if pu >= 0:
                conn[pu] += data[e]
        best_p = -1
        best_s = -np.inf
        best_room = -np.inf
        for p in range(k):
            if not _fits(loads, caps, w, v, p):
                continue
            room = 1.0
            for c in range(ncon):
                if caps[c, p] > 0:
                    room *= max(0.0, 1.0 - loads[c, p] / caps[c, p])
            if fennel:
                # penalty on the all-nodes row (row 0), Fennel's marginal cost
                s = conn[p] - alpha * gamma * loads[0, p] ** (gamma - 1.0)
            else:
                s = conn[p] * room
            if s > best_s or (s == best_s and room > best_room):
                best_s = s
                best_p = p
                best_room = room
        if best_p < 0:  # nothing fits: the part with the most room in row 0
            best_p = 0
            for p in range(1, k):
                if loads[0, p] / max(caps[0, p], 1e-300) < loads[0, best_p] / max(caps[0, best_p], 1e-300):
                    best_p = p
        parts[v] = best_p
        for c in range(ncon):
            loads[c, best_p] += w[c, v]
    return parts


def stream_assign(indptr, indices, data, order, k: int, node_weights, capacities, *, method: str = "ldg",
                  gamma: float = 1.5) -> np.ndarray:
    """One streaming pass in ``order`` (LDG or Fennel, see the module docstring).

    Fennel's ``alpha = sqrt(k) * W / n^gamma`` with ``W`` the total edge weight (Tsourakakis et
    al.'s ``alpha = sqrt(k) m / n^(3/2)`` for gamma = 3/2, on weighted edges). A node that fits no
    part goes to the emptiest one; callers repair with :func:`rebalance_csr`.
    """
    n = len(indptr) - 1
    w = _rows(node_weights, n)
    caps = np.ascontiguousarray(np.asarray(capacities, np.float64))
    total_w = float(data.sum()) / 2.0
    alpha = (k ** 0.5) * total_w / max(1.0, float(n)) ** gamma
    return _stream(indptr, indices, data, np.asarray(order, np.int64), k, w, caps, method == "fennel", alpha, gamma)
