"""Shared graph machinery, below the problems: one graph record and the algorithms on it.

Device graphs, operator graphs and data graphs are all held as a :class:`Graph` (arrays of
edge endpoints and weights, optional node weights and names; convertible to and from networkx).
Algorithms that more than one problem needs live in this package and import no problem:

* :mod:`.partition` -- edge cut, part loads and capacities, METIS k-way (multi-constraint),
  hash and random partitions;
* :mod:`.refine` -- Fiduccia-Mattheyses k-way refinement with balance constraints, rebalancing,
  pairwise Kernighan-Lin;
* :mod:`.placement` -- the capacitated min-cut MILP and the fills used by placement heuristics.
"""

from __future__ import annotations

from .partition import (balance_capacities, edge_cut, hash_partition, is_balanced, metis_partition, part_loads,
                        random_partition)
from .placement import decode_assignment, fill_in_order, min_cut_model, shuffled_fill
from .record import Graph
from .refine import connectivity, fm_refine, pairwise_kl_refine, rebalance

__all__ = ["Graph", "edge_cut", "part_loads", "balance_capacities", "is_balanced", "metis_partition",
           "hash_partition", "random_partition", "fm_refine", "rebalance", "pairwise_kl_refine", "connectivity",
           "min_cut_model", "decode_assignment", "fill_in_order", "shuffled_fill"]
