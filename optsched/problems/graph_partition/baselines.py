"""Baselines for ``graph-partition`` [ours]: METIS, Kernighan-Lin, hash and random.

* :func:`metis` -- METIS k-way on the sampling-traffic weights with both balance rows as
  multi-constraint vertex weights (``ufactor`` from the smaller eps); METIS balances to its own
  tolerance, so a result above an exact capacity is repaired by
  :func:`optsched.graphs.kernels.rebalance_csr` (cheapest moves, then cheapest swaps; the number of
  nodes moved is recorded).
* :func:`kernighan_lin` -- a random balanced start (:func:`stratified_deal`) refined by pairwise
  Kernighan-Lin swaps (networkx), which keep part sizes; swaps may unbalance the training row, which
  is then repaired the same way.
* :func:`stratified_deal` -- training nodes dealt round-robin in the given order, then the other
  nodes continuing the deal: at most ceil(|Train|/K) training and ceil(n/K) nodes per part, which
  the instance's tolerances always admit. ``hash`` deals in node-id order (v -> rank mod K within its
  stratum), ``random`` in a seeded random order.
"""

from __future__ import annotations

import numpy as np

from optsched.graphs import is_balanced, metis_partition, pairwise_kl_refine
from optsched.graphs.kernels import rebalance_csr

from .instance import GraphPartitionInstance

__all__ = ["stratified_deal", "metis", "kernighan_lin"]


def stratified_deal(instance: GraphPartitionInstance, order: np.ndarray) -> np.ndarray:
    """Round-robin deal of ``order`` (a permutation of the nodes), training nodes first."""
    is_train = instance.node_weights[1] > 0
    ranked = np.concatenate([order[is_train[order]], order[~is_train[order]]])
    parts = np.empty(instance.num_nodes, np.int64)
    parts[ranked] = np.arange(instance.num_nodes) % instance.num_parts
    return parts


def _repair(instance, parts, stats) -> np.ndarray:
    if is_balanced(parts, instance.node_weights, instance.capacities):
        stats["repaired_nodes"] = 0
        return parts
    fixed = rebalance_csr(*instance.csr, parts, instance.num_parts, instance.node_weights, instance.capacities)
    stats["repaired_nodes"] = int(np.sum(fixed != parts))
    return fixed


def metis(instance: GraphPartitionInstance, seed: int) -> tuple[np.ndarray, dict]:
    stats: dict = {}
    if instance.num_parts == 1:
        return np.zeros(instance.num_nodes, np.int64), stats
    eps = min(instance.eps_train, instance.eps_nodes)
    parts = metis_partition(instance.graph, instance.num_parts, instance.node_weights, eps=eps, seed=seed)
    stats["metis_cut"] = instance.graph.cut_weight(parts)
    return _repair(instance, parts, stats), stats


def kernighan_lin(instance: GraphPartitionInstance, rng: np.random.Generator, max_rounds: int) -> tuple[np.ndarray, dict]:
    start = stratified_deal(instance, rng.permutation(instance.num_nodes))
    stats = {"start_cut": instance.graph.cut_weight(start)}
    parts = np.asarray(pairwise_kl_refine(instance.graph, start, max_rounds=max_rounds), np.int64)
    stats["kl_cut"] = instance.graph.cut_weight(parts)
    return _repair(instance, parts, stats), stats
