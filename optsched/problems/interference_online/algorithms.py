"""Method wrappers of ``interference-online``: run a policy in the simulator, return the schedule.

>>> import optsched
>>> from optsched.problems.interference_online import generate
>>> inst = generate(1, jobs=12, servers=4, gpus_per_server=4)
>>> lb = optsched.solve(inst, "lb").objective
>>> all(optsched.solve(inst, m).objective >= lb for m in ("fifo-pack", "least-interference", "marl"))
True
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.registry import Outcome

from .baselines import GandivaPack, SjfLeastInterference, TiresiasLas
from .marl import MarlPolicy, default_weights_path, load_weights
from .policies import FifoPack, LeastInterference, MilpPerEvent, simulate, to_solution

__all__ = ["fifo_pack", "least_interference", "milp_per_event", "marl", "lower_bound", "run_policy",
           "tiresias_las", "gandiva_pack", "sjf_least_interference"]


def run_policy(instance, policy, stats=lambda: {}, ctx=None) -> Outcome:
    """Simulate ``policy``; ``stats()`` is read after the run. With ``ctx``, the policy polls the
    method's clock at every event: at the time limit the run stops (``TimeLimitReached``, no
    solution: a schedule of only some jobs is none)."""
    if ctx is not None:
        policy.poll = ctx.check_time
    result = simulate(instance, policy)
    solution = to_solution(policy, result)
    jct = float(np.mean([result.completion[j.id] - j.arrival for j in instance.jobs]))
    return Outcome(solution=solution, objective=jct, stats=stats())


def fifo_pack(instance, ctx) -> Outcome:
    """FIFO, best fit, interference-oblivious (``backfill`` option)."""
    return run_policy(instance, FifoPack(instance, backfill=ctx.options["backfill"]), ctx=ctx)


def least_interference(instance, ctx) -> Outcome:
    """Arrival order with backfilling, least marginal JCT-proxy cost per job."""
    return run_policy(instance, LeastInterference(instance), ctx=ctx)


def milp_per_event(instance, ctx) -> Outcome:
    """Rolling snapshot MILP per event, with a logged fallback to least-interference."""
    o = ctx.options
    pol = MilpPerEvent(instance, ctx.solve_model, window=o["window"], solve_time_limit=o["solve_time_limit"],
                       time_budget=o["time_budget"], defer_factor=o["defer_factor"],
                       max_solves=o["max_solves"])
    out = run_policy(instance, pol, lambda: dict(
        milp_solves=pol.solves, milp_seconds=round(pol.spent, 3), fallbacks=len(pol.fallbacks),
        fallback_reasons=sorted({r for _, r in pol.fallbacks}),
        first_fallback_time=pol.fallbacks[0][0] if pol.fallbacks else None), ctx=ctx)
    out.backend = ctx.backend
    return out


def tiresias_las(instance, ctx) -> Outcome:
    """Smallest GPU demand first (2D-LAS at zero attained service), consolidated placement."""
    return run_policy(instance, TiresiasLas(instance), ctx=ctx)


def gandiva_pack(instance, ctx) -> Outcome:
    """FIFO with backfilling, packing only where the measured pair progress is profitable."""
    return run_policy(instance, GandivaPack(instance), ctx=ctx)


def sjf_least_interference(instance, ctx) -> Outcome:
    """Shortest isolated run time first, least-interference placement (a duration-aware reference)."""
    return run_policy(instance, SjfLeastInterference(instance), ctx=ctx)


def marl(instance, ctx) -> Outcome:
    """The learned multi-agent scheduler from stored weights (numpy inference; no jax needed)."""
    import time

    o = ctx.options
    path = o["weights"] or default_weights_path(o["weights_seed"])
    weights = load_weights(path, field="weights" if o["weights"] else "weights_seed")
    pol = MarlPolicy(instance, weights)
    t0 = time.perf_counter()
    out = run_policy(instance, pol, lambda: dict(weights=str(o["weights"] or path.name), agents=pol.agents,
                                                 decisions=pol.decisions), ctx=ctx)
    # the policy's own time per decision (features, encoder, scoring), and the whole run's per decision
    out.stats["seconds_per_decision"] = pol.decide_seconds / max(1, pol.decisions)
    out.stats["run_seconds_per_decision"] = (time.perf_counter() - t0) / max(1, pol.decisions)
    return out


def lower_bound(instance, ctx) -> Outcome:
    """``(1/n) sum_j R_j tau_j (1 + gamma (ceil(g_j / G_max) - 1))``: no wait, no interference.

    Every job needs at least ``ceil(g_j / G_max)`` servers and runs at most at its isolated rate
    divided by that spread factor (beta >= 0), so its JCT is at least this; hence the average.
    """
    gmax = max(instance.gpus_per_server)
    vals = [j.isolated_time * (1 + instance.spread_penalty * (math.ceil(j.gpus / gmax) - 1)) for j in instance.jobs]
    value = float(np.mean(vals))
    return Outcome(objective=value, bound=value, status="optimal")
