"""``solve(instance, method=...) -> Result``: the one entry point every method goes through.

It resolves the problem and method, builds the :class:`SolveContext` (back-end, limits, seed,
options, progress), runs the method, has the problem's checker recompute the objective from the
instance and the solution alone, and writes an honest :class:`~optsched.core.result.Result`:
a method's infeasible solution becomes ``status = "error"`` with the violations, and a method's
own objective that disagrees with the checker's is recorded in ``stats["reported_objective"]``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .backends import DEFAULT_BACKEND, SolverSettings, get_backend
from .clock import MIN_SHARE, Deadline, take_anchor
from .errors import Infeasible, InvalidInstanceError, InvalidOptionError, NotApplicable, TimeLimitReached
from .params import MAX_NODE_LIMIT, MAX_THREADS, check_name, checked_float
from .linear import LinearModel, ModelSolution
from .registry import Method, Outcome, Problem, get_problem
from .gaps import objective_tolerance, relative_gap
from .result import Result
from .rng import make_rng

__all__ = ["SolveContext", "TimeLimitReached", "solve", "objective_tolerance", "model_outcome",
           "relaxation_outcome"]


@dataclass
class SolveContext:
    """What a method may use: solver settings, back-end, seeded randomness, options, progress.

    The context owns **one clock** (:mod:`optsched.core.clock`): ``settings.time_limit`` is the
    budget of the whole method call, from the moment :func:`solve` starts it -- or from the
    command's start when the command line anchored it there -- held as :attr:`clock`, a
    :class:`~optsched.core.clock.Deadline` that methods poll (or cut earlier stage deadlines
    from with :meth:`~optsched.core.clock.Deadline.sub`). Every model solve goes through :meth:`solve_model`,
    which hands the back-end the *remaining* time and records what it ran; a loop that does its
    own work polls :meth:`check_time` (or :meth:`remaining`). :func:`solve` then enforces, for
    every method alike, that a run whose sub-solve stopped at a limit, or that outlived its
    budget, never reports ``optimal``.
    """

    problem: Problem
    method: Method
    backend: str = DEFAULT_BACKEND
    settings: SolverSettings = field(default_factory=SolverSettings)
    seed: int = 0
    options: dict = field(default_factory=dict)
    progress: Callable[[str, float | None], None] | None = None
    _rng: np.random.Generator | None = None
    #: perf_counter() value at which the budget runs out (None: no limit); set by :func:`solve`
    deadline: float | None = None
    #: one record per model solve: status, back-end, run time, the time limit it was given
    subsolves: list = field(default_factory=list)

    @property
    def rng(self) -> np.random.Generator:
        """The method's generator, seeded from ``seed`` and the method's name."""
        if self._rng is None:
            self._rng = make_rng(self.seed, self.problem.name, self.method.name)
        return self._rng

    @property
    def time_limit(self) -> float | None:
        """The budget of the whole method call (seconds), as the user gave it."""
        return self.settings.time_limit

    def start_clock(self) -> None:
        """Start the budget (called by :func:`solve` just before the method runs): now, or at the
        anchor the command line set (:func:`optsched.core.clock.anchor_at_process_start`), leaving
        the method at least ``MIN_SHARE`` of the limit whatever the start-up took."""
        anchor = take_anchor()
        if self.settings.time_limit is not None:
            now = time.perf_counter()
            limit = self.settings.time_limit
            start = now if anchor is None else min(anchor, now)
            self.deadline = max(start + limit, now + MIN_SHARE * limit)

    @property
    def clock(self) -> Deadline:
        """The budget as a :class:`~optsched.core.clock.Deadline` (unlimited without a limit)."""
        if self.deadline is None and self.settings.time_limit is not None:
            self.start_clock()
        return Deadline(math.inf if self.deadline is None else self.deadline)

    def remaining(self) -> float | None:
        """Seconds left of the budget (None without a limit; may be <= 0 once it is spent). A
        context built outside :func:`solve` starts its clock at its first use."""
        if self.deadline is None:
            if self.settings.time_limit is None:
                return None
            self.start_clock()
        return self.deadline - time.perf_counter()

    def expired(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def check_time(self, incumbent: Outcome | None = None) -> None:
        """Raise :class:`TimeLimitReached` if the budget is spent (with ``incumbent``, if any)."""
        if self.expired():
            raise TimeLimitReached(f"time limit of {self.settings.time_limit} s reached", incumbent)

    def solve_model(self, model: LinearModel, **overrides) -> ModelSolution:
        """Solve a linear model on the context's back-end with the remaining time.

        ``overrides`` change other settings for this call (``mip_rel_gap``, ``presolve``, ...); a
        ``time_limit`` override can only shorten the remaining budget. When the budget is already
        spent the back-end is not called: the answer is ``time_limit`` with no point.
        """
        asked = overrides.pop("time_limit", None)
        left = self.remaining()
        limit = left if asked is None else (asked if left is None else min(asked, left))
        if limit is not None and limit <= 0:
            backend = get_backend(self.backend)
            sol = ModelSolution("time_limit", None, None, None, backend.name, backend.version(), 0.0,
                                message="the method's time budget was spent before this solve")
        else:
            settings = SolverSettings(**{**self.settings.as_dict(), **overrides, "time_limit": limit})
            sol = get_backend(self.backend).solve(model, settings)
        entry = {"model": model.name, "status": sol.status, "backend": sol.backend,
                 "solver_version": sol.solver_version, "run_time": sol.run_time, "time_limit": limit}
        if "portfolio_members" in sol.stats:  # which member answered this model, and who raced
            entry["portfolio_winner"] = sol.stats.get("portfolio_winner")
            entry["portfolio_members"] = tuple(sol.stats["portfolio_members"])
        self.subsolves.append(entry)
        return sol

    def report(self, message: str, fraction: float | None = None) -> None:
        """Progress of a long run (shown by the CLI on stderr)."""
        if self.progress is not None:
            self.progress(message, fraction)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_settings(problem: str, time_limit, seed, threads, mip_rel_gap, node_limit) -> None:
    """The solve's settings, each refused with its name when out of range (never clamped); every
    number through the guarded conversion (:func:`optsched.core.params.checked_float`: an integer
    too large for a float is an error naming the setting, not an ``OverflowError``)."""
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)):
            raise InvalidOptionError(problem, "time_limit", "must be a positive number of seconds", time_limit)
        if not checked_float(problem, "time_limit", time_limit) > 0:
            raise InvalidOptionError(problem, "time_limit", "must be a positive number of seconds", time_limit)
    if not _is_int(threads) or not 1 <= threads <= MAX_THREADS:
        raise InvalidOptionError(problem, "threads", f"must be an integer in [1, {MAX_THREADS}]", threads)
    if not _is_int(seed):
        raise InvalidOptionError(problem, "seed", "must be an integer", seed)
    if node_limit is not None and (not _is_int(node_limit) or not 0 <= node_limit <= MAX_NODE_LIMIT):
        raise InvalidOptionError(problem, "node_limit", f"must be an integer in [0, {MAX_NODE_LIMIT}]", node_limit)
    if isinstance(mip_rel_gap, bool) or not isinstance(mip_rel_gap, (int, float)):
        raise InvalidOptionError(problem, "mip_rel_gap", "must be a finite number >= 0", mip_rel_gap)
    if not checked_float(problem, "mip_rel_gap", mip_rel_gap) >= 0:
        # any finite non-negative relative gap is a valid tolerance (HiGHS accepts [0, inf)); a run that
        # stops at a positive one reports gap_limit, never optimal
        raise InvalidOptionError(problem, "mip_rel_gap", "must be a finite number >= 0", mip_rel_gap)


def _check_instance(instance: Any) -> Problem:
    """The problem of ``instance``, which must be an instance object of a registered problem (as
    ``optsched.generate`` and ``optsched.load_instance`` return them), not its JSON data."""
    name = getattr(instance, "problem", None)
    if not isinstance(name, str) or isinstance(instance, dict):
        hint = (" (JSON data: read it with optsched.load_instance or the instance type's from_json)"
                if isinstance(instance, dict) else "")
        raise InvalidInstanceError("instance", "instance", "must be an instance of a registered problem, not "
                                   f"{type(instance).__name__}{hint}")
    problem = get_problem(name)
    if not isinstance(instance, problem.instance_type):
        raise InvalidInstanceError(name, "instance", f"must be a {problem.instance_type.__name__}, not "
                                   f"{type(instance).__name__}")
    return problem


def solve(instance: Any, method: str | None = None, *, backend: str | None = None,
          time_limit: float | None = None, seed: int = 0, threads: int = 1, mip_rel_gap: float = 0.0,
          node_limit: int | None = None, options: dict | None = None,
          progress: Callable[[str, float | None], None] | None = None) -> Result:
    """Solve ``instance`` with ``method`` (the problem's default when None) and return a Result.

    ``backend``, ``time_limit``, ``threads``, ``mip_rel_gap`` and ``node_limit`` go to the
    solver of exact methods; ``seed`` seeds randomized methods and the solver; ``options`` are the
    method's own keyword arguments (see ``optsched methods PROBLEM``).
    """
    problem = _check_instance(instance)
    check_name(problem.name, "method", method)
    check_name(problem.name, "backend", backend)
    meth = problem.get_method(method)
    _check_settings(problem.name, time_limit, seed, threads, mip_rel_gap, node_limit)
    opts = meth.resolve_options(options)
    backend_name = get_backend(backend).name
    settings = SolverSettings(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                              seed=seed, node_limit=node_limit)
    ctx = SolveContext(problem, meth, backend_name, settings, seed, opts, progress)
    record_settings = {"options": opts}
    if meth.uses_backend:
        record_settings.update(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                               node_limit=node_limit)
    base = dict(problem=problem.name, method=meth.name, fidelity=meth.fidelity, seed=seed,
                settings=record_settings, instance_sha256=instance.sha256(),
                backend=backend_name if meth.uses_backend else None)
    ok, why = meth.applicable(instance)
    if not ok:
        raise NotApplicable(problem.name, meth.name, why)
    start = time.perf_counter()
    ctx.start_clock()
    try:
        out: Outcome = meth.run(instance, ctx)
    except Infeasible as exc:
        return Result(status="infeasible", reason=exc.reason, wall_s=time.perf_counter() - start,
                      solver_version=None, **_with_subsolves(ctx, base, meth))
    except TimeLimitReached as exc:
        out = exc.incumbent or Outcome(solution=None, status="time_limit", reason=str(exc))
        out.status = "time_limit"
    wall = time.perf_counter() - start
    return _finish(problem, meth, instance, _honest_status(ctx, out, wall), wall,
                   _with_subsolves(ctx, base, meth))


def _with_subsolves(ctx: SolveContext, base: dict, meth: Method) -> dict:
    """The record's back-end and settings: those of the sub-solves a method ran, if any."""
    if not ctx.subsolves:
        return base
    s = ctx.settings
    base = dict(base, backend=ctx.backend,
                settings={**base["settings"], "time_limit": s.time_limit, "mip_rel_gap": s.mip_rel_gap,
                          "threads": s.threads, "node_limit": s.node_limit})
    return base


def _honest_status(ctx: SolveContext, out: Outcome, wall: float) -> Outcome:
    """Core rules on ``optimal`` that no method can bypass.

    * a run that outlived its time budget reports ``time_limit`` (its bound and gap still show how
      good the answer is);
    * a run any of whose model solves stopped at a limit (or failed) reports ``time_limit`` (a
      time limit), ``gap_limit`` (only gap tolerances) or ``feasible`` (a work limit), never
      ``optimal``.
    The sub-solves are summarized in ``stats["subsolves"]``: their count, statuses and solver
    time, and on a portfolio back-end ``portfolio_winners`` (member -> how many models it
    answered) and ``portfolio_members`` (every member that raced).
    """
    stats = dict(out.stats)
    statuses = [r["status"] for r in ctx.subsolves]
    if ctx.subsolves:
        counts: dict[str, int] = {}
        for st in statuses:
            counts[st] = counts.get(st, 0) + 1
        stats["subsolves"] = {"count": len(statuses), "statuses": counts,
                              "solver_time_s": sum(r["run_time"] or 0.0 for r in ctx.subsolves)}
        raced = [r for r in ctx.subsolves if "portfolio_members" in r]
        if raced:  # a portfolio back-end: which member answered each model
            stats["subsolves"]["portfolio_winners"] = _portfolio_winners(raced)
            stats["subsolves"]["portfolio_members"] = sorted({m for r in raced for m in r["portfolio_members"]})
    status, reason = out.status, out.reason
    if status == "optimal":
        limited = [st for st in statuses if st not in ("optimal", "infeasible")]
        if ctx.time_limit is not None and wall > ctx.time_limit:
            status = "time_limit"
            reason = reason or f"finished after its time limit of {ctx.time_limit} s"
        elif "time_limit" in limited:
            status, reason = "time_limit", reason or "a model solve stopped at the time limit"
        elif set(limited) == {"gap_limit"}:
            status = "gap_limit"
            reason = reason or "a model solve stopped at its gap tolerance with the gap still open"
        elif limited:
            status = "feasible"
            reason = reason or f"a model solve ended with status {limited[0]!r}, so optimality is not proven"
    if status == out.status and stats == out.stats:
        return out
    return dataclasses.replace(out, status=status, reason=reason, stats=stats)


def _portfolio_winners(raced: list[dict]) -> dict[str, int]:
    """How many of a method's model solves each portfolio member answered (``none``: no member
    found a point), most first."""
    counts: dict[str, int] = {}
    for r in raced:
        key = r["portfolio_winner"] or "none"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _finish(problem: Problem, meth: Method, instance: Any, out: Outcome, wall: float, base: dict) -> Result:
    stats = dict(out.stats)
    status, objective, reason = out.status, out.objective, out.reason
    if out.backend:
        base["backend"] = out.backend
    if meth.is_bound or out.solution is None:
        if out.solution is None and status in ("optimal", "feasible") and not meth.is_bound:
            status, reason = "error", reason or "the method returned no solution"
        bound = out.bound if out.bound is not None else (objective if meth.is_bound else None)
        return Result(status=status, objective=objective, bound=bound,
                      gap=relative_gap(objective, bound) if not meth.is_bound else None,
                      wall_s=wall, solver_version=out.solver_version, solution=out.solution,
                      reason=reason, stats=stats, **base)
    report = problem.check(instance, out.solution)
    if not report.feasible:
        stats["violations"] = report.violations
        return Result(status="error", objective=report.objective, bound=out.bound, wall_s=wall,
                      solver_version=out.solver_version, solution=out.solution,
                      reason=f"the method's solution violates {len(report.violations)} constraint(s): "
                             + "; ".join(report.violations[:3]), stats=stats, **base)
    checked = report.objective
    if checked is None or not math.isfinite(checked):
        return Result(status="error", objective=None, bound=out.bound, wall_s=wall,
                      solver_version=out.solver_version, solution=out.solution,
                      reason=f"the checker's objective is {checked!r}, not a finite number", stats=stats,
                      **base)
    if objective is not None and abs(objective - checked) > objective_tolerance(checked):
        stats["reported_objective"] = objective
        if status == "optimal":
            status = "error"
            reason = (f"the method claims optimal value {objective!r} but its solution's checked value "
                      f"is {checked!r}")
    bound = out.bound
    if bound is not None and problem.better(checked, bound) and abs(checked - bound) > objective_tolerance(bound):
        stats["bound_violated_by_checked_objective"] = bound
        status = "error"
        reason = (f"the solution's checked value {checked!r} is better than the method's proven bound "
                  f"{bound!r}: the bound (or the model) is wrong")
    return Result(status=status, objective=checked, bound=bound, gap=relative_gap(checked, bound),
                  wall_s=wall, solver_version=out.solver_version, solution=out.solution, reason=reason,
                  stats=stats, **base)


def model_outcome(ctx: SolveContext, model: LinearModel, decode: Callable[[np.ndarray], Any],
                  **overrides) -> Outcome:
    """Solve an exact model on the context's back-end and decode its point into a solution.

    ``infeasible`` raises :class:`Infeasible` (turned into an infeasible result); a limit keeps
    the incumbent (if the back-end returned one) with the bound and its status.
    """
    sol = ctx.solve_model(model, **overrides)
    if sol.status == "infeasible":
        raise Infeasible(f"the {model.name} model is infeasible ({sol.backend}: {sol.message})")
    stats = {"solver_run_time": sol.run_time, "solver_message": sol.message, **sol.stats}
    solution = decode(sol.x) if sol.x is not None else None
    reason = sol.message if sol.status == "error" else None
    if sol.status == "time_limit" and solution is None:
        reason = "time limit reached; the back-end returned no incumbent point"
    return Outcome(solution=solution, objective=sol.objective, bound=sol.bound, status=sol.status,
                   backend=sol.backend, solver_version=sol.solver_version, reason=reason, stats=stats)


def relaxation_outcome(ctx: SolveContext, model: LinearModel) -> Outcome:
    """The LP relaxation's optimum as a bound (for methods of kind ``bound``)."""
    sol = ctx.solve_model(model.relaxed())
    if sol.status == "infeasible":
        raise Infeasible(f"the LP relaxation of {model.name} is infeasible ({sol.backend})")
    value = sol.objective if sol.status == "optimal" else sol.bound
    return Outcome(solution=None, objective=value, bound=value, status=sol.status, backend=sol.backend,
                   solver_version=sol.solver_version,
                   reason=None if sol.status == "optimal" else sol.message,
                   stats={"solver_run_time": sol.run_time})
