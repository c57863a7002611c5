"""Status honesty below the core's guard: the helpers of the status tests (problem-free).

``tests/test_status_honesty.py`` runs the registry-driven cases (every method that solves models,
every exact search that watches its clock, the portfolio, the core's guard); each problem's
composed methods are checked one part at a time in ``tests/<folder>/test_status_honesty.py``,
with these helpers.

How the tests make one part stop unproven. The method runs on a :class:`SolveContext` built here,
and its ``run`` function is called directly, so :func:`optsched.solve`'s generic guard
(``_honest_status``) never sees the outcome. The context's ``solve_model`` is wrapped: the chosen
model solve really runs, then its answer is turned into a stopped one (status ``time_limit``, or
``feasible`` for a work limit, the point kept, the dual bound moved away from the optimum by a
quarter of its size). The context's own record of that solve (``ctx.subsolves``) keeps the real
status ``optimal``, so even the guard, had it run, would see only proven parts: what the tests
see is the method's own honesty. DP methods that poll the clock are stopped by a clock that
reports the budget spent after ``k`` reads, for several ``k``.

Each test asserts (1) the method does not report ``optimal``, and (2) its bound is no stronger than
the stopped parts allow (e.g. the minimum over the stage counts of their reported bounds). The
table of the methods and these tests is in ``docs/status.md``.
"""

from __future__ import annotations

import dataclasses
from importlib import import_module

import optsched
from optsched.core.backends import SolverSettings, get_backend
from optsched.core.errors import SolverError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached, objective_tolerance

#: how far a stopped part's bound moves away from its optimum (a quarter of its size, at least
#: 1): far larger than any solver tolerance, so a method that kept the unstopped bound is caught
LOOSEN = 0.25


def _loosened(bound, sense: str):
    if bound is None:
        return None
    step = LOOSEN * max(1.0, abs(bound))
    return bound - step if sense == "min" else bound + step


def stop_parts(which=lambda i, model: True, status: str = "time_limit"):
    """A ``degrade(i, model, sol)`` that stops the chosen solves: ``status``, the point kept, the
    bound loosened (None stays None)."""
    def degrade(i, model, sol):
        if not which(i, model) or sol.status != "optimal":
            return sol
        return dataclasses.replace(sol, status=status, bound=_loosened(sol.bound, model.sense),
                                   message=f"stopped by the test ({status})")
    return degrade


@dataclasses.dataclass
class Run:
    out: Outcome | None           # the method's own outcome (None: it raised)
    raised: BaseException | None  # TimeLimitReached / SolverError raised by the method, if any
    parts: list                   # (model name, sense, answer the method saw) per model solve
    ctx: SolveContext
    reads: int = 0                # clock reads (with stop_after_reads: stopped iff reads > it)


def run_below_guard(instance, method: str, *, degrade=None, options=None, stop_after_reads=None,
                    seed: int = 0, time_limit: float | None = None) -> Run:
    """Run ``method``'s own function on ``instance`` with a context built here (not through
    :func:`optsched.solve`, so the core's guard does not touch the outcome)."""
    problem = optsched.get_problem(instance.problem)
    meth = problem.get_method(method)
    if stop_after_reads is not None and time_limit is None:
        time_limit = 3600.0   # a budget, so that the clock is read at all
    settings = SolverSettings(time_limit=time_limit, seed=seed)
    ctx = SolveContext(problem, meth, get_backend(None).name, settings, seed, meth.resolve_options(options))
    parts = []
    if degrade is not None:
        real = ctx.solve_model

        def solve_model(model, **overrides):
            sol = degrade(len(parts), model, real(model, **overrides))
            parts.append((model.name, model.sense, sol))
            return sol
        ctx.solve_model = solve_model
    reads = [0]
    if stop_after_reads is not None:
        # the budget reads as spent from the (k+1)-th look at the clock on, whichever way the
        # method looks (expired / check_time, or remaining for a deadline of its own)
        def expired():
            reads[0] += 1
            return reads[0] > stop_after_reads

        def remaining():
            return -1.0 if expired() else 3600.0
        ctx.expired = expired
        ctx.remaining = remaining
    ctx.start_clock()
    try:
        out = meth.run(instance, ctx)
    except (TimeLimitReached, SolverError) as exc:  # stopping without an answer is honest
        if isinstance(exc, TimeLimitReached) and exc.incumbent is not None:
            return Run(exc.incumbent, exc, parts, ctx, reads[0])
        return Run(None, exc, parts, ctx, reads[0])
    return Run(out, None, parts, ctx, reads[0])


def not_optimal(run: Run, what: str):
    if run.out is not None:
        assert run.out.status != "optimal", f"{what}: reports optimal although a part stopped unproven"


def assert_not_stronger(problem_sense: str, bound, limit, what: str):
    """``bound`` (the method's) is no stronger than ``limit`` (what the parts proved)."""
    if bound is None:
        return
    assert limit is not None, f"{what}: reports bound {bound} although the stopped parts proved none"
    tol = objective_tolerance(limit)
    if problem_sense == "min":
        assert bound <= limit + tol, f"{what}: lower bound {bound} above what was proven ({limit})"
    else:
        assert bound >= limit - tol, f"{what}: upper bound {bound} below what was proven ({limit})"


def tiny(problem: str, want=lambda inst: True, seeds=range(40)):
    p = optsched.get_problem(problem)
    for s in seeds:
        inst = p.tiny_instances(s)
        if want(inst):
            return inst
    raise AssertionError(f"no tiny {problem} instance with the wanted property")


# ---- capacity repair (a solve, then re-solves with a lowered capacity) ----------------------------
def _forced_excess(overloads: int):
    """Make ``solve_with_capacity_repair`` see an overload on its first ``overloads`` checks (a
    solver tolerance that left the capacity row violated), whatever the set decoded."""
    from optsched.core import knapsack

    real = knapsack.solve_with_capacity_repair

    def patched(ctx, build, excess, *, tolerance, **kw):
        seen = [0]

        def forced(sol):
            seen[0] += 1
            return 10 * tolerance + 1e-9 if seen[0] <= overloads else min(excess(sol), 0.0)
        return real(ctx, build, forced, tolerance=tolerance, **kw)
    return patched


def check_capacity_repair(problem: str, stopped: str, monkeypatch, method: str = "milp"):
    """A repaired answer is never ``optimal`` (the lowered capacity may cut off OPT); its bound is
    the first solve's (loosened when that solve stopped), never the repaired model's, and a stopped
    re-solve is not hidden by a proven first one. ``stopped``: ``first``, ``repair`` or ``none``;
    the problem's ``algorithms`` module is the one that calls ``solve_with_capacity_repair``."""
    mod = import_module(f"{optsched.get_problem(problem).package}.algorithms")
    monkeypatch.setattr(mod, "solve_with_capacity_repair", _forced_excess(overloads=1))
    inst = tiny(problem)
    which = {"first": lambda i, m: i == 0, "repair": lambda i, m: i == 1, "none": lambda i, m: False}[stopped]
    run = run_below_guard(inst, method, degrade=stop_parts(which))
    assert len(run.parts) == 2, "the repair did not re-solve"
    what = f"{problem}/{method} capacity repair ({stopped} stopped)"
    not_optimal(run, what)
    first = run.parts[0][2].bound
    assert run.out.bound == first, f"{what}: bound {run.out.bound}, the first solve's is {first}"
    if stopped == "repair":
        assert run.out.status == "time_limit", what
