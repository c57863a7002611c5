"""Algorithms of ``hetero-sharding``: exact routes, HAP's alternation and integer rounding.

* :func:`best_program`: the program search with the ratios fixed. In this model the stages share
  only the ratios, so for fixed ratios the best program picks each stage's cheapest option
  (HAP's uniform-cost search over its property graph reduces to this when the options of
  different stages do not constrain each other) [code: HAP ``a_star``, simplified; see docs].
* :func:`alternate`: HAP's loop [code: hap.rs ``main``]: B <- F_d / sum F; repeat Q <- best
  program for B, B <- ratio LP for Q, until the cost stops improving.
* :func:`largest_remainder`: HAP's ``sharding_round`` [code]: integer shard sizes from ratios.
"""

from __future__ import annotations

import math

import itertools

import numpy as np

from optsched.core.errors import SolverError
from optsched.core.solving import SolveContext, TimeLimitReached

from .instance import HeteroShardingInstance, plan_cost, stage_cost
from .model import Quirks, build_model, build_ratio_lp, decode_program, decode_ratios

__all__ = ["best_program", "proportional_ratios", "even_ratios", "solve_ratio_lp", "solve_joint",
           "alternate", "largest_remainder", "round_ratios", "rounding_bound", "num_programs"]


def num_programs(instance: HeteroShardingInstance) -> int:
    """The number of programs (one option per stage), exactly: a Python integer of any size."""
    return math.prod(len(st.options) for st in instance.stages)


def even_ratios(instance: HeteroShardingInstance) -> np.ndarray:
    return np.full((instance.num_segments, instance.num_devices), 1.0 / instance.num_devices)


def proportional_ratios(instance: HeteroShardingInstance) -> np.ndarray:
    """B_{s,d} = F_d / sum F for every segment (HAP's initial ratios [code])."""
    F = instance.flops_array
    return np.tile(F / F.sum(), (instance.num_segments, 1))


def best_program(instance: HeteroShardingInstance, ratios: np.ndarray) -> list[int]:
    """Each stage's cheapest option under ``ratios`` (ties: the lowest index). O(T O n)."""
    return [min(range(len(st.options)), key=lambda o: (stage_cost(instance, t, o, ratios), o))
            for t, st in enumerate(instance.stages)]


def solve_ratio_lp(instance: HeteroShardingInstance, program, ctx: SolveContext, quirks: Quirks = Quirks()):
    """Optimal ratios for a fixed program: ``(ratios, model_solution)``."""
    model = build_ratio_lp(instance, program, quirks, poll=ctx.check_time)
    sol = ctx.solve_model(model)
    if sol.status == "time_limit" and sol.x is None:
        raise TimeLimitReached(f"ratio LP stopped at the time limit on {sol.backend}: {sol.message}")
    if sol.status != "optimal" or sol.x is None:
        hint = " (the 1 s cap of HAP's code makes this LP infeasible)" if quirks.cap_seconds and \
            sol.status == "infeasible" else ""
        raise SolverError(f"ratio LP: {sol.status} on {sol.backend}{hint}: {sol.message}")
    return np.asarray(decode_ratios(model, sol.x)), sol


def solve_joint(instance: HeteroShardingInstance, ctx: SolveContext, quirks: Quirks = Quirks()):
    """The joint MILP: ``(program, ratios, model_solution)`` (program/ratios None without a point)."""
    model = build_model(instance, quirks, poll=ctx.check_time)
    sol = ctx.solve_model(model)
    if sol.x is None:
        return None, None, sol
    return decode_program(instance, model, sol.x), np.asarray(decode_ratios(model, sol.x)), sol


def alternate(instance: HeteroShardingInstance, ctx: SolveContext, quirks: Quirks = Quirks(),
              max_rounds: int = 50, init: str = "proportional", incumbent=None):
    """HAP's alternation; returns ``(program, ratios, cost, trace)`` with the best model cost seen.

    Never worse than the proportional split with its best program: the first program is the
    best for the proportional ratios, and the result is the best plan costed on the way (with
    the quirks off, each LP step cannot increase the cost, so the last plan is the best).
    Stops when a round does not lower the cost by more than 1e-12 relative, or after
    ``max_rounds`` rounds. Each round: one LP plus O(T O n). At the time limit (a round's LP
    stopped), :class:`TimeLimitReached` carries ``incumbent(program, ratios, cost, trace)`` of the
    best plan so far, when ``incumbent`` is given.
    """
    B = proportional_ratios(instance) if init == "proportional" else even_ratios(instance)
    program = best_program(instance, B)
    best = (program, B, plan_cost(instance, program, B))
    trace = [best[2]]
    for _ in range(max_rounds):
        try:
            B, _ = solve_ratio_lp(instance, program, ctx, quirks)
        except TimeLimitReached as exc:
            raise TimeLimitReached(str(exc), None if incumbent is None else incumbent(*best, trace)) from None
        program = best_program(instance, B)
        cost = plan_cost(instance, program, B)
        trace.append(cost)
        improved = cost < best[2] - 1e-12 * max(1.0, best[2])
        if cost < best[2]:
            best = (program, B, cost)
        if not improved:
            break
    return best[0], best[1], best[2], trace


def largest_remainder(ratios, length: int) -> list[int]:
    """Integer shard sizes summing to ``length`` with |size_d / length - B_d| < 1 / length.

    floor(B_d L) each, then one more unit to each of the devices with the largest remainders
    B_d L - floor(B_d L) (ties: lower index) [code: HAP ``sharding_round``]. O(n log n).

    >>> largest_remainder([0.5, 0.3, 0.2], 7)
    [4, 2, 1]
    """
    B = np.asarray(ratios, float)
    exact = B * length
    base = np.floor(exact + 1e-12).astype(int)
    left = int(length - base.sum())
    rema = exact - base
    for d in sorted(range(len(B)), key=lambda d: (-rema[d], d))[:max(left, 0)]:
        base[d] += 1
    return base.tolist()


def round_ratios(instance: HeteroShardingInstance, ratios) -> tuple[np.ndarray, list[list[int]]]:
    sizes = [largest_remainder(r, L) for r, L in zip(ratios, instance.segment_lengths)]
    return np.asarray([[x / L for x in sz] for sz, L in zip(sizes, instance.segment_lengths)]), sizes


def rounding_bound(instance: HeteroShardingInstance, program=None) -> float:
    """Delta = sum_t (a_t / min_d F_d + m_t) / L_{s_t}: cost(rounded) <= cost(ratios) + Delta
    (optsched/problems/hetero_sharding/README.md#rounding-bound). Without a program: the max over each stage's options."""
    Fmin = float(instance.flops_array.min())
    total = 0.0
    for t, row in enumerate(instance.coefficients):
        opts = range(len(row)) if program is None else [program[t]]
        total += max((row[o][1] / Fmin + row[o][3]) / instance.segment_lengths[row[o][0]] for o in opts)
    return total


def enumerate_programs(instance: HeteroShardingInstance):
    return itertools.product(*[range(len(st.options)) for st in instance.stages])
