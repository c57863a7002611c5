"""Balanced k-way graph partition: cut, loads, capacities, METIS, hash and random baselines.

A *partition* of a :class:`~optsched.graphs.Graph` into ``k`` parts is an int array ``parts``
(one part per node). Balance is stated with ``node_weights``, an array ``(ncon, n)`` of
non-negative weights (several constraints at once: e.g. row 0 counts every node, row 1 only
training nodes), and ``capacities`` ``(ncon, k)``; a partition is balanced when every part's load
is at most its capacity in every row.

* :func:`edge_cut` -- total weight of the edges between parts.
* :func:`part_loads`, :func:`balance_capacities`, :func:`is_balanced`.
* :func:`metis_partition` -- multilevel k-way partition by METIS (Karypis & Kumar 1998) through
  ``pymetis``, multi-constraint, edge weights scaled to integers.
* :func:`hash_partition`, :func:`random_partition` -- the baselines of distributed GNN systems.

Balanced partitioning has no polynomial finite-factor approximation unless P = NP (Andreev &
Räcke 2006) [classical]: every heuristic here comes without a guarantee.

>>> from optsched.graphs import Graph
>>> g = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3)])
>>> edge_cut(g, [0, 0, 1, 1])
1.0
>>> caps = balance_capacities(np.ones((1, 4)), 2, eps=0.0)
>>> caps.tolist(), is_balanced([0, 0, 1, 1], np.ones((1, 4)), caps)
([[2.0, 2.0]], True)
"""

from __future__ import annotations

import numpy as np

from .record import Graph

__all__ = ["edge_cut", "part_loads", "balance_capacities", "is_balanced", "metis_partition",
           "hash_partition", "random_partition", "integer_edge_weights"]

#: slack when comparing a float load with its capacity (loads are sums of integers or of a few
#: floats; 1e-9 relative is far above their rounding error and far below one node's weight)
LOAD_TOL = 1e-9


def edge_cut(graph: Graph, parts) -> float:
    """Total weight of the edges whose endpoints lie in different parts."""
    return graph.cut_weight(parts)


def _weights(node_weights, n: int) -> np.ndarray:
    w = np.ones((1, n)) if node_weights is None else np.asarray(node_weights, float)
    if w.ndim == 1:
        w = w[None, :]
    if w.shape[1] != n:
        raise ValueError(f"node_weights must have {n} columns, got shape {w.shape}")
    return w


def part_loads(parts, k: int, node_weights=None) -> np.ndarray:
    """``(ncon, k)`` array: the sum of each weight row over each part."""
    p = np.asarray(parts, dtype=np.int64)
    w = _weights(node_weights, len(p))
    if p.size and (p.min() < 0 or p.max() >= k):
        raise ValueError(f"parts must lie in 0..{k - 1}")
    return np.stack([np.bincount(p, weights=row, minlength=k) for row in w])


def balance_capacities(node_weights, k: int, eps) -> np.ndarray:
    """``cap[c, p] = (1 + eps_c) * total_c / k``: the usual balance constraint, per weight row."""
    w = np.asarray(node_weights, float)
    if w.ndim == 1:
        w = w[None, :]
    eps = np.broadcast_to(np.asarray(eps, float), (w.shape[0],))
    return np.repeat(((1.0 + eps) * w.sum(axis=1) / k)[:, None], k, axis=1)


def is_balanced(parts, node_weights, capacities) -> bool:
    caps = np.asarray(capacities, float)
    loads = part_loads(parts, caps.shape[1], node_weights)
    return bool(np.all(loads <= caps * (1 + LOAD_TOL) + LOAD_TOL))


def integer_edge_weights(weight: np.ndarray, resolution: float = 1e4) -> np.ndarray:
    """Positive integer edge weights proportional to ``weight`` (METIS needs integers > 0):
    ``max(1, round(w * resolution / max(w)))``; cuts are then exact up to 1/resolution of the
    heaviest edge per edge."""
    w = np.asarray(weight, float)
    if w.size == 0:
        return np.zeros(0, np.int64)
    top = float(w.max())
    if top <= 0:
        return np.ones(len(w), np.int64)
    return np.maximum(1, np.rint(w * (resolution / top))).astype(np.int64)


def metis_partition(graph: Graph, k: int, node_weights=None, *, eps: float = 0.03, seed: int = 0,
                    recursive: bool | None = None) -> np.ndarray:
    """A k-way partition by METIS (multilevel coarsening, initial partition, FM refinement).

    ``node_weights`` ``(ncon, n)`` must be integral (multi-constraint METIS); ``eps`` becomes
    METIS' ``ufactor = 1000 eps`` (its allowed load imbalance). METIS balances to its own
    tolerance: check :func:`is_balanced` against exact capacities and repair with
    :func:`optsched.graphs.refine.rebalance` when needed. Edge weights are scaled to integers
    (:func:`integer_edge_weights`); zero-weight edges are dropped.

    Guarantee: none (heuristic). Complexity: O((n + m) log k) in METIS, plus O(n + m) to marshal.

    >>> from optsched.graphs import Graph
    >>> g = Graph.from_edges(6, [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)])
    >>> parts = metis_partition(g, 2)
    >>> edge_cut(g, parts)
    1.0

    Reference: G. Karypis and V. Kumar, SIAM J. Sci. Comput. 20(1), 1998.
    """
    import pymetis

    n = graph.num_nodes
    if k < 1:
        raise ValueError("k must be >= 1")
    if k == 1 or n == 0:
        return np.zeros(n, np.int64)
    if k > n:
        raise ValueError(f"cannot cut {n} nodes into {k} non-trivial METIS parts")
    g = graph.undirected()
    keep = g.weight > 0
    src, dst, w = g.src[keep], g.dst[keep], g.weight[keep]
    import scipy.sparse as sp

    adj = sp.csr_matrix((np.concatenate([w, w]), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                        shape=(n, n))
    adj.sum_duplicates()
    opts = pymetis.Options()
    opts.seed = int(seed) % (2 ** 31)
    opts.ufactor = max(1, int(round(1000 * eps)))
    vw = None
    if node_weights is not None:
        nw = _weights(node_weights, n)
        if not np.all(nw == np.round(nw)):
            raise ValueError("METIS needs integral node weights")
        vw = np.ascontiguousarray(nw.T.astype(np.int64).ravel())  # node-major: ncon weights per node
    # int64 arrays (METIS' idx_t in pymetis' wheels) are handed over without a Python list per entry
    eweights = integer_edge_weights(adj.data) if adj.nnz else None
    csr = pymetis.CSRAdjacency(adj.indptr.astype(np.int64), adj.indices.astype(np.int64))
    result = pymetis.part_graph(k, csr, vweights=vw, eweights=eweights, options=opts, recursive=recursive)
    return np.asarray(result.vertex_part, dtype=np.int64)


def hash_partition(n: int, k: int) -> np.ndarray:
    """Node ``v`` to part ``v mod k`` (the default of DistDGL-like systems without a partitioner)."""
    return np.arange(n, dtype=np.int64) % k


def random_partition(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random balanced partition: a random permutation dealt round-robin."""
    parts = np.empty(n, np.int64)
    parts[rng.permutation(n)] = np.arange(n) % k
    return parts
