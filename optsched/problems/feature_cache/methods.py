"""Registered methods of ``feature-cache``."""

from __future__ import annotations

from optsched.core.registry import Outcome, size_limit
from optsched.core.solving import SolveContext

from .algorithms import belady_min, exact_dp, fifo, lru, misses_of, static_degree
from .problem import PROBLEM


def _outcome(instance, evict, status="feasible", poll=lambda: None) -> Outcome:
    misses = misses_of(instance.accesses, evict, instance.capacity, poll)
    return Outcome(solution={"evict": [int(e) for e in evict]}, objective=float(misses), status=status,
                   bound=float(misses) if status == "optimal" else None,
                   stats={"hit_ratio": 1 - misses / instance.num_accesses})


@PROBLEM.method("min", kind="exact", fidelity="ours",
                summary="Belady's MIN with bypass: evict the node read farthest in the future (exact)")
def min_(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, belady_min(instance.accesses, instance.capacity, ctx.check_time), "optimal",
                    ctx.check_time)


@PROBLEM.method("brute", kind="exact", fidelity="ours", summary="DP over (read, cache contents) (tests)",
                applicable=size_limit(lambda inst: inst.num_accesses, 16, "reads", "brute"))
def brute(instance, ctx: SolveContext) -> Outcome:
    value = exact_dp(instance.accesses, instance.capacity)
    out = _outcome(instance, belady_min(instance.accesses, instance.capacity), "optimal")
    out.stats["dp_misses"] = value
    out.objective = out.bound = float(value)  # the DP's own value; solve() compares it with the checker's
    return out


@PROBLEM.method("fifo", kind="baseline", fidelity="ours", summary="first in, first out (BGL's policy)")
def fifo_(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, fifo(instance.accesses, instance.capacity, ctx.check_time), poll=ctx.check_time)


@PROBLEM.method("lru", kind="baseline", fidelity="ours", summary="least recently used")
def lru_(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, lru(instance.accesses, instance.capacity, ctx.check_time), poll=ctx.check_time)


@PROBLEM.method("static", kind="baseline", fidelity="ours",
                summary="admit only the C highest-degree nodes, never evict",
                applicable=lambda inst: (len(inst.priority) > 0, "needs node priorities (degrees)"))
def static(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, static_degree(instance.accesses, instance.capacity, instance.priority, ctx.check_time),
                    poll=ctx.check_time)
