"""Local refinement of a k-way partition under balance constraints.

* :func:`fm_refine` -- k-way Fiduccia-Mattheyses: passes of single-node moves, best gain first,
  each node moved at most once per pass, negative-gain moves allowed (hill climbing), the pass
  rolled back to its best prefix; only moves that keep every part within its capacities.
* :func:`rebalance` -- repair an over-full partition by moving the cheapest nodes out of parts
  above capacity (used after METIS, whose own tolerance differs from exact capacities).
* :func:`pairwise_kl_refine` -- Kernighan-Lin swaps (networkx's bisection) between every pair of
  parts until no pass improves the cut: part sizes stay exactly as given (swaps only), so any
  per-part capacity that held still holds.

None has an approximation guarantee (balanced partition admits none unless P = NP, Andreev &
Räcke 2006); each never increases the cut (``fm_refine`` and ``pairwise_kl_refine`` keep the
input when no move improves it).

>>> from optsched.graphs import Graph
>>> g = Graph.from_edges(4, [(0, 1, 5), (1, 2, 1), (2, 3, 5), (3, 0, 1)])
>>> parts = fm_refine(g, [0, 1, 0, 1], 2, np.ones((1, 4)), np.full((1, 2), 3.0))  # room for one extra
>>> g.cut_weight(parts)
2.0

References: B. W. Kernighan and S. Lin, Bell Syst. Tech. J. 1970; C. M. Fiduccia and
R. M. Mattheyses, DAC 1982.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Sequence

import numpy as np

from .partition import LOAD_TOL, part_loads
from .record import Graph

__all__ = ["fm_refine", "rebalance", "pairwise_kl_refine", "connectivity"]


def connectivity(graph: Graph, parts: np.ndarray, k: int) -> np.ndarray:
    """``(n, k)`` array: the weight of the edges from each node into each part."""
    A = graph.undirected().adjacency()
    onehot = np.zeros((graph.num_nodes, k))
    onehot[np.arange(graph.num_nodes), parts] = 1.0
    return np.asarray(A @ onehot)


def _fits(loads, caps, w, p) -> bool:
    return bool(np.all(loads[:, p] + w <= caps[:, p] * (1 + LOAD_TOL) + LOAD_TOL))


def fm_refine(graph: Graph, parts, k: int, node_weights, capacities, *, max_passes: int = 8,
              patience: int = 50, fixed: Sequence[int] = (), stop=None) -> np.ndarray:
    """Fiduccia-Mattheyses k-way refinement keeping every part within ``capacities``.

    Each pass moves unlocked nodes one at a time to the part of largest gain (cut decrease) that
    has room, best gain first (a lazy max-heap), locks them, stops after ``patience`` moves without
    a new best cut, and rolls back to the best prefix. Stops when a pass gains nothing or after
    ``max_passes``. Nodes in ``fixed`` never move. Returns a new array; the cut never increases,
    and a balanced input stays balanced. ``stop`` (a caller's time check answering True when the
    budget is spent) is asked every 256 moves: a pass stopped there rolls back to its best prefix,
    and no further pass starts.

    Complexity: O(passes * (n + m) log n) with the heap; the adjacency is scanned per move.
    """
    g = graph.undirected()
    parts = np.asarray(parts, dtype=np.int64).copy()
    n = g.num_nodes
    w = np.asarray(node_weights, float)
    w = w[None, :] if w.ndim == 1 else w
    caps = np.asarray(capacities, float)
    A = g.adjacency().tocsr()
    indptr, indices, data = A.indptr, A.indices, A.data
    frozen = np.zeros(n, bool)
    frozen[list(fixed)] = True
    for _ in range(max_passes):
        if stop is not None and stop():
            break
        conn = connectivity(g, parts, k)
        loads = part_loads(parts, k, w)
        locked = frozen.copy()
        heap: list[tuple[float, int, int]] = []

        def push(v: int) -> None:
            own = conn[v, parts[v]]
            gains = conn[v] - own
            gains[parts[v]] = -np.inf
            p = int(np.argmax(gains))
            if np.isfinite(gains[p]):
                heapq.heappush(heap, (-float(gains[p]), v, p))

        external = conn.sum(axis=1) - conn[np.arange(n), parts]
        boundary = np.flatnonzero(external > 0) if k > 1 else np.zeros(0, int)
        stopped = False
        for i, v in enumerate(boundary):
            if stop is not None and not (i + 1) % 4096 and stop():
                stopped = True   # no move made in this pass yet: the partition is the pass's input
                break
            if not locked[v]:
                push(int(v))
        if stopped:
            break
        moves: list[tuple[int, int]] = []
        total, best, best_len, since = 0.0, 0.0, 0, 0
        pops = 0
        while heap and since < patience:
            pops += 1
            if stop is not None and not pops % 256 and stop():
                break
            neg, v, p = heapq.heappop(heap)
            if locked[v]:
                continue
            gain = conn[v, p] - conn[v, parts[v]]
            if gain != -neg:  # stale entry: recompute
                push(v)
                continue
            if not _fits(loads, caps, w[:, v], p):
                # try the best part that has room
                gains = conn[v] - conn[v, parts[v]]
                order = np.argsort(-gains)
                q = next((int(q) for q in order if q != parts[v] and _fits(loads, caps, w[:, v], int(q))), None)
                if q is None:
                    locked[v] = True
                    continue
                p, gain = q, gains[q]
            src = parts[v]
            loads[:, src] -= w[:, v]
            loads[:, p] += w[:, v]
            parts[v] = p
            locked[v] = True
            moves.append((v, src))
            total += gain
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                conn[u, src] -= data[e]
                conn[u, p] += data[e]
                if not locked[u]:
                    push(int(u))
            if total > best + 1e-12 * max(1.0, abs(best)):
                best, best_len, since = total, len(moves), 0
            else:
                since += 1
        for v, src in reversed(moves[best_len:]):
            parts[v] = src
        if best_len == 0:
            break
    return parts


def rebalance(graph: Graph, parts, k: int, node_weights, capacities, *, fixed: Sequence[int] = ()) -> np.ndarray:
    """Move nodes out of parts above capacity, each time the node and target part that add the
    least cut among the moves that reduce the excess and fit; when no single move fits, the swap
    of two nodes that does (least added cut); ``ValueError`` if stuck.

    A no-op on a balanced partition. O(moves * n k) worst case (meant for small repairs).
    """
    g = graph.undirected()
    parts = np.asarray(parts, dtype=np.int64).copy()
    w = np.asarray(node_weights, float)
    w = w[None, :] if w.ndim == 1 else w
    caps = np.asarray(capacities, float)
    frozen = np.zeros(g.num_nodes, bool)
    frozen[list(fixed)] = True
    loads = part_loads(parts, k, w)
    conn = connectivity(g, parts, k)
    A = g.adjacency().tocsr()
    for _ in range(g.num_nodes * 2):
        over = loads > caps * (1 + LOAD_TOL) + LOAD_TOL
        if not over.any():
            return parts
        bad_parts = np.flatnonzero(over.any(axis=0))
        best = None
        for src in bad_parts:
            rows = over[:, src]
            cand = np.flatnonzero((parts == src) & ~frozen & (w[rows].sum(axis=0) > 0))
            for v in cand:
                for p in range(k):
                    if p == src or not _fits(loads, caps, w[:, v], p):
                        continue
                    loss = conn[v, src] - conn[v, p]
                    if best is None or loss < best[0]:
                        best = (loss, int(v), p)
        moves = [best[1:]] if best is not None else _best_swap(parts, k, w, caps, loads, conn, A, frozen, over, bad_parts)
        if moves is None:
            raise ValueError("rebalance: no move or swap reduces the excess within the capacities")
        for v, p in moves:
            src = parts[v]
            loads[:, src] -= w[:, v]
            loads[:, p] += w[:, v]
            parts[v] = p
            row = A.getrow(v)
            conn[row.indices, src] -= row.data
            conn[row.indices, p] += row.data
    raise ValueError("rebalance did not converge")


def _excess(load, cap) -> float:
    return float(np.maximum(load - (cap * (1 + LOAD_TOL) + LOAD_TOL), 0.0).sum())


def _best_swap(parts, k, w, caps, loads, conn, A, frozen, over, bad_parts):
    """When no single move fits (e.g. the target part is full in another dimension): the exchange
    of ``v`` (out of an over-capacity part) with ``u`` (of another part) that lowers that part's
    excess, keeps the other within its capacities, and adds the least cut; ``None`` if none."""
    best = None
    for src in bad_parts:
        rows = over[:, src]
        before = _excess(loads[:, src], caps[:, src])
        for v in np.flatnonzero((parts == src) & ~frozen & (w[rows].sum(axis=0) > 0)):
            for p in range(k):
                if p == src:
                    continue
                for u in np.flatnonzero((parts == p) & ~frozen):
                    after_p = loads[:, p] + w[:, v] - w[:, u]
                    if np.any(after_p > caps[:, p] * (1 + LOAD_TOL) + LOAD_TOL):
                        continue
                    if _excess(loads[:, src] - w[:, v] + w[:, u], caps[:, src]) >= before:
                        continue
                    # cut change of v: src -> p, then u: p -> src (an edge u-v stays cut)
                    loss = conn[v, src] - conn[v, p] + conn[u, p] - conn[u, src] + 2 * A[v, u]
                    if best is None or loss < best[0]:
                        best = (loss, [(int(v), p), (int(u), int(src))])
    return None if best is None else best[1]


def pairwise_kl_refine(graph: Graph, parts, *, cut: Callable[[list[int]], float] | None = None,
                       max_rounds: int | None = None, seed: int = 0) -> list[int]:
    """Kernighan-Lin between every pair of used parts, repeated while a round improves the cut.

    For each pair ``(a, b)`` (ascending), networkx's ``kernighan_lin_bisection`` on the subgraph
    of the two parts, started from the current split; the swap result is kept when it lowers the
    cut by more than 1e-12 relative (float noise). Part sizes never change. Up to ``max_rounds``
    rounds (default ``2 x`` the number of parts). ``cut`` defaults to ``graph.cut_weight``.

    >>> from optsched.graphs import Graph
    >>> ring = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    >>> ring.cut_weight(pairwise_kl_refine(ring, [0, 1, 0, 1]))
    2.0
    """
    import networkx as nx
    from networkx.algorithms.community import kernighan_lin_bisection

    servers = [int(p) for p in parts]
    cut = cut or graph.cut_weight
    used = sorted(set(servers))
    if len(used) <= 1 or graph.num_edges == 0:
        return servers
    nxg = nx.Graph()
    nxg.add_nodes_from(range(graph.num_nodes))
    for u, v, w in zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist()):
        if nxg.has_edge(u, v):
            nxg[u][v]["weight"] += w
        else:
            nxg.add_edge(u, v, weight=w)
    best = cut(servers)
    for _ in range(max_rounds if max_rounds is not None else 2 * len(used)):
        improved = False
        for a, b in itertools.combinations(used, 2):
            part_a = {v for v in range(graph.num_nodes) if servers[v] == a}
            part_b = {v for v in range(graph.num_nodes) if servers[v] == b}
            sub = nxg.subgraph(part_a | part_b)
            left, right = kernighan_lin_bisection(sub, partition=(part_a, part_b), weight="weight", seed=seed)
            if len(left) != len(part_a):  # networkx may return the two sides swapped
                left, right = right, left
            trial = list(servers)
            for v in left:
                trial[v] = a
            for v in right:
                trial[v] = b
            value = cut(trial)
            if value < best - 1e-12 * max(1.0, best):
                servers, best, improved = trial, value, True
        if not improved:
            break
    return servers
