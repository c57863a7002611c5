"""Methods of ``pipeline-adaptive``: Ada-Grouper's adaptive policy, fixed group sizes, the
clairvoyant oracle, exhaustive search and a lower bound (see :mod:`.adagrouper` for the model)."""

from __future__ import annotations

import itertools
import math

from optsched.core.errors import InvalidOptionError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .adagrouper import AdaptivePolicy, FixedPolicy, OraclePolicy, run_policy
from .instance import PipelineAdaptiveInstance

__all__ = ["ada_grouper", "fixed", "oracle", "brute", "lower_bound", "brute_sequence_count", "BRUTE_MAX_SEQUENCES"]

#: largest number of group-size sequences brute force enumerates
BRUTE_MAX_SEQUENCES = 20_000


def _outcome(instance: PipelineAdaptiveInstance, policy, ctx: SolveContext, status: str = "feasible") -> Outcome:
    run = run_policy(instance.setting, instance.trace, policy, poll=ctx.check_time)
    return Outcome(solution={"group_sizes": [int(g) for g in run.group_sizes]}, objective=float(run.total_time),
                   status=status, stats={"switches": run.switches, "mean_iteration_time": run.mean_iteration_time})


def ada_grouper(instance: PipelineAdaptiveInstance, ctx: SolveContext) -> Outcome:
    """Ada-Grouper's adaptive group size [reconstruction]: before each iteration, predict every
    memory-fitting group size's iteration time with the bandwidth of the last *ended* period (no
    look-ahead), and switch to the fastest when the predicted saving over one period exceeds the
    switch cost. No guarantee; empirical (T6). O(I |G|) simulations, memoized per bandwidth."""
    return _outcome(instance, AdaptivePolicy(), ctx)


def fixed(instance: PipelineAdaptiveInstance, ctx: SolveContext) -> Outcome:
    """A fixed group size for the whole run (``group_size = 1`` is 1F1B) [baseline]."""
    g = ctx.options["group_size"]
    if g not in instance.candidates:
        raise InvalidOptionError(instance.problem, "option group_size",
                                   f"must be a memory-fitting group size ({list(instance.candidates)})", g)
    return _outcome(instance, FixedPolicy(g), ctx)


def oracle(instance: PipelineAdaptiveInstance, ctx: SolveContext) -> Outcome:
    """Clairvoyant reference [ours]: the same amortized switching rule with the true current
    bandwidth and the true time until the fastest group size changes. Not a proven optimum."""
    return _outcome(instance, OraclePolicy(instance.trace), ctx)


def brute_sequence_count(instance: PipelineAdaptiveInstance) -> int:
    return len(instance.candidates) ** instance.iterations


def brute(instance: PipelineAdaptiveInstance, ctx: SolveContext) -> Outcome:
    """Exact by depth-first enumeration of every sequence of memory-fitting group sizes
    (|G|^I sequences; tiny instances only), accumulating each iteration's duration from the
    trace and the simulated iteration times directly (not through the checker); prunes a branch
    once its partial time reaches the best total (durations are >= 0, so this keeps exactness)."""
    setting, trace = instance.setting, instance.trace
    cands = instance.candidates
    best = [math.inf, None]
    seq = []

    def visit(i: int, now: float, current: int | None) -> None:
        if now >= best[0]:
            return
        if i == instance.iterations:
            best[0], best[1] = now, list(seq)
            return
        ctx.check_time()
        p = trace.period_index(now)
        for g in cands:
            duration = (setting.switch_cost if current is not None and g != current else 0.0) \
                + setting.iteration_time(g, trace.bandwidth[p])
            seq.append(g)
            visit(i + 1, now + duration, g)
            seq.pop()

    visit(0, 0.0, None)
    return Outcome(solution={"group_sizes": [int(g) for g in best[1]]}, objective=best[0], bound=best[0],
                   status="optimal", stats={"sequences": brute_sequence_count(instance)})


def lower_bound(instance: PipelineAdaptiveInstance, ctx: SolveContext) -> Outcome:
    """``I * min_{g, p} T(g, bandwidth[p])``: every iteration runs in some period with some
    memory-fitting group size, and switch costs are >= 0, so no run is shorter. O(|G| P') simulations
    for the P' distinct bandwidth rows of the trace, reading the clock before each (a bound cut
    short is no bound: the limit answers ``time_limit`` without a value)."""
    setting, trace = instance.setting, instance.trace
    rows = list(dict.fromkeys(tuple(row) for row in trace.bandwidth))  # distinct, first-seen order
    fastest = math.inf
    for g, row in itertools.product(instance.candidates, rows):
        ctx.check_time()
        fastest = min(fastest, setting.iteration_time(g, row))
    value = instance.iterations * fastest
    return Outcome(objective=value, bound=value, status="optimal", stats={"fastest_iteration": fastest})
