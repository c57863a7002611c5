"""Status honesty per composed method, checked on the method's own outcome (below the core's guard).

A composed method runs several solves or stages (one MILP per stage count, an LP then a rounding
and a repair, a DP and a threshold search, per-event MILPs, a portfolio of solvers, ...). It may
report ``optimal`` only when every part was proven, and its bound may use only what was proven.

Here, the registry-driven cases: every method that solves models with all of its solves stopped,
every exact search stopped by its own clock, the portfolio's combination and the core's guard.
How a part is made to stop unproven: ``tests/status_support.py``. Each problem's composed methods,
one part stopped at a time, are checked in its own ``tests/<folder>/test_status_honesty.py``; the
exceptions to the registry-driven rules below are declared by the problem's tests
(``tests/<folder>/declarations.py``, read by ``tests/declared.py``), each with the test that
covers it instead. The table of the methods and these tests is in ``docs/status.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.core.backends import SolverSettings, get_backend
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, objective_tolerance
from tests.declared import declared_pairs
from tests.status_support import assert_not_stronger, not_optimal, run_below_guard, stop_parts


# ---- 1. every method that uses a back-end: all of its solves stopped --------------------------
BACKEND_METHODS = sorted((p.name, m.name) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                         if m.uses_backend and p.tiny_instances is not None)
#: methods whose bound combines a part that is not a model solve (its proof stands however the
#: solves end): their bound is checked by their own test in their problem's folder
#: (``STATUS_OWN_BOUND_TEST`` of ``tests/<folder>/declarations.py``)
OWN_BOUND_TEST = declared_pairs("STATUS_OWN_BOUND_TEST")
#: methods with a proof that needs no model solve (e.g. a Lagrangian bound that may meet the
#: plan): with their solves stopped they may still be optimal; their own test turns the other
#: proof off (``STATUS_OTHER_PROOF``)
OTHER_PROOF = declared_pairs("STATUS_OTHER_PROOF")


@pytest.mark.parametrize("problem,method", BACKEND_METHODS, ids=[f"{p}/{m}" for p, m in BACKEND_METHODS])
@pytest.mark.parametrize("status", ["time_limit", "feasible"])
def test_every_solve_stopped_is_never_optimal(problem, method, status):
    """Registry-driven: each method that solves models, with every solve stopped, is not optimal and
    its bound is no stronger than the stopped solves' bounds (their loosest, for a combination)."""
    p = optsched.get_problem(problem)
    meth = p.methods[method]
    ran = 0
    for seed in range(3):
        inst = p.tiny_instances(seed)
        if not meth.applicable(inst)[0]:
            continue
        run = run_below_guard(inst, method, degrade=stop_parts(status=status), seed=seed)
        what = f"{problem}/{method} seed {seed} ({status})"
        if (problem, method) not in OTHER_PROOF:
            not_optimal(run, what)
        if run.out is not None and (problem, method) not in OWN_BOUND_TEST and run.parts:
            bound = run.out.objective if meth.is_bound else run.out.bound
            proven = [b for _, _, s in run.parts if (b := s.bound) is not None]
            loosest = None
            if len(proven) == len(run.parts):
                loosest = min(proven) if p.sense == "min" else max(proven)
            if meth.kind in ("exact", "bound"):  # their bound comes from the solves alone
                assert_not_stronger(p.sense, bound, loosest, what)
        ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method} applies to none of the first tiny instances")


@pytest.mark.parametrize("problem,method", BACKEND_METHODS, ids=[f"{p}/{m}" for p, m in BACKEND_METHODS])
def test_a_work_limit_is_never_an_error(problem, method):
    """Through ``solve``: ``node_limit = 0`` (a deterministic work limit, often before any point)
    ends in ``feasible``, ``node_limit`` or a proven status, never ``error`` (a method of per-K MILPs
    used to answer ``error``, "no incumbent plan", when no K found a point)."""
    p = optsched.get_problem(problem)
    meth = p.methods[method]
    ran = 0
    for seed in range(3):
        inst = p.tiny_instances(seed)
        if not meth.applicable(inst)[0]:
            continue
        r = optsched.solve(inst, method, seed=seed, node_limit=0)
        assert r.status != "error", f"{problem}/{method} seed {seed}: error at node_limit 0: {r.reason}"
        ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method} applies to none of the first tiny instances")


# ---- 1b. every exact or bound method that watches the clock itself: stopped after k reads --------
CLOCKED = sorted((p.name, m.name) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                 if m.kind in ("exact", "bound") and not m.uses_backend and p.tiny_instances is not None)
#: methods that may stop and still prove OPT (a lower bound of their own search meets the plan):
#: there ``optimal`` needs that bound, checked against the proven OPT (``STATUS_BOUND_PROOF``)
BOUND_PROOF = declared_pairs("STATUS_BOUND_PROOF")


@pytest.mark.parametrize("problem,method", CLOCKED, ids=[f"{p}/{m}" for p, m in CLOCKED])
def test_exact_search_stopped_by_its_clock_is_never_optimal(problem, method):
    """Registry-driven: an exact search (DP, branch and bound, enumeration) whose clock reads
    "spent" from its (k+1)-th look on (k = 0, 1, 2, 4, 16) does not report ``optimal``; its
    bound, if any, is <= OPT (>= for a maximization). Methods that never look at the clock on
    these instances are skipped (the core's wall-clock rule then applies)."""
    p = optsched.get_problem(problem)
    meth = p.methods[method]
    stopped = 0
    for seed in range(3):
        inst = p.tiny_instances(seed)
        if not meth.applicable(inst)[0]:
            continue
        ref = None
        for k in (0, 1, 2, 4, 16):
            run = run_below_guard(inst, method, stop_after_reads=k, seed=seed)
            if run.reads <= k:
                break  # it finished before the clock said stop
            stopped += 1
            what = f"{problem}/{method} seed {seed}, stopped after {k} clock reads"
            if run.out is None:
                continue
            if ref is None:
                ref = optsched.solve(inst, p.reference_method if isinstance(p.reference_method, str) else method)
            bound = run.out.objective if meth.is_bound else run.out.bound
            if (problem, method) in BOUND_PROOF and run.out.status == "optimal":
                assert bound is not None and abs(bound - run.out.objective) <= objective_tolerance(bound), what
            else:
                not_optimal(run, what)
            if bound is not None and ref.status == "optimal":
                opt = ref.objective
                assert (bound <= opt + objective_tolerance(opt)) if p.sense == "min" else \
                    (bound >= opt - objective_tolerance(opt)), f"{what}: bound {bound}, OPT {opt}"
    if not stopped:
        pytest.skip(f"{problem}/{method} does not look at the clock on the first tiny instances")


# ---- 3. the portfolio back-end: a combination of solvers ----------------------------------------
def _member(status, objective, bound, x=(1.0,)):
    from optsched.core.linear import ModelSolution

    return ModelSolution(status=status, x=None if x is None else np.array(x), objective=objective, bound=bound,
                         backend="m", solver_version="0", run_time=0.1, message=status)


@pytest.mark.parametrize("sense", ["min", "max"])
def test_portfolio_combination_keeps_the_tightest_bound_and_no_proof(sense):
    """No member proved: the answer is ``time_limit``, the best point, and the tightest member
    bound (the largest lower bound of a minimization, the least upper bound of a maximization)."""
    from optsched.core.backends.portfolio import PortfolioBackend
    from optsched.core.linear import ModelBuilder

    b = ModelBuilder("one", sense)
    b.add_block("x", 1, upper=1, integer=True, cost=[1.0])
    model = b.build()
    if sense == "min":
        results = {"a": _member("time_limit", 10.0, 4.0), "b": _member("time_limit", 12.0, 7.0),
                   "c": _member("feasible", 11.0, 5.0)}
        want_obj, want_bound = 10.0, 7.0
    else:
        results = {"a": _member("time_limit", 10.0, 16.0), "b": _member("time_limit", 12.0, 13.0),
                   "c": _member("feasible", 11.0, 15.0)}
        want_obj, want_bound = 12.0, 13.0
    stats = {"portfolio_members": {m: {"status": s.status} for m, s in results.items()}}
    port = PortfolioBackend(keep_warm=False)  # no child is started: only the combination runs
    sol = port._combine(model, SolverSettings(time_limit=1.0), results, 1.0, stats)
    assert sol.status == "time_limit"
    assert sol.objective == want_obj and sol.bound == want_bound
    # a member that errs contributes no bound
    results["d"] = _member("error", None, -1e9 if sense == "max" else 1e9, x=None)
    stats["portfolio_members"]["d"] = {"status": "error"}
    sol = port._combine(model, SolverSettings(time_limit=1.0), results, 1.0, stats)
    assert sol.bound == want_bound and sol.status != "optimal"


# ---- 5. the core's guard on its own --------------------------------------------------------------
@pytest.mark.parametrize("statuses,wall,want", [
    (["optimal", "optimal"], 0.1, "optimal"),
    (["optimal", "infeasible"], 0.1, "optimal"),              # a part proven infeasible is proven
    (["optimal", "time_limit"], 0.1, "time_limit"),
    (["time_limit", "feasible"], 0.1, "time_limit"),          # the time limit wins
    (["optimal", "gap_limit"], 0.1, "gap_limit"),
    (["gap_limit", "feasible"], 0.1, "feasible"),             # a work limit and a gap tolerance
    (["optimal", "feasible"], 0.1, "feasible"),
    (["optimal", "node_limit"], 0.1, "feasible"),
    (["optimal", "error"], 0.1, "feasible"),
    (["optimal"], 5.0, "time_limit"),                         # outlived its budget of 1 s
    ([], 5.0, "time_limit"),
    ([], 0.1, "optimal"),
])
def test_core_guard_rules(statuses, wall, want):
    """``_honest_status`` alone: an ``optimal`` outcome is demoted by any unproven sub-solve or by
    a run longer than its budget (1 s here), and the sub-solves are counted in the stats."""
    from optsched.core.solving import _honest_status

    problem, meth = next((p, m) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                         if m.uses_backend)   # any method that solves models: the guard reads only the context
    ctx = SolveContext(problem, meth, "highs", SolverSettings(time_limit=1.0), 0, {})
    ctx.subsolves = [{"model": "m", "status": st, "backend": "highs", "solver_version": "x", "run_time": 0.01,
                      "time_limit": 1.0} for st in statuses]
    out = _honest_status(ctx, Outcome(solution={"selected": []}, objective=0.0, bound=0.0, status="optimal"), wall)
    assert out.status == want, (statuses, wall, out.status, out.reason)
    if want != "optimal":
        assert out.reason
    if statuses:
        assert out.stats["subsolves"]["count"] == len(statuses)
    # a status other than optimal is never promoted
    out = _honest_status(ctx, Outcome(solution=None, status="feasible"), wall)
    assert out.status == "feasible"


# ---- 6. an integral objective's bound is rounded toward the valid side ---------------------------
@pytest.mark.parametrize("sense,raw,want", [
    ("max", 10.0, 10.0), ("max", 10.0 - 1e-9, 10.0), ("max", 10.5, 10.0), ("max", 10.0 + 1e-9, 10.0),
    ("min", 10.0, 10.0), ("min", 10.0 + 1e-9, 10.0), ("min", 9.5, 10.0), ("min", 10.0 - 1e-9, 10.0),
])
def test_integral_bound_rounds_toward_the_valid_side(sense, raw, want):
    """A stopped MILP's dual bound on an objective of granularity 1 is rounded to the next integer
    *toward* OPT (down for a maximization, up for a minimization), and a bound that already is an
    integer, up to 1e-6 of solver noise, stays that integer: rounding it one step further would
    cross OPT when the bound is exact (``optsched.core.backends.base.finish``)."""
    from optsched.core.backends.base import finish
    from optsched.core.linear import ModelBuilder

    b = ModelBuilder("int", sense)
    b.add_block("x", 2, upper=20, integer=True, cost=[1, 1])
    model = b.build()
    assert model.objective_granularity == 1
    sol = finish(model, "feasible", [3.0, 4.0], 7.0, raw, get_backend("highs"), 0.1)
    assert sol.bound == want, (sense, raw, sol.bound)
