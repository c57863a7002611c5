"""``graph-partition``: sampling-locality partition of a GNN data graph (BGL, NSDI'23; docs
``optsched/problems/graph_partition/README.md``).

Minimize the expected cross-partition traversals of k-hop fan-out sampling from the training nodes,
with both the training nodes and all nodes balanced within ``1 + eps``. Methods: ``milp`` and
``brute`` (exact); ``auto`` (the default: the better of ``metis-fm`` and ``bgl`` up to 2,000,000
edges, ``metis-fm`` above); ``bgl`` (multi-level BFS blocks + LDG-like greedy assignment + FM per level,
reconstruction), ``bgl-1level``, ``metis-fm`` (METIS + FM, ours); baselines ``metis``, ``ldg``,
``fennel``, ``kl``, ``hash``, ``random``. Importers: ``planetoid-graph``, ``edge-list``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import assign_blocks, bfs_blocks, bgl_multilevel, bgl_partition, bgl_vcycles
from .generate import from_graph, generate, import_edge_list, import_planetoid
from .instance import GraphPartitionInstance, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "GraphPartitionInstance", "check", "generate", "from_graph", "import_planetoid",
           "import_edge_list", "bgl_partition", "bgl_multilevel", "bgl_vcycles", "bfs_blocks", "assign_blocks",
           "methods"]
