"""``graph-partition``: sampling-locality partition of a GNN data graph (BGL, NSDI'23; spec wave2 §3a).

Minimize the expected cross-partition traversals of k-hop fan-out sampling from the training nodes,
with both the training nodes and all nodes balanced within ``1 + eps``. Methods: ``milp`` and
``brute`` (exact), ``bgl`` (BFS blocks + LDG-like block assignment + FM, reconstruction),
baselines ``metis``, ``kl``, ``hash``, ``random``. Importers: ``planetoid-graph``, ``edge-list``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import assign_blocks, bfs_blocks, bgl_partition
from .generate import from_graph, generate, import_edge_list, import_planetoid
from .instance import GraphPartitionInstance, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "GraphPartitionInstance", "check", "generate", "from_graph", "import_planetoid",
           "import_edge_list", "bgl_partition", "bfs_blocks", "assign_blocks", "methods"]
