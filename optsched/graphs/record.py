"""The graph record shared by device, operator and data graphs [ours].

A :class:`Graph` is a frozen set of arrays: ``num_nodes`` nodes ``0..n-1``, ``m`` edges given by
``src``, ``dst`` and ``weight`` (float), whether the edges are ``directed``, and optional per-node
``node_weight`` and ``names``. Arrays are numpy, so graphs of 10^6 edges cost a few arrays, not
a Python object per edge; :meth:`Graph.to_networkx` and :meth:`Graph.from_networkx` convert for
everything networkx already does well.

>>> g = Graph.from_edges(3, [(0, 1, 2.0), (1, 2, 1.0)])
>>> g.num_edges, g.directed
(2, False)
>>> g.cut_weight([0, 0, 1])
1.0
>>> sorted(g.to_networkx().edges(data="weight"))
[(0, 1, 2.0), (1, 2, 1.0)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["Graph"]


def _array(values, dtype, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    arr = arr.copy()
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Graph:
    """Nodes ``0..num_nodes-1`` and weighted edges ``(src[i], dst[i], weight[i])``.

    Parallel edges are allowed (they add up in :meth:`adjacency`); self-loops are rejected.
    Validation raises :class:`ValueError` with the offending index; problem instances wrap it
    into their own :class:`~optsched.core.errors.InvalidInstanceError`.
    """

    num_nodes: int
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    directed: bool = False
    node_weight: np.ndarray | None = None
    names: tuple[str, ...] | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        n = int(self.num_nodes)
        if n < 0:
            raise ValueError(f"num_nodes must be >= 0, got {n}")
        object.__setattr__(self, "num_nodes", n)
        src = _array(self.src, np.int64, "src")
        dst = _array(self.dst, np.int64, "dst")
        w = _array(self.weight, np.float64, "weight")
        if not (len(src) == len(dst) == len(w)):
            raise ValueError(f"src, dst and weight differ in length ({len(src)}, {len(dst)}, {len(w)})")
        for name, arr in (("src", src), ("dst", dst)):
            bad = np.flatnonzero((arr < 0) | (arr >= n))
            if bad.size:
                raise ValueError(f"{name}[{bad[0]}] = {arr[bad[0]]} is not a node of a graph with {n} nodes")
        loops = np.flatnonzero(src == dst)
        if loops.size:
            raise ValueError(f"edge {loops[0]} is a self-loop on node {src[loops[0]]}")
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise ValueError(f"weight[{bad[0]}] = {w[bad[0]]} must be finite and >= 0")
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "weight", w)
        if self.node_weight is not None:
            nw = _array(self.node_weight, np.float64, "node_weight")
            if len(nw) != n:
                raise ValueError(f"node_weight has {len(nw)} entries for {n} nodes")
            bad = np.flatnonzero(~np.isfinite(nw) | (nw < 0))
            if bad.size:
                raise ValueError(f"node_weight[{bad[0]}] = {nw[bad[0]]} must be finite and >= 0")
            object.__setattr__(self, "node_weight", nw)
        if self.names is not None:
            names = tuple(str(x) for x in self.names)
            if len(names) != n:
                raise ValueError(f"names has {len(names)} entries for {n} nodes")
            object.__setattr__(self, "names", names)

    # construction -----------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, num_nodes: int, edges: Iterable[Sequence], *, directed: bool = False,
                   node_weight=None, names=None) -> "Graph":
        """From ``(u, v)`` or ``(u, v, weight)`` tuples (weight 1 when absent)."""
        rows = [tuple(e) for e in edges]
        src = [int(e[0]) for e in rows]
        dst = [int(e[1]) for e in rows]
        w = [float(e[2]) if len(e) > 2 else 1.0 for e in rows]
        return cls(num_nodes, src, dst, w, directed, node_weight, names)

    @classmethod
    def from_networkx(cls, graph, weight: str = "weight", node_weight: str | None = None) -> "Graph":
        """From a networkx graph; nodes are relabelled ``0..n-1`` in ``graph.nodes`` order and the
        original labels kept as ``names``."""
        nodes = list(graph.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        src, dst, w = [], [], []
        for u, v, d in graph.edges(data=True):
            src.append(index[u])
            dst.append(index[v])
            w.append(float(d.get(weight, 1.0)))
        nw = None
        if node_weight is not None:
            nw = [float(graph.nodes[v].get(node_weight, 0.0)) for v in nodes]
        return cls(len(nodes), src, dst, w, graph.is_directed(), nw, tuple(str(v) for v in nodes))

    def to_networkx(self):
        """A networkx ``Graph``/``DiGraph`` (a ``Multi`` one never: parallel edges are summed)."""
        import networkx as nx

        g = nx.DiGraph() if self.directed else nx.Graph()
        g.add_nodes_from(range(self.num_nodes))
        if self.node_weight is not None:
            for v, x in enumerate(self.node_weight.tolist()):
                g.nodes[v]["weight"] = x
        if self.names is not None:
            for v, name in enumerate(self.names):
                g.nodes[v]["name"] = name
        for u, v, w in zip(self.src.tolist(), self.dst.tolist(), self.weight.tolist()):
            if g.has_edge(u, v):
                g[u][v]["weight"] += w
            else:
                g.add_edge(u, v, weight=w)
        return g

    # views ------------------------------------------------------------------------------------
    @property
    def num_edges(self) -> int:
        return len(self.src)

    def adjacency(self) -> sp.csr_matrix:
        """The weighted adjacency matrix (symmetric when undirected; parallel edges summed)."""
        if "adj" not in self._cache:
            n = self.num_nodes
            if self.directed:
                rows, cols, vals = self.src, self.dst, self.weight
            else:
                rows = np.concatenate([self.src, self.dst])
                cols = np.concatenate([self.dst, self.src])
                vals = np.concatenate([self.weight, self.weight])
            self._cache["adj"] = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
        return self._cache["adj"]

    def undirected(self) -> "Graph":
        """The same edges, undirected (a directed graph's u->v and v->u stay two parallel edges)."""
        if not self.directed:
            return self
        return Graph(self.num_nodes, self.src, self.dst, self.weight, False, self.node_weight, self.names)

    def degree(self) -> np.ndarray:
        """Number of incident edges per node (both directions for a directed graph)."""
        return np.bincount(np.concatenate([self.src, self.dst]), minlength=self.num_nodes)

    def cut_weight(self, parts: Sequence[int]) -> float:
        """Total weight of the edges whose endpoints lie in different parts."""
        p = np.asarray(parts)
        if p.shape != (self.num_nodes,):
            raise ValueError(f"parts must have one entry per node ({self.num_nodes}), got shape {p.shape}")
        return float(self.weight[p[self.src] != p[self.dst]].sum())

    def topological_order(self) -> np.ndarray:
        """A topological order of a directed acyclic graph (Kahn's algorithm, smallest index
        first among ready nodes); :class:`ValueError` naming a node on a cycle otherwise."""
        if not self.directed:
            raise ValueError("a topological order needs a directed graph")
        import heapq

        indeg = np.bincount(self.dst, minlength=self.num_nodes)
        order_idx = np.argsort(self.src, kind="stable")
        starts = np.searchsorted(self.src[order_idx], np.arange(self.num_nodes + 1))
        ready = [v for v in range(self.num_nodes) if indeg[v] == 0]
        heapq.heapify(ready)
        indeg = indeg.copy()
        out = []
        while ready:
            v = heapq.heappop(ready)
            out.append(v)
            for e in order_idx[starts[v]:starts[v + 1]]:
                w = int(self.dst[e])
                indeg[w] -= 1
                if indeg[w] == 0:
                    heapq.heappush(ready, w)
        if len(out) != self.num_nodes:
            stuck = int(np.flatnonzero(indeg > 0)[0])
            raise ValueError(f"the graph has a cycle through node {stuck}")
        return np.asarray(out, dtype=np.int64)
