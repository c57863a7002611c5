"""Contiguous chain partition (chains-on-chains), below the problems.

Cut a chain of ``n`` non-negative weights into ``K`` contiguous segments, one per processor in a
fixed order, processor ``k`` of speed ``s_k``:

* :func:`min_max_partition` -- minimize the bottleneck ``max_k W_k / s_k`` (plus, optionally, a
  cost per cut position that also enters the maximum). Exact: threshold probe over prefix sums,
  real bisection and then a search over the exact candidate values (Nicol-style parametric
  search), O(n log n) time for homogeneous speeds, O(n) memory.
* :func:`min_max_dp` -- the same optimum by dynamic programming over prefix sums,
  O(K n log n) time, O(K n) memory (an independent route for tests and small chains).
* :func:`min_sum_partition` -- minimize ``sum_k cost_k(segment)`` for any segment cost,
  O(K n^2) time, O(K n) memory.
* :func:`probe` -- the greedy feasibility test of a threshold (the building block).
* :func:`brute_min_max` -- enumeration for tests.

Problems that cut a chain into contiguous blocks (pipeline stages, space-filling-curve domains) use it.
"""

from __future__ import annotations

from .partition import (ChainPartition, brute_min_max, min_max_dp, min_max_partition, min_sum_partition,
                        probe, segment_loads)

__all__ = ["ChainPartition", "min_max_partition", "min_max_dp", "min_sum_partition", "probe",
           "brute_min_max", "segment_loads"]
