"""The ``graph-partition`` instance (sampling-locality partition of a GNN data graph) and its checker.

Objective (authoritative; docs ``optsched/problems/graph_partition/README.md`` [recon], optsched's formulation): minimize the sampling
traffic ``sum_{ {u,v} in E, part(u) != part(v) } w_uv``, where ``w_uv`` is the expected number of
traversals of edge ``{u, v}`` per epoch by fan-out sampling from the training nodes
(:func:`optsched.graphs.sampling.sampling_edge_weights`), subject to
``|Train ∩ P_i| <= (1 + eps_train) |Train| / K`` and ``|P_i| <= (1 + eps_nodes) |V| / K`` for every
part ``i``.

Solution schema: ``{"parts": [part of node 0, part of node 1, ...]}`` (ints in ``0..K-1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport
from optsched.graphs import Graph, part_loads
from optsched.graphs.partition import LOAD_TOL
from optsched.graphs.sampling import sampling_edge_weights

__all__ = ["GraphPartitionInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize sum of w_uv over edges {u,v} cut by the partition (w = expected traversals per epoch "
             "of fan-out sampling from the training nodes) s.t. |Train ∩ P_i| <= (1+eps_train)|Train|/K and "
             "|P_i| <= (1+eps_nodes)|V|/K")
#: the objective's unit, printed after its value by ``optsched solve`` (expected edge traversals per epoch of
#: sampling)
OBJECTIVE_UNIT = "traversals/epoch"
SOLUTION_SCHEMA = '{"parts": [part index of node v, for v = 0..n-1]}  (ints in 0..K-1)'


@dataclass(frozen=True)
class GraphPartitionInstance(Instance):
    """A simple undirected data graph, its training nodes, K parts, fan-outs and balance tolerances."""

    problem = "graph-partition"
    num_nodes: int
    edges: tuple[tuple[int, int], ...]
    train_nodes: tuple[int, ...]
    num_parts: int
    fanouts: tuple[int, ...] = (10, 5)
    eps_train: float = 0.05
    eps_nodes: float = 0.05
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n, K = self.num_nodes, self.num_parts
        self.require(n >= 1, "num_nodes", "must be >= 1", n)
        self.require(1 <= K <= n, "num_parts", f"must be in 1..num_nodes ({n})", K)
        self.require(len(self.fanouts) >= 1, "fanouts", "must list at least one hop", self.fanouts)
        for h, f in enumerate(self.fanouts):
            self.require(f >= 1, f"fanouts[{h}]", "must be >= 1", f)
        for name in ("eps_train", "eps_nodes"):
            v = getattr(self, name)
            self.require(0 <= v < math.inf, name, "must be >= 0 and finite", v)
        self._validate_edges(n)
        self.require(len(self.train_nodes) >= 1, "train_nodes", "must list at least one node")
        self.require(len(set(self.train_nodes)) == len(self.train_nodes), "train_nodes", "must be distinct")
        for i, v in enumerate(self.train_nodes):
            self.require(0 <= v < n, f"train_nodes[{i}]", f"must be a node 0..{n - 1}", v)
        # a stratified round-robin deal puts at most ceil(T/K) training and ceil(n/K) nodes on a
        # part; below those the balance rows may be infeasible, so such tolerances are rejected
        T = len(self.train_nodes)
        self.require(math.ceil(T / K) <= self.capacity_train * (1 + LOAD_TOL), "eps_train",
                     f"capacity (1+eps_train)|Train|/K = {self.capacity_train:g} is below ceil(|Train|/K) = "
                     f"{math.ceil(T / K)}", self.eps_train)
        self.require(math.ceil(n / K) <= self.capacity_nodes * (1 + LOAD_TOL), "eps_nodes",
                     f"capacity (1+eps_nodes)|V|/K = {self.capacity_nodes:g} is below ceil(|V|/K) = "
                     f"{math.ceil(n / K)}", self.eps_nodes)

    def _validate_edges(self, n: int) -> None:
        """Endpoints in range, no self-loop, no repeated edge; the first bad edge is named. Checked
        in numpy (10^7 edges in about a second); the loop below runs only up to the first bad edge
        found that way, or on endpoints numpy cannot hold, and gives the same message."""
        first = len(self.edges)
        try:
            e = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        except (OverflowError, ValueError, TypeError):
            e = None
        if e is not None and n < 2 ** 31:  # keys u * n + v below 2^62
            u, v = e[:, 0], e[:, 1]
            bad = (u < 0) | (u >= n) | (v < 0) | (v >= n) | (u == v)
            keys = np.minimum(u, v) * np.int64(n) + np.maximum(u, v)
            _, firsts = np.unique(keys, return_index=True)
            repeat = np.ones(len(keys), dtype=bool)
            repeat[firsts] = False
            found = np.flatnonzero(bad | repeat)
            first = int(found[0]) + 1 if found.size else 0
        seen = set()
        for i, (u, v) in enumerate(self.edges[:first]):
            self.require(0 <= u < n and 0 <= v < n, f"edges[{i}]", f"endpoints must be nodes 0..{n - 1}", (u, v))
            self.require(u != v, f"edges[{i}]", "must not be a self-loop", (u, v))
            key = (min(u, v), max(u, v))
            self.require(key not in seen, f"edges[{i}]", "repeats an earlier edge (the graph must be simple)", (u, v))
            seen.add(key)

    @property
    def capacity_train(self) -> float:
        return (1 + self.eps_train) * len(self.train_nodes) / self.num_parts

    @property
    def capacity_nodes(self) -> float:
        return (1 + self.eps_nodes) * self.num_nodes / self.num_parts

    @cached_property
    def structure(self) -> Graph:
        """The unweighted graph."""
        e = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        return Graph(self.num_nodes, e[:, 0], e[:, 1], np.ones(len(e)))

    @cached_property
    def edge_weights(self) -> np.ndarray:
        """Expected traversals per epoch of every edge (in ``edges`` order)."""
        return sampling_edge_weights(self.structure, self.train_nodes, self.fanouts)

    @cached_property
    def graph(self) -> Graph:
        """The graph weighted by sampling traffic."""
        s = self.structure
        return Graph(self.num_nodes, s.src, s.dst, self.edge_weights)

    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, indices, data)`` of the symmetric traffic-weighted adjacency (for the kernels of
        :mod:`optsched.graphs.kernels`)."""
        from optsched.graphs.kernels import csr_arrays

        return csr_arrays(self.graph)

    @cached_property
    def node_weights(self) -> np.ndarray:
        """``(2, n)``: row 0 ones (all nodes), row 1 the training indicator."""
        w = np.zeros((2, self.num_nodes))
        w[0] = 1.0
        w[1, list(self.train_nodes)] = 1.0
        return w

    @cached_property
    def capacities(self) -> np.ndarray:
        """``(2, K)`` capacities matching :attr:`node_weights`."""
        return np.vstack([np.full(self.num_parts, self.capacity_nodes), np.full(self.num_parts, self.capacity_train)])


def check(instance: GraphPartitionInstance, solution) -> CheckReport:
    """Verify a partition from the instance alone; objective = sampling traffic of the cut edges."""
    if not isinstance(solution, dict) or set(solution) != {"parts"}:
        return CheckReport(False, None, ['solution must be an object {"parts": [...]}'])
    parts = solution["parts"]
    n, K = instance.num_nodes, instance.num_parts
    if not isinstance(parts, list) or len(parts) != n:
        return CheckReport(False, None, [f"parts must be a list of {n} part indices"])
    if not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p < K for p in parts):
        return CheckReport(False, None, [f"every part index must be an int in 0..{K - 1}"])
    p = np.asarray(parts, dtype=np.int64)
    violations = []
    loads = part_loads(p, K, instance.node_weights)
    for i in range(K):
        if loads[0, i] > instance.capacity_nodes * (1 + LOAD_TOL):
            violations.append(f"part {i}: {loads[0, i]:g} nodes exceed (1+eps_nodes)|V|/K = {instance.capacity_nodes:g}")
        if loads[1, i] > instance.capacity_train * (1 + LOAD_TOL):
            violations.append(f"part {i}: {loads[1, i]:g} training nodes exceed (1+eps_train)|Train|/K = "
                              f"{instance.capacity_train:g}")
    s = instance.structure
    cut = p[s.src] != p[s.dst]
    objective = float(instance.edge_weights[cut].sum())
    return CheckReport.from_violations(violations, objective, edge_cut=int(cut.sum()),
                                       node_loads=loads[0].tolist(), train_loads=loads[1].tolist())
