"""The BGL partition heuristics [reconstruction of BGL, NSDI'23, §3; docs ``optsched/problems/graph_partition/README.md``].

BGL's paper describes a multi-level partition that coarsens the graph into blocks grown by BFS from
several sources, assigns blocks to partitions with a heuristic that keeps multi-hop neighbourhoods
together under a balance penalty, and then uncoarsens [3rd: reading notes]. Its details are not
public; this module holds two reconstructions:

* :func:`bgl_multilevel` / :func:`bgl_vcycles` (method ``bgl``): many levels of BFS blocks of 2
  nodes on CSR arrays, the greedy LDG-like assignment on the coarsest graph
  (:func:`greedy_block_assignment`), compiled k-way FM at every level on the way back, V-cycles;
  scales to 10^7 edges (optsched/problems/graph_partition/README.md).
* :func:`bgl_partition` (method ``bgl-1level``), the earlier one-level version:

1. **Blocks** (:func:`bfs_blocks`): a level-synchronous BFS from ``ceil(n / b)`` random sources at
   once; a node joins the block of the first frontier node that reaches it, blocks stop growing
   at ``b`` nodes; unreached nodes seed new sources.
2. **Assignment** (:func:`assign_blocks`): blocks in decreasing order of training nodes (then
   size), each to the part maximizing the LDG score (Stanton & Kliot, KDD 2012)
   ``conn(B, P_i) * (1 - |Train_i| / C_T) * (1 - |P_i| / C)`` among parts with room, where
   ``conn`` is the sampling traffic between ``B`` and the blocks already in ``P_i`` (optsched
   uses the weighted 1-hop connection instead of BGL's |N_k(B) ∩ P_i|: the weights already count
   k-hop traversals); ties (e.g. no connection yet) go to the part with the largest penalty term;
   a block that fits no part is dealt node by node.
3. **Uncoarsening** (:func:`bgl_partition`): Fiduccia-Mattheyses refinement under both balance rows
   (:func:`optsched.graphs.fm_refine`), first moving whole blocks on the block graph, then nodes.

Guarantee: none (balanced partition has no finite-factor approximation unless P = NP). Complexity:
O(n + m) for the blocks and the block graph, O(B K) for the assignment, FM as documented there.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from optsched.graphs import Graph, fm_refine, is_balanced, rebalance
from optsched.graphs.partition import LOAD_TOL
from optsched.graphs.sampling import csr_neighbours

__all__ = ["bfs_blocks", "bfs_blocks_csr", "assign_blocks", "bgl_partition", "bgl_multilevel", "bgl_vcycles",
           "greedy_block_assignment", "bfs_node_order", "BGL_BLOCK_SIZE", "AUTO_PORTFOLIO_MAX_EDGES"]

#: nodes per BFS block at each level of :func:`bgl_multilevel` [ours: 2 had the lowest mean traffic of
#: 2, 4, 8 on generated power-law graphs (seeds 101-102 and 201-202, 3,000 to 25,000 nodes,
#: K = 2, 4, 8), never on the evaluation graphs]
BGL_BLOCK_SIZE = 2
#: ``auto`` runs both metis-fm and bgl up to this many edges and metis-fm alone above [ours: measured,
#: optsched/problems/graph_partition/README.md "Which method by graph size"]
AUTO_PORTFOLIO_MAX_EDGES = 2_000_000


def bfs_blocks(graph: Graph, block_size: int, rng: np.random.Generator) -> np.ndarray:
    """Block id of every node: multi-source BFS blocks of at most ``block_size`` nodes.

    >>> from optsched.graphs import Graph
    >>> path = Graph.from_edges(6, [(i, i + 1) for i in range(5)])
    >>> blocks = bfs_blocks(path, 3, np.random.default_rng(0))
    >>> int(np.bincount(blocks).max()) <= 3, bool((blocks >= 0).all())
    (True, True)
    """
    indptr, indices = csr_neighbours(graph)
    return bfs_blocks_csr(indptr, indices, block_size, rng)


def bfs_blocks_csr(indptr: np.ndarray, indices: np.ndarray, block_size: int, rng: np.random.Generator,
                   weights: np.ndarray | None = None, node_weight: np.ndarray | None = None,
                   max_weight: float = np.inf) -> np.ndarray:
    """:func:`bfs_blocks` on a CSR neighbour structure (``indptr``, ``indices``).

    With ``weights`` (the CSR's edge weights) a node reached by several frontier nodes in the same
    BFS step joins the block of its heaviest edge, and a block with little room keeps its
    heaviest newcomers [ours: heavy-edge preference, as in METIS' matching]; without, the first
    frontier node (in frontier order) wins. With ``node_weight``, a block also stops growing
    before its weight would exceed ``max_weight`` (a heavier node stays a block of its own)."""
    n = len(indptr) - 1
    if block_size < 1:
        raise ValueError("block_size must be >= 1")
    block = np.full(n, -1, np.int64)
    sizes: list[int] = []
    wsum = np.zeros(0)
    while True:
        free = np.flatnonzero(block < 0)
        if free.size == 0:
            break
        count = max(1, math.ceil(free.size / block_size))
        sources = free[rng.choice(free.size, size=min(count, free.size), replace=False)]
        first = len(sizes)
        block[sources] = first + np.arange(len(sources))
        sizes += [1] * len(sources)
        size_arr = np.asarray(sizes)
        if node_weight is not None:
            wsum = np.concatenate([wsum, node_weight[sources]]) if first else node_weight[sources].astype(float)
        frontier = sources
        while frontier.size:
            frontier = frontier[size_arr[block[frontier]] < block_size]
            if frontier.size == 0:
                break
            deg = indptr[frontier + 1] - indptr[frontier]
            owners = np.repeat(block[frontier], deg)
            starts = np.repeat(indptr[frontier], deg)
            offsets = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
            nbrs = indices[starts + offsets]
            fresh = block[nbrs] < 0
            nbrs, owners = nbrs[fresh], owners[fresh]
            if weights is not None:
                heavy = np.argsort(-weights[(starts + offsets)[fresh]], kind="stable")
                nbrs, owners = nbrs[heavy], owners[heavy]
            nbrs, first_idx = np.unique(nbrs, return_index=True)  # first frontier node to reach it wins
            owners = owners[first_idx]
            # keep at most (block_size - size) new nodes per block, in frontier order
            order = np.lexsort((first_idx, owners))
            nbrs, owners = nbrs[order], owners[order]
            group_start = np.searchsorted(owners, owners, side="left")
            rank = np.arange(len(owners)) - group_start
            room = block_size - size_arr[owners]
            keep = rank < room
            if node_weight is not None:
                cum = np.cumsum(node_weight[nbrs])
                before = (cum - node_weight[nbrs])[group_start]  # cumulated weight before each group
                keep &= wsum[owners] + cum - before <= max_weight
            nbrs, owners = nbrs[keep], owners[keep]
            block[nbrs] = owners
            size_arr = size_arr + np.bincount(owners, minlength=len(size_arr))
            if node_weight is not None:
                wsum = wsum + np.bincount(owners, weights=node_weight[nbrs], minlength=len(size_arr))
            frontier = nbrs
        sizes = size_arr.tolist()
    return block


def assign_blocks(graph: Graph, blocks: np.ndarray, k: int, node_weights: np.ndarray, capacities: np.ndarray,
                  *, penalty: bool = True) -> np.ndarray:
    """Part of every node after the greedy LDG-like block assignment (step 2).

    ``node_weights`` / ``capacities``: row 0 all nodes, row 1 training nodes. ``penalty=False``
    drops the balance factors (for tests: the capacities alone then decide ties).
    """
    n = graph.num_nodes
    nb = int(blocks.max()) + 1 if n else 0
    S = sp.csr_matrix((np.ones(n), (np.arange(n), blocks)), shape=(n, nb))
    A = graph.undirected().adjacency()
    Bmat = (S.T @ A @ S).tocsc()
    bw = np.stack([np.bincount(blocks, weights=row, minlength=nb) for row in node_weights])  # (2, nb)
    order = np.lexsort((-bw[0], -bw[-1]))  # most training nodes first (last row), then largest
    loads = np.zeros((node_weights.shape[0], k))
    conn = np.zeros((nb, k))
    block_part = np.full(nb, -1, np.int64)
    parts = np.full(n, -1, np.int64)
    members = np.split(np.argsort(blocks, kind="stable"), np.cumsum(np.bincount(blocks, minlength=nb))[:-1])
    caps = capacities
    for b in order.tolist():
        room = np.all(loads + bw[:, [b]] <= caps * (1 + LOAD_TOL) + LOAD_TOL, axis=0)
        if not room.any():
            for v in members[b].tolist():  # deal node by node to the parts with room
                fits = np.all(loads + node_weights[:, [v]] <= caps * (1 + LOAD_TOL) + LOAD_TOL, axis=0)
                cand = np.flatnonzero(fits) if fits.any() else np.arange(k)
                p = int(cand[np.argmin(loads[0, cand])])
                parts[v] = p
                loads[:, p] += node_weights[:, v]
            continue
        balance = np.prod(np.clip(1.0 - loads / caps, 0.0, None), axis=0) if penalty else np.ones(k)
        score = np.where(room, conn[b] * balance, -np.inf)
        best = score.max()
        tied = np.flatnonzero(score >= best - 1e-12 * max(1.0, abs(best)))
        p = int(tied[np.argmax(balance[tied])]) if penalty else int(tied[np.argmin(loads[0, tied])])
        block_part[b] = p
        parts[members[b]] = p
        loads[:, p] += bw[:, b]
        lo, hi = Bmat.indptr[b], Bmat.indptr[b + 1]
        conn[Bmat.indices[lo:hi], p] += Bmat.data[lo:hi]
    return parts


def _block_graph(graph: Graph, blocks: np.ndarray, node_weights: np.ndarray) -> tuple[Graph, np.ndarray]:
    n, nb = graph.num_nodes, int(blocks.max()) + 1
    S = sp.csr_matrix((np.ones(n), (np.arange(n), blocks)), shape=(n, nb))
    B = sp.triu(S.T @ graph.undirected().adjacency() @ S, 1).tocoo()
    bw = np.stack([np.bincount(blocks, weights=row, minlength=nb) for row in node_weights])
    return Graph(nb, B.row, B.col, B.data), bw


def bgl_partition(graph: Graph, k: int, node_weights: np.ndarray, capacities: np.ndarray, rng: np.random.Generator,
                  *, block_size: int | None = None, refine: bool = True, penalty: bool = True,
                  patience: int = 200, stop=None) -> tuple[np.ndarray, dict]:
    """Blocks, greedy assignment, then uncoarsening with FM at the block level and at the node
    level; returns ``(parts, stats)``. ``stop`` (True once the caller's budget is spent) cuts the
    FM refinements short (:func:`optsched.graphs.fm_refine`): the partition so far is returned.

    ``block_size`` defaults to 16 nodes [ours: on Cora and Citeseer, 8-16 gave the lowest traffic
    of 8, 16, 84 = n/(8K)]. A partition still above capacity after assignment (only when blocks
    had to be dealt node by node) is repaired by :func:`optsched.graphs.rebalance`.

    >>> from optsched.graphs import Graph
    >>> g = Graph.from_edges(8, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4)])
    >>> parts, _ = bgl_partition(g, 2, np.ones((1, 8)), np.full((1, 2), 5.0), np.random.default_rng(0), block_size=4)
    >>> g.cut_weight(parts)
    1.0
    """
    b = block_size or 16
    blocks = bfs_blocks(graph, b, rng)
    parts = assign_blocks(graph, blocks, k, node_weights, capacities, penalty=penalty)
    stats = {"blocks": int(blocks.max()) + 1, "block_size": b, "cut_after_assignment": graph.cut_weight(parts)}
    if not is_balanced(parts, node_weights, capacities):
        parts = rebalance(graph, parts, k, node_weights, capacities)
        stats["rebalanced"] = True
    elif refine:
        coarse, bw = _block_graph(graph, blocks, node_weights)
        block_parts = np.zeros(coarse.num_nodes, np.int64)
        block_parts[blocks] = parts
        if np.array_equal(block_parts[blocks], parts):  # no block was dealt node by node
            block_parts = fm_refine(coarse, block_parts, k, bw, capacities, patience=patience, max_passes=20,
                                    stop=stop)
            parts = block_parts[blocks]
        stats["cut_after_block_refinement"] = graph.cut_weight(parts)
    if refine:
        parts = fm_refine(graph, parts, k, node_weights, capacities, patience=patience, max_passes=20, stop=stop)
    return parts, stats


# --------------------------------------------------------------------------------------------
# multi-level BGL partitioner on CSR arrays (scales to 10^7 edges)
# --------------------------------------------------------------------------------------------

def _coarse_csr(indptr, indices, data, blocks, nb):
    """The block graph: ``S^T A S`` without its diagonal (edge weights summed), as CSR arrays."""
    n = len(indptr) - 1
    A = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    S = sp.csr_matrix((np.ones(n), (np.arange(n), blocks)), shape=(n, nb))
    C = (S.T @ A @ S).tocsr()
    C.setdiag(0)
    C.eliminate_zeros()
    C.sort_indices()
    # int32 column indices (scipy's own when they fit) keep every coarse level at 12 bytes per entry
    idx = C.indices if C.indices.dtype == np.int32 else C.indices.astype(np.int64)
    return C.indptr.astype(np.int64), idx, C.data.astype(np.float64)


def _group_isolated(blocks, indptr, weight, max_weight, held=None) -> np.ndarray:
    """[ours] Isolated nodes (no edge at this level) are free to group: consecutive ones (within
    one part of ``held``, when given) share a block up to ``max_weight``; other blocks unchanged;
    block ids renumbered ``0..``."""
    iso = np.flatnonzero(indptr[1:] == indptr[:-1])
    if iso.size < 2:
        return blocks
    if held is not None:
        iso = iso[np.argsort(held[iso], kind="stable")]
    cum = np.cumsum(weight[iso])
    chunk = np.floor((cum - weight[iso]) / max(max_weight, 1e-300)).astype(np.int64)  # start weight // bound
    if held is not None:
        hp = held[iso]
        new_part = np.concatenate([[True], hp[1:] != hp[:-1]])
        chunk = np.cumsum(new_part | np.concatenate([[True], chunk[1:] != chunk[:-1]])) - 1
    out = blocks.copy()
    out[iso] = blocks.max() + 1 + chunk
    _, out = np.unique(out, return_inverse=True)
    return out.astype(np.int64)


def _balanced(parts, k, w, caps) -> bool:
    loads = np.stack([np.bincount(parts, weights=row, minlength=k) for row in w])
    return bool(np.all(loads <= caps * (1 + LOAD_TOL) + LOAD_TOL))


def greedy_block_assignment(indptr, indices, data, k, w, caps, *, penalty: bool = True) -> np.ndarray:
    """BGL's greedy assignment on a (coarse) graph: nodes in decreasing order of training weight
    (the last row of ``w``), then of total weight, each to the part maximizing LDG's
    ``conn * prod_rows (1 - load / cap)`` among parts with room (``penalty=False``: ``conn`` alone,
    ties to the part with the most room)."""
    from optsched.graphs.kernels import stream_assign

    order = np.lexsort((-w[0], -w[-1]))
    if not penalty:
        return _greedy_no_penalty(indptr, indices, data, order, k, w, caps)
    return stream_assign(indptr, indices, data, order, k, w, caps, method="ldg")


def _greedy_no_penalty(indptr, indices, data, order, k, w, caps) -> np.ndarray:
    parts = np.full(len(indptr) - 1, -1, np.int64)
    loads = np.zeros((w.shape[0], k))
    for v in order.tolist():
        conn = np.zeros(k)
        nb = indices[indptr[v]:indptr[v + 1]]
        placed = parts[nb] >= 0
        np.add.at(conn, parts[nb[placed]], data[indptr[v]:indptr[v + 1]][placed])
        fits = np.all(loads + w[:, [v]] <= caps * (1 + LOAD_TOL) + LOAD_TOL, axis=0)
        if not fits.any():
            p = int(np.argmin(loads[0] / caps[0]))
        else:
            score = np.where(fits, conn, -np.inf)
            tied = np.flatnonzero(score >= score.max())
            p = int(tied[np.argmin(loads[0, tied])])
        parts[v] = p
        loads[:, p] += w[:, v]
    return parts


def bgl_multilevel(indptr, indices, data, k: int, node_weights, capacities, rng: np.random.Generator, *,
                   block_size: int = 2, coarsest: int | None = None, coarsest_per_part: int = 16, refine: bool = True, penalty: bool = True,
                   initial: str = "greedy", patience: int = 200, max_passes: int = 10,
                   seed: int = 0, heavy_edges: bool = False, grow: bool = True, weight_bound: bool = True, stall: float = 0.9,
                   group_isolated: bool = False, initial_trials: int = 4, start: np.ndarray | None = None,
                   poll=None) -> tuple[np.ndarray, dict]:
    """Multi-level BGL partitioner on the CSR arrays of the traffic-weighted graph.

    1. **Coarsening** [paper: multi-source BFS blocks; repeated levels ours]: BFS blocks of at
       most ``block_size`` nodes (:func:`bfs_blocks_csr`), the block graph's edge weights summed,
       node weights summed per row; repeated until at most ``coarsest`` (default
       ``coarsest_per_part * k``) nodes remain. A level that shrinks the graph by less than 10%
       (leaves and stars of power-law graphs) is retried with blocks twice as large (``grow``, up
       to 64) and otherwise ends the coarsening. ``heavy_edges`` [ours, off]: a contested node
       joins the block of its heaviest edge. ``group_isolated`` [ours, off: 1-2% more traffic on
       the tuning graphs]: nodes without edges at a level share blocks up to the weight bound.
    2. **Assignment** [paper: greedy with balance]: :func:`greedy_block_assignment` on the
       coarsest graph (``initial="greedy"``), or METIS on the coarsest graph (``initial="metis"``,
       [ours]); repaired by :func:`optsched.graphs.kernels.rebalance_csr` if a heavy block did not
       fit (at the coarsest level where the repair succeeds). [ours] ``initial_trials - 1`` more
       greedy assignments in random orders, each repaired and FM-refined on the coarsest graph;
       the lowest traffic is kept (``stats["initial_traffic"]``; the first is the paper's order).
    3. **Uncoarsening with refinement** [paper: uncoarsening; FM per level ours]: the parts
       projected level by level, each level refined by k-way FM under both balance rows
       (:func:`optsched.graphs.kernels.fm_refine_csr`).

    ``start`` (a partition of the nodes): a V-cycle instead -- blocks never straddle two parts of
    ``start`` and the coarsest level starts from it (no assignment), so the traffic never exceeds
    ``start``'s. Defaults [ours]: block size 2, 16 coarse nodes per part, ``grow`` on, 4 initial
    assignments (4 and 16 tied on the mean, 4 is cheaper at 10^7 edges), chosen on
    generated graphs (Chung-Lu and planted-community power-law graphs, seeds 101-102 and
    201-202), never on the evaluation graphs.

    ``poll`` (a callable, e.g. a method's clock check): called before every coarsening level, the
    assignment, every further initial assignment and every finer level's refinement; it stops the
    run by raising.

    Returns ``(parts, stats)``; ``stats["traffic_by_level"]`` lists the traffic after the
    assignment and after each finer level's refinement (finest last). Memory: the CSR arrays of
    each level (a geometric series when levels shrink) and ``n x k`` floats of FM connectivity.
    """
    from optsched.graphs.kernels import cut_csr, fm_refine_csr, rebalance_csr

    w = np.ascontiguousarray(np.asarray(node_weights, np.float64))
    w = w[None, :] if w.ndim == 1 else w
    caps = np.ascontiguousarray(np.asarray(capacities, np.float64))
    n = len(indptr) - 1
    target = coarsest if coarsest is not None else coarsest_per_part * k
    levels = []
    b = block_size
    # [ours] no block heavier than 1.5 x the mean weight of a coarsest node (as METIS bounds its
    # coarse vertex weights), so that the greedy assignment can balance the coarsest graph
    max_block = 1.5 * float(w[0].sum()) / target if weight_bound else np.inf
    cur = (indptr, indices, data, w)
    held = None if start is None else np.asarray(start, np.int64)  # the start's part of each node of `cur`
    while len(cur[0]) - 1 > target:
        if poll is not None:
            poll()
        ip, ix, dt, ww = cur
        bound = dict(node_weight=ww[0], max_weight=max_block) if max_block < np.inf else {}
        if held is None:
            blocks = bfs_blocks_csr(ip, ix, b, rng, dt if heavy_edges else None, **bound)
        else:  # V-cycle: blocks never straddle two parts of the start
            src = np.repeat(np.arange(len(ip) - 1), np.diff(ip))
            same = held[src] == held[ix]
            sip = np.concatenate([[0], np.cumsum(np.bincount(src[same], minlength=len(ip) - 1))]).astype(np.int64)
            blocks = bfs_blocks_csr(sip, ix[same], b, rng, dt[same] if heavy_edges else None, **bound)
        if group_isolated:
            blocks = _group_isolated(blocks, ip, ww[0], max_block if max_block < np.inf else float(b), held)
        nb = int(blocks.max()) + 1
        if nb > stall * (len(ip) - 1):
            if not grow or b >= 64:
                break
            b *= 2  # [ours] a stalled level (leaves, stars) tries blocks twice as large
            continue
        cw = np.stack([np.bincount(blocks, weights=row, minlength=nb) for row in ww])
        levels.append((cur, blocks))
        cur = (*_coarse_csr(ip, ix, dt, blocks, nb), cw)
        if held is not None:
            coarse_held = np.empty(nb, np.int64)
            coarse_held[blocks] = held
            held = coarse_held
    if poll is not None:  # before the assignment of the coarsest graph
        poll()
    ip, ix, dt, ww = cur
    stats: dict = {"levels": len(levels), "coarsest_nodes": len(ip) - 1, "block_size": block_size}
    if k == 1:
        return np.zeros(n, np.int64), stats
    if held is not None:
        parts = held
    elif initial == "metis" and len(ip) - 1 >= k:
        parts = _metis_csr(ip, ix, dt, k, ww, caps, seed)
    else:
        parts = greedy_block_assignment(ip, ix, dt, k, ww, caps, penalty=penalty)
    traffic = [float(cut_csr(ip, ix, dt, parts))]
    balanced = _balanced(parts, k, ww, caps)
    stats["assignment_balanced"] = balanced
    if not balanced:
        try:
            parts = rebalance_csr(ip, ix, dt, parts, k, ww, caps)
            balanced = True
        except ValueError:
            pass
    if refine and balanced:
        parts = fm_refine_csr(ip, ix, dt, parts, k, ww, caps, patience=patience, max_passes=max_passes)
    if held is None and initial == "greedy" and balanced and initial_trials > 1:
        # [ours] further greedy assignments of the coarsest graph in random orders, each repaired
        # and refined there; the lowest traffic is kept (METIS likewise tries several initial
        # partitions of its coarsest graph)
        parts = _best_of_trials(ip, ix, dt, parts, k, ww, caps, rng, initial_trials, refine, poll, stats,
                                patience=patience, max_passes=max_passes)
    for (fine, blocks) in reversed(levels):
        if poll is not None:
            poll()
        ip, ix, dt, ww = fine
        parts = parts[blocks]
        if not balanced:
            try:
                parts = rebalance_csr(ip, ix, dt, parts, k, ww, caps)
                balanced = True
            except ValueError:
                if ip is not indptr:
                    continue
                raise
        if refine:
            parts = fm_refine_csr(ip, ix, dt, parts, k, ww, caps, patience=patience, max_passes=max_passes)
        traffic.append(float(cut_csr(ip, ix, dt, parts)))
    stats["traffic_by_level"] = traffic
    return parts, stats


def _metis_csr(indptr, indices, data, k, w, caps, seed):
    import pymetis

    from optsched.graphs.partition import integer_edge_weights

    eps = float(np.min(caps * k / np.maximum(w.sum(axis=1, keepdims=True), 1e-300))) - 1.0
    opts = pymetis.Options()
    opts.seed = int(seed) % (2 ** 31)
    opts.ufactor = max(1, int(round(1000 * max(eps, 0.001))))
    vw = np.ascontiguousarray(np.rint(w.T)).astype(np.int64).ravel()
    A = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1,) * 2, copy=True)  # never the caller's arrays
    A.eliminate_zeros()
    csr = pymetis.CSRAdjacency(A.indptr.astype(np.int64), A.indices.astype(np.int64))
    eweights = integer_edge_weights(A.data) if A.nnz else None
    res = pymetis.part_graph(k, csr, vweights=vw, eweights=eweights, options=opts)
    return np.asarray(res.vertex_part, dtype=np.int64)


def bgl_vcycles(indptr, indices, data, k: int, node_weights, capacities, rng: np.random.Generator, *,
                vcycles: int = 2, poll=None, **kw) -> tuple[np.ndarray, dict]:
    """:func:`bgl_multilevel`, then ``vcycles - 1`` further V-cycles [ours: iterated multilevel, as
    in KaFFPa]: each re-coarsens with blocks inside the current parts, starts from the current
    partition at the coarsest level and refines back down (the traffic never increases).

    ``poll(parts)`` (e.g. a method's clock check) is called at every level inside each run, at
    least once per V-cycle, with the best partition so far (None during the first run); it stops
    the run by raising (a method's time limit, with that partition as its incumbent)."""
    from optsched.graphs.kernels import cut_csr

    run = kw.pop("engine", bgl_multilevel)
    first = None if poll is None else (lambda: poll(None))
    parts, stats = run(indptr, indices, data, k, node_weights, capacities, rng, poll=first, **kw)
    history = [float(cut_csr(indptr, indices, data, parts))]
    for _ in range(max(0, vcycles - 1)):
        held = parts  # a V-cycle's run polls at least once (before its coarsest level's start)
        inner = None if poll is None else (lambda: poll(held))
        parts, _st = run(indptr, indices, data, k, node_weights, capacities, rng, start=parts,
                                    poll=inner, **kw)
        history.append(float(cut_csr(indptr, indices, data, parts)))
    stats["traffic_by_vcycle"] = history
    return parts, stats


def bfs_node_order(indptr, indices, rng: np.random.Generator) -> np.ndarray:
    """Every node once, in BFS order from a random start, restarted at a random unvisited node per
    component (the stream order of the LDG / Fennel baselines; Stanton & Kliot found BFS order
    better than random). O(n + m) with vectorized frontiers."""
    n = len(indptr) - 1
    seen = np.zeros(n, bool)
    out = []
    perm = rng.permutation(n)
    isolated = perm[indptr[perm + 1] == indptr[perm]]  # streamed last, in random order
    seen[isolated] = True
    pos = 0
    while True:
        while pos < n and seen[perm[pos]]:
            pos += 1
        if pos >= n:
            break
        frontier = perm[pos:pos + 1]
        seen[frontier] = True
        while frontier.size:
            out.append(frontier)
            deg = indptr[frontier + 1] - indptr[frontier]
            starts = np.repeat(indptr[frontier], deg)
            offsets = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
            nbrs = indices[starts + offsets]
            nbrs = nbrs[~seen[nbrs]]
            nbrs, first = np.unique(nbrs, return_index=True)
            nbrs = nbrs[np.argsort(first, kind="stable")]
            seen[nbrs] = True
            frontier = nbrs
    out.append(isolated)
    return np.concatenate(out).astype(np.int64)


# --------------------------------------------------------------------------------------------
# method `bgl`: compiled label-propagation coarsening in BGL's BFS order (scales past 10^7 edges)
# --------------------------------------------------------------------------------------------

#: [ours] coarse nodes per part at which coarsening stops (tuning: README "bgl: the multi-level partitioner")
LEAN_COARSEST_PER_PART = 16
#: [ours] a cluster's weight bound, as a multiple of the mean weight of a coarsest node in every row
LEAN_BOUND_FACTOR = 1.5
#: [ours] a level that keeps more than this fraction of the nodes ends the coarsening
LEAN_STALL = 0.95
#: [ours] bgl's independent runs (best kept) when its ``trials`` option is 0: this many up to
#: LEAN_SMALL_EDGES edges, one above (README "bgl: the multi-level partitioner")
LEAN_SMALL_TRIALS = 4
LEAN_SMALL_EDGES = 200_000
#: [ours] above this many edges bgl runs its fast profile (LEAN_FAST): one V-cycle, 2 clustering
#: sweeps, 2 label-propagation sweeps and at most 3 FM passes per level. On the generated
#: 10^6-edge graph (Chung-Lu, seed 7, K = 8) the fast profile took 0.33x the CPU time of the full
#: one (1.5 s vs 4.7 s) for 0.6% more traffic (1.022x vs 1.016x METIS's; README "bgl: the multi-level partitioner")
LEAN_FAST_EDGES = 2_000_000
LEAN_FAST = {"vcycles": 1, "sweeps": 2, "lp_sweeps": 2, "fm_passes": 3}


def bgl_profile(num_edges: int, vcycles: int = 0) -> dict:
    """bgl_lean's keyword arguments for a graph of ``num_edges`` edges: the fast profile above
    LEAN_FAST_EDGES; ``vcycles`` (0: 2, or the profile's 1 above the threshold)."""
    kw = dict(LEAN_FAST) if num_edges > LEAN_FAST_EDGES else {"vcycles": 2}
    if vcycles:
        kw["vcycles"] = vcycles
    return kw


def _initial_assignment(ip, ix, dt, k, ww, caps, rng, trials, refine, poll, stats):
    """BGL's greedy assignment on the coarsest graph, then ``trials - 1`` greedy assignments in
    random orders, each repaired and FM-refined; the lowest traffic is kept."""
    from optsched.graphs.kernels import fm_refine_csr, rebalance_csr

    parts = greedy_block_assignment(ip, ix, dt, k, ww, caps)
    balanced = _balanced(parts, k, ww, caps)
    stats["assignment_balanced"] = balanced
    if not balanced:
        try:
            parts = rebalance_csr(ip, ix, dt, parts, k, ww, caps)
        except ValueError:
            return parts, False
    if refine:
        parts = fm_refine_csr(ip, ix, dt, parts, k, ww, caps)
    return _best_of_trials(ip, ix, dt, parts, k, ww, caps, rng, trials, refine, poll, stats), True


def _best_of_trials(ip, ix, dt, parts, k, ww, caps, rng, trials, refine, poll, stats, **fm_options):
    """``parts`` (a balanced assignment of the coarsest graph, refined when ``refine``) or the best
    of ``trials - 1`` LDG assignments in random node orders, each repaired and FM-refined
    (``fm_options`` go to :func:`fm_refine_csr`) [ours]: the lowest traffic is kept, the first on a
    tie. ``stats["initial_traffic"]`` lists every candidate's traffic."""
    from optsched.graphs.kernels import cut_csr, fm_refine_csr, rebalance_csr, stream_assign

    best_cut = float(cut_csr(ip, ix, dt, parts))
    stats["initial_traffic"] = [best_cut]
    for _ in range(trials - 1):
        if poll is not None:
            poll()
        trial = stream_assign(ip, ix, dt, rng.permutation(len(ip) - 1), k, ww, caps, method="ldg")
        try:
            trial = rebalance_csr(ip, ix, dt, trial, k, ww, caps)
        except ValueError:
            continue
        if refine:
            trial = fm_refine_csr(ip, ix, dt, trial, k, ww, caps, **fm_options)
        c = float(cut_csr(ip, ix, dt, trial))
        stats["initial_traffic"].append(c)
        if c < best_cut:
            best_cut, parts = c, trial
    return parts


def bgl_lean(indptr, indices, data, k: int, node_weights, capacities, rng: np.random.Generator, *,
             coarsest_per_part: int = LEAN_COARSEST_PER_PART, bound_factor: float = LEAN_BOUND_FACTOR,
             sweeps: int = 3, two_hop: bool = True, order: str = "bfs", refine: bool = True, lp: bool = True,
             fm: bool = True, fm_max_edges: int | None = None, initial_trials: int = 16, start=None,
             stall: float = LEAN_STALL, level_factor: float | None = None, lp_sweeps: int = 4,
             fm_passes: int = 10, poll=None) -> tuple[np.ndarray, dict]:
    """Method ``bgl``'s multilevel run on CSR arrays (README "bgl: the multi-level partitioner").

    1. Coarsening: :func:`.lean.cluster_level` (label propagation in BGL's BFS order, clusters
       bounded by ``bound_factor`` x the mean weight of a coarsest node in every row, two-hop
       grouping of leftover singletons), :func:`.lean.contract`; until at most
       ``coarsest_per_part * k`` nodes remain or a level keeps more than ``stall`` of them.
    2. Assignment: BGL's greedy (LDG-like) assignment of the coarsest graph plus
       ``initial_trials - 1`` random-order ones, each repaired and FM-refined, best kept.
    3. Uncoarsening: at each level the parts projected, then :func:`.lean.lp_refine` (``lp``) and
       k-way FM (``fm``; skipped on levels above ``fm_max_edges`` CSR entries, where its
       ``n x k`` table would dominate memory).

    ``start``: a V-cycle (clusters inside its parts, the coarsest level starts from it; the
    traffic never exceeds ``start``'s). ``poll``: called before every level and assignment."""
    from optsched.graphs.kernels import cut_csr, fm_refine_csr, rebalance_csr

    from .lean import bfs_order, cluster_level, contract, lp_refine

    w = np.ascontiguousarray(np.asarray(node_weights, np.float64))
    w = w[None, :] if w.ndim == 1 else w
    caps = np.ascontiguousarray(np.asarray(capacities, np.float64))
    n = len(indptr) - 1
    target = max(k, coarsest_per_part * k)
    bound = np.maximum(bound_factor * w.sum(axis=1) / target, w.max(axis=1) if n else 0.0)
    levels = []
    cur = (indptr, indices, data, w)
    held = None if start is None else np.asarray(start, np.int64)
    while len(cur[0]) - 1 > target:  # coarsening levels
        if poll is not None:
            poll()
        ip, ix, dt, ww = cur
        nodes = len(ip) - 1
        visit = bfs_order(ip, ix, rng) if order == "bfs" else rng.permutation(nodes)
        lb = bound if level_factor is None else np.minimum(bound, np.maximum(
            level_factor * ww.sum(axis=1) / nodes, ww.max(axis=1)))
        cl, nc = cluster_level(ip, ix, dt, ww, lb, visit, sweeps=sweeps, held=held, two_hop=two_hop)
        del visit
        if nc > stall * nodes:
            break
        levels.append((cur, cl))
        cur = contract(ip, ix, dt, cl, nc, ww)
        if held is not None:
            coarse_held = np.empty(nc, np.int64)
            coarse_held[cl] = held
            held = coarse_held
    if poll is not None:
        poll()
    ip, ix, dt, ww = cur
    stats: dict = {"levels": len(levels), "coarsest_nodes": len(ip) - 1,
                   "nodes_by_level": [len(c[0]) - 1 for c, _ in levels] + [len(ip) - 1]}
    if k == 1:
        return np.zeros(n, np.int64), stats
    if held is not None:
        parts, balanced = held, True
    else:
        parts, balanced = _initial_assignment(ip, ix, dt, k, ww, caps, rng, initial_trials, refine, poll, stats)
    traffic = [float(cut_csr(ip, ix, dt, parts))]

    def improve(ip, ix, dt, ww, parts):
        if refine and lp:
            parts = lp_refine(ip, ix, dt, parts, k, ww, caps, rng, max_sweeps=lp_sweeps)
            if poll is not None and fm:
                poll()
        if refine and fm and (fm_max_edges is None or len(ix) <= fm_max_edges):
            parts = fm_refine_csr(ip, ix, dt, parts, k, ww, caps, max_passes=fm_passes)
        return parts

    for (fine, cl) in reversed(levels):
        if poll is not None:
            poll()
        ip, ix, dt, ww = fine
        parts = parts[cl]
        del cl
        if not balanced:
            try:
                parts = rebalance_csr(ip, ix, dt, parts, k, ww, caps)
                balanced = True
            except ValueError:
                if ip is not indptr:
                    continue
                raise
        if balanced:
            parts = improve(ip, ix, dt, ww, parts)
        traffic.append(float(cut_csr(ip, ix, dt, parts)))
    levels.clear()
    stats["traffic_by_level"] = traffic
    return parts, stats
