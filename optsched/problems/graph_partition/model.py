"""Exact methods for ``graph-partition``: the MILP (on the shared min-cut model) and brute force.

MILP [recon, docs ``optsched/problems/graph_partition/README.md``]: binary ``x[v, p]``, ``sum_p x[v, p] = 1``, ``z[e, p] >=
|x[u, p] - x[v, p]|``, minimize ``sum_e w_e sum_p z[e, p] / 2``, both balance rows as capacities,
node 0 fixed to part 0 (the parts are interchangeable, so this loses no optimum).
"""

from __future__ import annotations

import itertools

import numpy as np

from optsched.graphs import decode_assignment, min_cut_model

from .instance import GraphPartitionInstance

__all__ = ["build_model", "decode", "brute_force", "BRUTE_MAX_ASSIGNMENTS"]

BRUTE_MAX_ASSIGNMENTS = 200_000


def build_model(instance: GraphPartitionInstance):
    """The MILP as a :class:`~optsched.core.linear.LinearModel` (blocks ``x`` (n, K), ``z`` (m, K))."""
    g = instance.graph
    model, _ = min_cut_model(instance.num_nodes, g.src, g.dst, g.weight, instance.capacities,
                             node_weights=instance.node_weights, fixed={0: 0}, name="graph-partition")
    return model


def decode(instance: GraphPartitionInstance, model, x: np.ndarray) -> dict:
    return {"parts": decode_assignment(model, x, list(range(instance.num_parts)))}


def brute_force(instance: GraphPartitionInstance) -> tuple[float, list[int]]:
    """Every assignment with node 0 in part 0 (K^(n-1)); balance and cut computed here from the
    edge list and training list directly, not through the checker."""
    n, K = instance.num_nodes, instance.num_parts
    train = set(instance.train_nodes)
    w = instance.edge_weights.tolist()
    edges = list(instance.edges)
    best, best_parts = np.inf, None
    for rest in itertools.product(range(K), repeat=n - 1):
        parts = (0, *rest)
        nodes = [0] * K
        trains = [0] * K
        for v, p in enumerate(parts):
            nodes[p] += 1
            trains[p] += v in train
        if max(nodes) > instance.capacity_nodes + 1e-9 or max(trains) > instance.capacity_train + 1e-9:
            continue
        cut = sum(wi for (u, v), wi in zip(edges, w) if parts[u] != parts[v])
        if cut < best:
            best, best_parts = cut, list(parts)
    return best, best_parts
