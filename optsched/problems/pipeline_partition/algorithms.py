"""The registered methods of ``pipeline-partition`` (thin wrappers over the algorithms)."""

from __future__ import annotations

import math

from optsched.core.errors import Infeasible
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached
from optsched.pipeline import costs
from optsched.pipeline.partition.clock import Poll, SearchStopped
from optsched.pipeline.partition.dp import (Plan, heuristic_order, is_exact_space, optimized_objective, order_space,
                                            solve_order, subset_space, why_infeasible)
from optsched.pipeline.partition.stages import StageCosts

from . import baselines
from .bisect import min_bottleneck
from .instance import PipelinePartitionInstance, objective_value
from .model import build_model_for, decode

__all__ = ["milp", "dp", "subset_dp", "order_dp", "bisect", "uniform", "param_balanced", "time_balanced",
           "pipedream", "dapple"]


#: the objective the exact methods optimize (``sync`` is evaluation only: ``sync-estimate`` for it)
_optimized = optimized_objective


def _value(instance, plan: Plan) -> float | None:
    """The plan's value under the instance's objective (None for ``sync``: the checker computes it)."""
    if instance.objective == "sync":
        return None
    return objective_value(instance, costs.stage_times_of(instance, plan.bounds, plan.groups))


def _plan_outcome(instance, plan: Plan, status: str = "feasible", bound: float | None = None, **stats) -> Outcome:
    if instance.objective == "sync" and status == "optimal":
        status, bound = "feasible", None  # optimal for sync-estimate, not for the simulated makespan
    return Outcome(solution=plan.solution(), objective=_value(instance, plan), bound=bound, status=status, stats=stats)


def _bound(instance: PipelinePartitionInstance, value: float | None) -> float | None:
    """A bound of the optimized objective is one of the instance's, except for ``sync`` (the
    simulated makespan is evaluated, not optimized: no bound)."""
    return None if instance.objective == "sync" else value


def simple_bound(instance: PipelinePartitionInstance, objective: str, ch: StageCosts | None = None) -> float:
    """A bound that needs no search, for results stopped before a proof: G = the min-max of
    sum (F + B) / (replicas x fastest speed) over the chain on N devices (no all-reduce, no
    transfers, no memory; ``StageCosts.prefix_minmax``) bounds every plan's max_k (F_k + B_k), and
    sum_k (F_k + B_k) >= total work / (N x fastest speed). ``bottleneck`` >= G; ``sync-estimate``
    >= work / (N s_max) + (M - 1) G. O(N R n log n) (``ch``'s poll is ticked per (N, R) pair)."""
    ch = StageCosts(instance) if ch is None else ch
    top = float(ch.prefix_minmax[instance.num_devices][ch.n])
    if objective == "bottleneck":
        return top
    return float(ch.work[ch.n]) / (instance.num_devices * ch.max_speed) + (instance.microbatches - 1) * top


def search_free_bound(ch: StageCosts, objective: str) -> float | None:
    """:func:`simple_bound` if ``ch`` has already computed its ``prefix_minmax`` (the label DP of
    ``sync-estimate`` does; None otherwise: a run stopped at its time limit searches no further)."""
    if "prefix_minmax" not in ch.__dict__:
        return None
    return simple_bound(ch.instance, objective, ch)


def _stopped_outcome(instance, plan: Plan | None, bounds, phase: str, **stats) -> Outcome:
    """The ``time_limit`` result of a run stopped by its budget: the best plan found (none: the
    run raises :class:`TimeLimitReached` without an incumbent) and the largest of the proven
    ``bounds`` (None entries: not proven). Never ``optimal``."""
    if plan is None:
        raise TimeLimitReached(f"time limit reached before any plan ({phase})", None)
    proven = [b for b in bounds if b is not None and math.isfinite(b)]
    bound = max(proven) if proven else None
    return _plan_outcome(instance, plan, "time_limit", _bound(instance, bound), phase=phase, **stats)


def _solve_within(instance, space, ctx: SolveContext, exact: bool, **info):
    """:func:`.dp.solve_order` on ``space`` within ``ctx``'s budget: ``(value, plan, stats)``, or
    the ``time_limit`` :class:`Outcome` when the budget runs out (best plan found; bound: the
    threshold search's failed thresholds when ``space`` is ``exact``, the search-free bound when
    already computed)."""
    poll = Poll(ctx)
    ch = StageCosts(instance, poll)
    objective = _optimized(instance)
    try:
        return solve_order(instance, space, objective, poll, ch)
    except SearchStopped as stop:
        return _stopped_outcome(instance, stop.plan, [stop.lower if exact else None,
                                                      search_free_bound(ch, objective)],
                                "stopped at the time limit", **info)


def milp(instance: PipelinePartitionInstance, ctx: SolveContext) -> Outcome:
    """Exact: one MILP per number of stages K (every K in 1..min(n, N) when the instance leaves
    it free) on the context's back-end; the best plan, and the smallest bound over K.

    ``optimal`` only when every K was solved to optimality (or proved infeasible). The reported
    objective is the returned plan's cost recomputed by the cost model; ``bound`` is the solvers'.
    """
    best_plan, best_value, bounds, statuses = None, math.inf, [], []
    solver = {}
    for K in instance.stage_counts():
        try:
            model = build_model_for(instance, K, ctx.check_time)
        except TimeLimitReached:
            if best_plan is None:
                raise
            statuses.append("time_limit")
            bounds.append(None)  # the stage counts not solved leave OPT unbounded below
            break
        sol = ctx.solve_model(model)    # the context hands each K the time left of the budget
        solver = {"backend": sol.backend, "solver_version": sol.solver_version}
        statuses.append(sol.status)
        if sol.status == "infeasible":
            continue
        bounds.append(sol.bound)
        if sol.x is not None:
            sln = decode(instance, model, sol.x)
            plan = Plan(list(zip([0] + sln["cuts"], sln["cuts"] + [instance.num_positions])), sln["devices"])
            value = objective_value(instance, costs.stage_times_of(instance, plan.bounds, plan.groups),
                                    _optimized(instance))
            if value < best_value:
                best_plan, best_value = plan, value
    if all(s == "infeasible" for s in statuses):
        raise Infeasible(why_infeasible(instance) + " (every stage count's MILP is infeasible)")
    # a stage count without a bound leaves OPT unbounded below: no overall bound then
    bound = min(bounds) if bounds and all(b is not None and math.isfinite(b) for b in bounds) else None
    if all(s in ("optimal", "infeasible") for s in statuses):
        status = "optimal"
    elif "time_limit" in statuses:
        status = "time_limit"
    elif "error" in statuses:
        status = "error"
    else:
        status = "feasible"
    stats = {"statuses_per_stage_count": dict(zip(map(str, instance.stage_counts()), statuses))}
    if best_plan is None:
        if status == "feasible":  # a work limit stopped every stage count before a point: no plan, no error
            status = "node_limit"
        return Outcome(solution=None, objective=None, bound=bound, status=status, reason="no incumbent plan",
                       stats=stats, **solver)
    out = _plan_outcome(instance, best_plan, status, bound if instance.objective != "sync" else None, **stats)
    out.backend, out.solver_version = solver.get("backend"), solver.get("solver_version")
    return out


def dp(instance: PipelinePartitionInstance, ctx: SolveContext) -> Outcome:
    """Chain DP with replication.

    Guarantee: on a uniform graph (all devices interchangeable) and on a clustered graph
    (``two-level``: equal devices, one bandwidth inside clusters, a lower one across) ALG = OPT,
    status ``optimal`` (states count devices per cluster: relabelling devices inside a cluster
    preserves every cost). On other graphs ALG = the minimum over plans whose stages take
    consecutive blocks of the device order 0..N-1 (idle devices last), status ``feasible``
    (OPT <= ALG). Complexity: ``bottleneck`` a threshold search of about 55 probes (fewer on short
    chains), each O(N R log n) on uniform graphs with K free, O(K (n log n + R n)) with K fixed,
    O(K keys successors n) otherwise (keys: N R on uniform graphs, prod_c (G_c + 1)^2 on clusters
    of sizes G_c, N R in block order); no n x n matrix;
    ``sync-estimate`` a label-setting DP over the same states, pruned by a completion bound (see
    :mod:`optsched.pipeline.partition.dp`). [ours]

    >>> import optsched
    >>> from optsched.problems.pipeline_partition.generate import chain_instance
    >>> r = optsched.solve(chain_instance([1, 2, 3, 4], topology="nvlink:2"), "dp")
    >>> r.status, r.solution["replicas"], round(float(r.objective), 9)  # no parameters: replicate
    ('optimal', [2], 5.0)
    >>> r = optsched.solve(chain_instance([1, 2, 3, 4], topology="nvlink:2", max_replicas=1), "dp")
    >>> r.solution["cuts"], round(float(r.objective), 9)
    ([3], 6.0)
    """
    space = order_space(instance)
    exact = is_exact_space(space)
    info = {"optimal_over": "all plans" if exact else "consecutive blocks of device order 0..N-1"}
    got = _solve_within(instance, space, ctx, exact, **info)
    if not isinstance(got, tuple):  # stopped at the time limit
        return got
    value, plan, stats = got
    return _plan_outcome(instance, plan, "optimal" if exact else "feasible", value if exact else None,
                         **info, **stats)


def subset_dp(instance: PipelinePartitionInstance, ctx: SolveContext) -> Outcome:
    """Exact over every plan (any disjoint device groups, any order) by a DP over device subsets:
    ALG = OPT. O(K 3^N n^2) states-transitions before pruning: for tests (n <= 30, N <= 10). [ours]"""
    got = _solve_within(instance, subset_space(instance), ctx, True)
    if not isinstance(got, tuple):  # stopped at the time limit
        return got
    value, plan, stats = got
    return _plan_outcome(instance, plan, "optimal", value, **stats)


def order_dp(instance: PipelinePartitionInstance, ctx: SolveContext) -> Outcome:
    """``dp`` over the bandwidth-greedy device order (:func:`heuristic_order`, O(N^2)).

    No guarantee (OPT <= ALG only; the device-order problem is NP-hard in general): its empirical
    ratio to ``milp``/``subset-dp`` is reported by the tests and T5. [ours]"""
    order = heuristic_order(instance)
    space = order_space(instance, order)
    exact = is_exact_space(space)
    got = _solve_within(instance, space, ctx, exact, device_order=order)
    if not isinstance(got, tuple):  # stopped at the time limit
        return got
    value, plan, stats = got
    return _plan_outcome(instance, plan, "optimal" if exact else "feasible", value if exact else None,
                         device_order=order, **stats)


def bisect(instance: PipelinePartitionInstance, ctx: SolveContext) -> Outcome:
    """Exact ``bottleneck`` (ALG = OPT) without replication on a uniform graph when memory cannot
    bind; O(n log n + probes K log n) (see :mod:`.bisect`). [ours]"""
    value, cuts = min_bottleneck(instance)
    bounds = list(zip([0] + cuts, cuts + [instance.num_positions]))
    plan = Plan(bounds, [[k] for k in range(len(bounds))])
    return _plan_outcome(instance, plan, "optimal", value, search_value=value)


def _baseline(instance, plan: Plan, **stats) -> Outcome:
    return _plan_outcome(instance, plan, "feasible", None, **stats)


def uniform(instance, ctx):
    """Baseline (no guarantee): equal position counts per stage, device k for stage k. [ours]"""
    return _baseline(instance, baselines.uniform_plan(instance))


def param_balanced(instance, ctx):
    """Baseline (no guarantee): DeepSpeed-style parameter balance, O(K n^2). [reconstruction]"""
    return _baseline(instance, baselines.param_balanced_plan(instance, ctx.check_time))


def time_balanced(instance, ctx):
    """Baseline (no guarantee): torchgpipe-style forward-time balance, O(K n^2). [reconstruction]"""
    return _baseline(instance, baselines.time_balanced_plan(instance, ctx.check_time))


def pipedream(instance, ctx):
    """Baseline (no guarantee on this cost model): PipeDream's DP, O(n^2 N^2); its own predicted
    bottleneck in ``stats["pipedream_model_bottleneck"]``. [code]"""
    plan, predicted = baselines.pipedream_plan(instance, ctx.check_time)
    return _baseline(instance, plan, pipedream_model_bottleneck=predicted)


def dapple(instance, ctx):
    """Baseline (no guarantee): DAPPLE-style planner, O(N K n^2). [reconstruction]"""
    plan, estimate = baselines.dapple_plan(instance, ctx.check_time)
    return _baseline(instance, plan, dapple_estimate=estimate)

