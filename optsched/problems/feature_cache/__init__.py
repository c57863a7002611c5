"""``feature-cache``: node-feature caching for GNN training (BGL, NSDI'23; docs ``optsched/problems/feature_cache/README.md``).

A cache of C node features serves the reads of one epoch of fan-out neighbour sampling (seeds in
random or proximity order). Methods: ``min`` (Belady's MIN, exact), ``brute`` (DP, tests),
baselines ``fifo`` (BGL's), ``lru``, ``static`` (highest degree). Importer ``planetoid-cache``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import belady_min, exact_dp, fifo, lru, static_degree
from .generate import access_sequence, from_graph, generate, import_planetoid_cache
from .instance import FeatureCacheInstance, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "FeatureCacheInstance", "check", "generate", "from_graph", "access_sequence",
           "import_planetoid_cache", "belady_min", "fifo", "lru", "static_degree", "exact_dp", "methods"]
