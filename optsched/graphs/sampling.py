"""Data-graph machinery for GNN training: fan-out neighbour sampling, its expected edge traffic,
seed orders, generated power-law graphs and BFS balls.

* :func:`sampling_edge_weights` -- the expected number of traversals of every edge by k-hop
  fan-out sampling from the training seeds [ours; a reconstruction of BGL's sampling traffic].
* :func:`sample_neighbourhoods` -- real (seeded) k-hop fan-out sampling of mini-batches: the node
  ids whose features a mini-batch reads.
* :func:`bfs_order` -- the proximity-aware seed order (BFS over the graph, restricted to seeds).
* :func:`power_law_graph` -- a Chung-Lu graph with Pareto expected degrees, vectorized (10^6 nodes
  in seconds).
* :func:`bfs_ball` -- the induced subgraph of the first ``size`` nodes reached by BFS.

Sampling model (fan-out ``f_h`` at hop ``h``): a node reached at hop ``h - 1`` draws
``min(f_h, deg)`` distinct neighbours uniformly, so each incident edge is traversed with
probability ``p_u = min(1, f_h / deg(u))``. Every visit samples independently (no de-duplication
of a frontier), so by linearity of expectation the expected visits ``r_h = A_h^T r_{h-1}`` with
``r_0`` = the seed indicator, and edge ``{u, v}`` is traversed ``sum_h r_{h-1}(u) p_u +
r_{h-1}(v) p_v`` times in expectation, per epoch. For one hop this reduces to
``w = sum_{seed u} min(1, f / deg u)``.

>>> from optsched.graphs import Graph
>>> star = Graph.from_edges(4, [(0, 1), (0, 2), (0, 3)])
>>> sampling_edge_weights(star, [0], [2]).tolist()        # seed 0 takes 2 of its 3 edges
[0.6666666666666666, 0.6666666666666666, 0.6666666666666666]
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from optsched.core import portable

from .record import Graph

__all__ = ["sampling_edge_weights", "sample_neighbourhoods", "bfs_order", "power_law_graph", "bfs_ball",
           "csr_neighbours"]


def csr_neighbours(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the undirected adjacency (neighbours of v: ``indices[indptr[v]:indptr[v+1]]``)."""
    A = graph.undirected().adjacency().tocsr()
    A.sort_indices()
    return A.indptr.astype(np.int64), A.indices.astype(np.int64)


def sampling_edge_weights(graph: Graph, seeds: Sequence[int], fanouts: Sequence[int]) -> np.ndarray:
    """Expected traversals per epoch of every edge (in ``graph``'s edge order) by fan-out sampling.

    ``fanouts[h]`` is the fan-out at hop ``h + 1``; the graph must be simple (no parallel edges).
    Complexity O(hops * (n + m)).
    """
    g = graph.undirected()
    n = g.num_nodes
    deg = g.degree().astype(float)
    A = sp.csr_matrix((np.ones(2 * g.num_edges), (np.concatenate([g.src, g.dst]), np.concatenate([g.dst, g.src]))),
                      shape=(n, n))
    r = np.zeros(n)
    np.add.at(r, np.asarray(seeds, dtype=np.int64), 1.0)
    w = np.zeros(g.num_edges)
    for f in fanouts:
        if f < 1:
            raise ValueError(f"fan-outs must be >= 1, got {f}")
        p = np.divide(float(f), deg, out=np.zeros(n), where=deg > 0)
        p = np.minimum(1.0, p)
        out = r * p  # expected traversals of each edge incident to u, from u
        w += out[g.src] + out[g.dst]
        r = A.T @ out
    return w


def sample_neighbourhoods(graph: Graph, batches: Sequence[Sequence[int]], fanouts: Sequence[int],
                          rng: np.random.Generator) -> list[np.ndarray]:
    """For each mini-batch of seeds, the distinct nodes whose features it reads (the seeds and
    every node sampled within ``len(fanouts)`` hops), in first-visit order.

    Each frontier node draws ``min(f, deg)`` distinct neighbours uniformly (frontiers are
    de-duplicated per mini-batch, as DGL's sampler does).
    """
    indptr, indices = csr_neighbours(graph)
    out = []
    for batch in batches:
        seen: dict[int, None] = {int(v): None for v in batch}
        frontier = list(seen)
        for f in fanouts:
            nxt = []
            for u in frontier:
                nb = indices[indptr[u]:indptr[u + 1]]
                if len(nb) > f:
                    nb = nb[rng.choice(len(nb), size=f, replace=False)]
                for v in nb.tolist():
                    if v not in seen:
                        seen[v] = None
                        nxt.append(v)
            frontier = nxt
        out.append(np.fromiter(seen, dtype=np.int64, count=len(seen)))
    return out


def bfs_order(graph: Graph, seeds: Sequence[int], rng: np.random.Generator | None = None) -> np.ndarray:
    """The seeds in BFS order over the whole graph (proximity-aware order [3rd: BGL notes]):
    BFS from a start seed (random when ``rng`` is given, else the smallest), restarted from the
    next unvisited seed when a component is exhausted; non-seed nodes are walked through but not
    output. O(n + m).
    """
    indptr, indices = csr_neighbours(graph)
    is_seed = np.zeros(graph.num_nodes, bool)
    is_seed[np.asarray(seeds, dtype=np.int64)] = True
    seed_list = np.flatnonzero(is_seed)
    if rng is not None:
        seed_list = seed_list[rng.permutation(len(seed_list))]
    seen = np.zeros(graph.num_nodes, bool)
    out = []
    for s in seed_list.tolist():
        if seen[s]:
            continue
        seen[s] = True
        queue = deque([s])
        while queue:
            u = queue.popleft()
            if is_seed[u]:
                out.append(u)
            for v in indices[indptr[u]:indptr[u + 1]].tolist():
                if not seen[v]:
                    seen[v] = True
                    queue.append(v)
    return np.asarray(out, dtype=np.int64)


def power_law_graph(num_nodes: int, mean_degree: float, rng: np.random.Generator, exponent: float = 2.5) -> Graph:
    """A Chung-Lu random graph with Pareto(``exponent - 1``) expected degrees scaled to
    ``mean_degree``: ``m = n * mean_degree / 2`` endpoint pairs drawn proportional to the expected
    degrees, self-loops and repeats removed (so the realized mean degree is a little lower).
    O(m log m) (a sort to de-duplicate), vectorized.

    Reference: F. Chung and L. Lu, PNAS 2002.
    """
    n = int(num_nodes)
    if n < 2:
        raise ValueError("a power-law graph needs at least 2 nodes")
    if exponent <= 2:
        raise ValueError("exponent must be > 2 (finite mean degree)")
    weights = 1.0 + portable.pareto(rng, exponent - 1.0, size=n)
    weights = np.minimum(weights, np.sqrt(n) * weights.mean())  # structural cutoff
    p = weights / weights.sum()
    m = int(round(n * mean_degree / 2))
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    u = np.searchsorted(cdf, rng.random(m), side="right")
    v = np.searchsorted(cdf, rng.random(m), side="right")
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(a.astype(np.int64) * n + b)
    return Graph(n, key // n, key % n, np.ones(len(key)))


def bfs_ball(graph: Graph, root: int, size: int) -> tuple[Graph, np.ndarray]:
    """The subgraph induced by the first ``size`` nodes BFS reaches from ``root`` (neighbours in
    index order), relabelled ``0..size-1`` in BFS order (so the root is node 0); returns it and
    the original ids."""
    indptr, indices = csr_neighbours(graph)
    seen = {int(root): 0}
    queue = deque([int(root)])
    while queue and len(seen) < size:
        u = queue.popleft()
        for v in indices[indptr[u]:indptr[u + 1]].tolist():
            if v not in seen and len(seen) < size:
                seen[v] = len(seen)
                queue.append(v)
    ids = np.fromiter(seen, dtype=np.int64, count=len(seen))
    index = np.full(graph.num_nodes, -1, np.int64)
    index[ids] = np.arange(len(ids))
    g = graph.undirected()
    keep = (index[g.src] >= 0) & (index[g.dst] >= 0)
    return Graph(len(ids), index[g.src[keep]], index[g.dst[keep]], g.weight[keep]), ids
