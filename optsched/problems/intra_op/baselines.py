"""Baselines for ``intra-op``: uniform plans (all replicated, data-parallel only) and a
per-node greedy [ours]."""

from __future__ import annotations


import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .algorithms import _finish, greedy_plan
from .instance import IntraOpInstance
from .state import PlanState

__all__ = ["uniform_plan", "replicated", "data_parallel", "greedy", "labelled"]

REPLICATED = "B"      # every mesh axis broadcast
DATA_PARALLEL = "S(0)"  # every mesh axis splits the batch (first) tensor axis


def _wanted(inst: IntraOpInstance, v: int, axis_sbp: str) -> int | None:
    k = int(inst.num_strategies[v])
    names = inst.labels[inst.offsets[v]:inst.offsets[v] + k]
    for s, name in enumerate(names):
        if all(part == axis_sbp for part in name.split(",")):
            return s
    return None


def labelled(axis_sbp: str):
    """Applicability: the instance names its strategies and every node has the uniform one."""
    def applies(inst: IntraOpInstance) -> tuple[bool, str]:
        if not inst.labels:
            return False, "the instance has no strategy labels (imported IOPDDL instances carry no SBP meaning)"
        missing = [v for v in range(inst.num_nodes) if _wanted(inst, v, axis_sbp) is None]
        if missing:
            return False, f"node {missing[0]} has no all-{axis_sbp} strategy"
        return True, f"every node has an all-{axis_sbp} strategy"
    return applies


def uniform_plan(inst: IntraOpInstance, ctx: SolveContext, axis_sbp: str) -> Outcome:
    """Every node on the signature that is ``axis_sbp`` on each mesh axis; where that overflows
    memory, the overloaded times are repaired (cheapest cost per byte saved) and the result
    says how many nodes were changed."""
    ok, why = labelled(axis_sbp)(inst)
    if not ok:
        raise InvalidInstanceError(inst.problem, "labels", why)
    s = np.array([_wanted(inst, v, axis_sbp) for v in range(inst.num_nodes)], dtype=np.int64)
    state = PlanState(inst, s, ctx.clock)
    stats = {"uniform_peak": state.peak()}
    state.repair_memory()
    stats["nodes_changed_for_memory"] = int((state.s != s).sum())
    return _finish(inst, state, stats)


def replicated(inst, ctx):
    """All replicated (``B`` on every axis), repaired for memory."""
    return uniform_plan(inst, ctx, REPLICATED)


def data_parallel(inst, ctx):
    """Data parallel only (``S(0)`` on every axis), repaired for memory."""
    return uniform_plan(inst, ctx, DATA_PARALLEL)


def greedy(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Per-node greedy (:func:`~.algorithms.greedy_plan`) with the shared fix-up of forbidden
    pairs (stats say when it ran)."""
    state, stats = greedy_plan(inst, ctx.clock)
    return _finish(inst, state, stats)
