"""Exact dynamic programs of a chain partition with replication and device mapping: over the
device order (exact on uniform and clustered graphs; the ``dp`` and ``order-dp`` methods of the
partition problem), over every device subset (``subset-dp``, tests only).

The search spaces are in :mod:`.spaces`, the stage arithmetic in :mod:`.stages`.

Both DPs run *backward* over suffixes of the chain: the state is (stages in the suffix, the key
of the suffix's first stage, the suffix's first position). The number of stages in the suffix
fixes the first stage's in-flight microbatches (1F1B: K - k = stages from k to the end), so the
memory constraint is exact without knowing K in advance. Keys:

* ``dp``, uniform device graph (all devices and all pairwise widest bandwidths equal): key
  ``(u, r)``: the suffix uses u devices and its first stage r of them; the stages take
  consecutive blocks of the device order. Exact over every plan.
* ``dp``, clustered graph (equal devices, one bandwidth inside clusters, a lower one across:
  ``two-level``): key ``(U, g)`` of per-cluster device counts (:class:`_Clustered`). Exact over
  every plan.
* ``dp``, other graphs: key ``(a, b)``: the first stage of the suffix runs on the block
  ``order[a:b]`` of the device order; the next stage on ``order[b:b']``; stage 1 starts at a = 0
  (devices after the last block stay idle).
* ``subset-dp``: key ``(used, group)`` as bitmasks: the suffix uses ``used``, its first stage
  ``group``; any disjoint group may precede it.

The objective ``bottleneck`` is solved by the threshold search of :mod:`.bottleneck`, the
objective ``sync-estimate`` (and any space whose keys need it) by the label-setting DP of
:mod:`.labels`, started from the bottleneck plan; this module dispatches between them
(:func:`solve_order`) and holds what both report (:func:`why_infeasible`, :func:`sync_value`).
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import Infeasible
from optsched.pipeline import costs

from .bottleneck import bottleneck_dp
from .clock import Poll, SearchStopped, as_poll
from .instance import PipelinePartitionInstance
from .labels import label_dp
from .spaces import (
    SUBSET_MAX_DEVICES,
    SUBSET_MAX_POSITIONS,
    Plan,
    SearchSpace,
    clusters_of,
    heuristic_order,
    is_exact_space,
    order_space,
    subset_space,
)
from .stages import StageCosts

__all__ = ["Plan", "order_space", "is_exact_space", "clusters_of", "subset_space", "bottleneck_dp", "label_dp",
           "solve_order", "heuristic_order", "why_infeasible", "best_plan", "optimized_objective", "sync_value",
           "bottleneck_first", "SUBSET_MAX_DEVICES", "SUBSET_MAX_POSITIONS"]

INF = math.inf


def solve_order(instance: PipelinePartitionInstance, space: SearchSpace, objective: str,
                poll: Poll | None = None, ch: StageCosts | None = None) -> tuple[float, Plan, dict]:
    """Exact over ``space`` for ``bottleneck`` or ``sync-estimate``; raises Infeasible when no
    plan of the space fits memory.

    ``poll``/``ch`` as in :func:`bottleneck_dp`. When the budget runs out: :class:`.clock.SearchStopped`
    with the best plan of the space found so far, its value in ``objective`` and, for
    ``bottleneck`` by the threshold search, the proven ``lower`` (over ``space``)."""
    poll = as_poll(poll if poll is not None else getattr(space, "poll", None))
    ch = StageCosts(instance, poll) if ch is None else ch
    stats: dict = {}
    if space.needs_labels:
        value, plan, stats = label_dp(instance, space, objective, poll=poll, ch=ch)
    else:
        value, plan = bottleneck_first(instance, space, objective, poll, ch)
        if plan is not None and objective == "sync-estimate":
            start = (sync_value(instance, plan), plan)
            if space.block_order() is not None:
                # a cheap strong incumbent: the optimum over the block-order plans (a subset of
                # the clustered space), whose fewer keys make it several times faster
                block = space.block_order()
                start = label_dp(instance, block, "sync-estimate", incumbent=start, poll=poll, ch=ch)[:2]
            value, plan, stats = label_dp(instance, space, "sync-estimate", incumbent=start, poll=poll, ch=ch)
    if plan is None:
        raise Infeasible(why_infeasible(instance))
    return value, plan, stats


def optimized_objective(instance: PipelinePartitionInstance) -> str:
    """The objective the exact searches optimize: ``sync`` (the simulated makespan) is evaluation
    only, so they optimize ``sync-estimate`` for it."""
    return "bottleneck" if instance.objective == "bottleneck" else "sync-estimate"


def best_plan(instance: PipelinePartitionInstance, poll: Poll | None = None) -> tuple[Plan, bool]:
    """The plan of the chain DP over the device order 0..N-1 (:func:`order_space`) for the
    instance's optimized objective, and whether it is optimal over every plan (uniform and
    clustered graphs: :func:`is_exact_space`). Raises :class:`Infeasible` when no plan fits
    memory; ``poll`` as in :func:`solve_order` (default: no time limit).

    >>> from optsched.pipeline.partition.generate import chain_instance
    >>> plan, exact = best_plan(chain_instance([1, 2, 3, 4], topology="nvlink:2", max_replicas=1))
    >>> plan.solution()["cuts"], exact
    ([3], True)
    """
    space = order_space(instance)
    _, plan, _ = solve_order(instance, space, optimized_objective(instance), poll)
    return plan, is_exact_space(space)


def bottleneck_first(instance: PipelinePartitionInstance, space: SearchSpace, objective: str,
                     poll: Poll | None, ch: StageCosts | None) -> tuple[float, Plan | None]:
    """:func:`bottleneck_dp`, the first step for every objective. When the budget runs out during
    it and the objective is not ``bottleneck``, the :class:`.clock.SearchStopped` raised carries
    the stopped plan valued by the objective's model and no bound: the threshold search's lower
    bound is one on the bottleneck; ``sync-estimate`` is never below the bottleneck, so it would
    be a valid but weak bound; the callers report the search-free bound when computed [ours]."""
    try:
        return bottleneck_dp(instance, space, poll, ch)
    except SearchStopped as stop:
        if objective == "bottleneck":
            raise
        value = INF if stop.plan is None else sync_value(instance, stop.plan)
        raise SearchStopped(str(stop), value=value, plan=stop.plan) from None


def sync_value(instance: PipelinePartitionInstance, plan: Plan) -> float:
    st = costs.stage_times_of(instance, plan.bounds, plan.groups)
    return costs.sync_estimate(st, instance.microbatches)


def why_infeasible(instance: PipelinePartitionInstance) -> str:
    inst = instance
    per_byte = inst.optimizer_factor
    total = float(np.sum(inst.scaled["parameter_bytes"])) * per_byte
    biggest = float(np.max(inst.scaled["parameter_bytes"])) * per_byte
    return (f"no partition fits device memory (largest device {inst.memory_array.max():.6g} bytes; one position "
            f"needs at least {biggest:.6g} bytes of parameter state, the whole model {total:.6g})")


