"""Baselines for ``intra-op``: uniform plans (all replicated, data-parallel only) and a
per-node greedy [ours]."""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .algorithms import _Clock, _finish, _fix, least_memory_plan
from .instance import FORBIDDEN, IntraOpInstance, plan_cost
from .state import PlanState, structure

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
    state = PlanState(inst, s)
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
    """Per-node greedy in index order (topological for the generated and IOPDDL graphs): each
    node takes the cheapest strategy given its already-chosen neighbours (edges to later nodes
    ignored) among those that fit in memory while every later node still holds its
    least-memory strategy. Fits whenever the least-memory plan fits. Forbidden pairs with later
    nodes are removed afterwards by the shared fix-up of the heuristics (stats say when).
    O(n k + m k^2) before the fix-up."""
    st = structure(inst)
    base = least_memory_plan(inst)
    state = PlanState(inst, base)
    done = np.zeros(inst.num_nodes, bool)
    for v in range(inst.num_nodes):
        vec = st.node_costs(v).astype(float).copy()
        for i in range(st.inc_ptr[v], st.inc_ptr[v + 1]):
            w = st.inc_other[i]
            if not done[w]:
                continue
            mat = st.edge_matrix(st.inc_edge[i])
            vec += mat[:, state.s[w]] if st.inc_tail[i] else mat[state.s[w], :]
        if math.isfinite(state.limit):
            u = inst.node_usages(v)
            vec = np.where(u - u[state.s[v]] <= state.headroom(v), vec, np.inf)
        state.set_strategy(v, int(np.argmin(vec)))
        done[v] = True
    stats = {"greedy_value": plan_cost(inst, state.s)[0]}
    if stats["greedy_value"] >= FORBIDDEN:
        # edges to later nodes were ignored: the shared fix-up (node sweeps, joint and region
        # moves, memory trades) removes the forbidden pairs left [ours]
        clock = _Clock(ctx.time_limit)
        state.deadline = clock.deadline
        _fix(state, clock)
        stats["forbidden_fixed"] = True
    return _finish(inst, state, stats)
