"""ADSP's online search over C, and the exhaustive search over constant C.

>>> import optsched
>>> from optsched.problems.commit_rate import generate
>>> inst = generate(0, workers=3, heterogeneity=3.0, horizon=600.0, max_commits=4, samples=120)
>>> best = optsched.solve(inst, "exhaustive")
>>> search = optsched.solve(inst, "adsp-search")
>>> search.objective >= best.stats["best_constant_objective"] * 0.5
True
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from optsched.core.registry import Outcome

from .simulate import Task, simulate

__all__ = ["adsp_search", "exhaustive", "fit_loss_curve", "reward"]


def _curve(t, a, b, c):
    return 1.0 / (a * a * t + b) + c


def fit_loss_curve(times, losses):
    """Fit ``l(t) = 1/(a^2 t + b) + c`` by scipy ``curve_fit`` [code: ADSP's ``get_reward``];
    returns ``(a, b, c)`` or None when the fit fails."""
    from scipy.optimize import OptimizeWarning, curve_fit

    t = np.asarray(times, float)
    y = np.asarray(losses, float)
    if len(t) < 3 or not np.all(np.isfinite(y)):
        return None
    c0 = float(y.min()) * 0.5
    b0 = 1.0 / max(float(y[0]) - c0, 1e-12)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            p, _ = curve_fit(_curve, t, y, p0=(math.sqrt(b0 / max(t[-1], 1e-9)), b0, c0), maxfev=20000)
    except (RuntimeError, ValueError):
        return None
    return tuple(float(v) for v in p) if np.all(np.isfinite(p)) else None


def reward(params, target: float, times, losses) -> float:
    """``a^2 / (1/(l* - c) - b)`` = 1 / (predicted time to ``l*``) [code: ADSP's ``get_reward``].

    0 when the fitted curve never reaches ``l*`` (``c >= l*``); without a fit, the linear
    rate ``(l_first - l_last) / (t_last - t_first) / (l_last - l*)`` [ours].
    """
    if params is not None:
        a, b, c = params
        if c < target:
            den = 1.0 / (target - c) - b
            return a * a / den if den > 0 else math.inf
        return 0.0
    if len(times) < 2 or times[-1] <= times[0]:
        return 0.0
    slope = (losses[0] - losses[-1]) / (times[-1] - times[0])
    return max(0.0, slope) / max(losses[-1] - target, 1e-12)


def _loss_at(run, t: float) -> float:
    """The PS loss at instant ``t``: after the last update at or before ``t``."""
    import bisect

    return run.losses[max(0, bisect.bisect_right(run.times, t) - 1)]


def adsp_search(instance, ctx) -> Outcome:
    """Hill-climb C from 1, one check period per candidate [reconstruction of ``onlineSearch1Min``].

    As in ADSP's PS loop [code: ``STRAIN_PS.run`` / ``onlineSearch1Min`` / ``get_reward``]: a
    candidate C runs for one check period; the PS samples the global loss at the period's middle
    and end and fits ``l(t) = 1/(a^2 t + b) + c`` through those two points and the last point of
    the previous candidate (absolute times); it moves to ``C + 1`` while the reward rises and keeps
    the last C that improved. The search runs during training, so its periods count in the time to
    target. Not modelled: the periodic re-search (every 1000 checks, or after a 30% loss jump) and
    the workers' pause during checks. Cost: at most ``max_commits`` prefix simulations.
    """
    task = Task(instance)
    period = instance.period
    schedule, history = [1], []
    prev = None
    k = 0
    while True:
        run = simulate(instance, {"scheme": "adsp", "commits": schedule}, until=(k + 1) * period, task=task,
                       record=True, check=ctx.check_time)
        if run.reached:
            break
        ts = [k * period, k * period + period / 2, (k + 1) * period]
        ls = [_loss_at(run, t) for t in ts]
        fit = fit_loss_curve(ts, ls)
        r = reward(fit, instance.target_loss, ts, ls)
        history.append({"commits": schedule[-1], "reward": r, "fitted": fit is not None})
        if prev is not None and not r > prev:
            schedule.append(schedule[-1] - 1)
            break
        if schedule[-1] >= instance.max_commits or (k + 2) * period > instance.horizon:
            break
        prev = r
        schedule.append(schedule[-1] + 1)
        k += 1
    solution = {"scheme": "adsp", "commits": schedule}
    final = simulate(instance, solution, task=task, check=ctx.check_time)
    return Outcome(solution=solution, objective=final.objective,
                   stats={"search": history, "chosen_commits": schedule[-1], "reached": final.reached})


def exhaustive(instance, ctx) -> Outcome:
    """Simulate every constant ``C`` in ``1..max_commits``; the best is the optimum over constant C.

    Exact for ADSP's commit rule with a fixed ``C`` on this simulated model (the simulation is
    deterministic and C is a bounded integer); not over C schedules or the other schemes, so the
    status is ``feasible``. Cost: ``max_commits`` simulations.
    """
    task = Task(instance)
    values = []
    for c in range(1, instance.max_commits + 1):
        check = ctx.check_time  # inside the first constant: no answer yet
        if values:  # at the time limit (between or inside simulations): the best constant so far
            best = int(np.argmin(values))
            incumbent = Outcome(solution={"scheme": "adsp", "commits": [best + 1]}, objective=values[best],
                                stats={"best_commits": best + 1, "tried": len(values)})
            check = lambda: ctx.check_time(incumbent)  # noqa: E731
            check()
        values.append(simulate(instance, {"scheme": "adsp", "commits": [c]}, task=task, check=check).objective)
    best = int(np.argmin(values))
    return Outcome(solution={"scheme": "adsp", "commits": [best + 1]}, objective=values[best],
                   stats={"objective_by_commits": values, "best_commits": best + 1,
                          "best_constant_objective": values[best],
                          "optimal_over": f"constant C in 1..{instance.max_commits}"})
