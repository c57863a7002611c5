"""Status honesty per composed method, checked on the method's own outcome (below the core's guard).

A composed method runs several solves or stages (one MILP per stage count, an LP then a rounding
and a repair, a DP and a threshold search, per-event MILPs, a portfolio of solvers, ...). It may
report ``optimal`` only when every part was proven, and its bound may use only what was proven.

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

import numpy as np
import pytest

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


def _not_optimal(run: Run, what: str):
    if run.out is not None:
        assert run.out.status != "optimal", f"{what}: reports optimal although a part stopped unproven"


def _assert_not_stronger(problem_sense: str, bound, limit, what: str):
    """``bound`` (the method's) is no stronger than ``limit`` (what the parts proved)."""
    if bound is None:
        return
    assert limit is not None, f"{what}: reports bound {bound} although the stopped parts proved none"
    tol = objective_tolerance(limit)
    if problem_sense == "min":
        assert bound <= limit + tol, f"{what}: lower bound {bound} above what was proven ({limit})"
    else:
        assert bound >= limit - tol, f"{what}: upper bound {bound} below what was proven ({limit})"


def _tiny(problem: str, want=lambda inst: True, seeds=range(40)):
    p = optsched.get_problem(problem)
    for s in seeds:
        inst = p.tiny_instances(s)
        if want(inst):
            return inst
    raise AssertionError(f"no tiny {problem} instance with the wanted property")


# ---- 1. every method that uses a back-end: all of its solves stopped --------------------------
BACKEND_METHODS = sorted((p.name, m.name) for p in optsched.list_problems().values() for m in p.methods.values()
                         if m.uses_backend and p.tiny_instances is not None)
#: methods whose bound combines a part that is not a model solve (its proof stands however the
#: solves end): their bound is checked by their own test below
OWN_BOUND_TEST = {("ps-locality", "lower-bound"), ("intra-op", "anytime")}
#: methods with a proof that needs no model solve (intra-op anytime's Lagrangian bound may meet
#: the plan): with their solves stopped they may still be optimal; their own test turns the other
#: proof off
OTHER_PROOF = {("intra-op", "anytime")}


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
            _not_optimal(run, what)
        if run.out is not None and (problem, method) not in OWN_BOUND_TEST and run.parts:
            bound = run.out.objective if meth.is_bound else run.out.bound
            proven = [b for _, _, s in run.parts if (b := s.bound) is not None]
            loosest = None
            if len(proven) == len(run.parts):
                loosest = min(proven) if p.sense == "min" else max(proven)
            if meth.kind in ("exact", "bound"):  # their bound comes from the solves alone
                _assert_not_stronger(p.sense, bound, loosest, what)
        ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method} applies to none of the first tiny instances")


@pytest.mark.parametrize("problem,method", BACKEND_METHODS, ids=[f"{p}/{m}" for p, m in BACKEND_METHODS])
def test_a_work_limit_is_never_an_error(problem, method):
    """Through ``solve``: ``node_limit = 0`` (a deterministic work limit, often before any point)
    ends in ``feasible``, ``node_limit`` or a proven status, never ``error`` (pipeline-partition's
    per-K MILPs used to answer ``error``, "no incumbent plan", when no K found a point)."""
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
CLOCKED = sorted((p.name, m.name) for p in optsched.list_problems().values() for m in p.methods.values()
                 if m.kind in ("exact", "bound") and not m.uses_backend and p.tiny_instances is not None)
#: methods that may stop and still prove OPT (a lower bound of their own search meets the plan):
#: there ``optimal`` needs that bound, checked against the proven OPT
BOUND_PROOF = {("pipeline-graph", "antichain-dp")}


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
                _not_optimal(run, what)
            if bound is not None and ref.status == "optimal":
                opt = ref.objective
                assert (bound <= opt + objective_tolerance(opt)) if p.sense == "min" else \
                    (bound >= opt - objective_tolerance(opt)), f"{what}: bound {bound}, OPT {opt}"
    if not stopped:
        pytest.skip(f"{problem}/{method} does not look at the clock on the first tiny instances")


# ---- 2. per composed method: one part stopped at a time ------------------------------------------
def _partition_instance():
    """A pipeline-partition instance with at least two stage counts and an optimized objective."""
    return _tiny("pipeline-partition", lambda i: len(i.stage_counts()) >= 3 and i.objective != "sync")


def test_pipeline_partition_milp_one_stage_count_stopped():
    """Per-K MILPs: stopping any one K's MILP gives no ``optimal``, and the bound is the minimum over
    K of the bounds the K's reported (the stopped K's loosened one included)."""
    inst = _partition_instance()
    ks = list(inst.stage_counts())
    for k in range(len(ks)):
        run = run_below_guard(inst, "milp", degrade=stop_parts(lambda i, model, k=k: i == k))
        what = f"pipeline-partition/milp, K = {ks[k]} stopped"
        assert run.out is not None and run.out.status == "time_limit", (what, run.out and run.out.status)
        bounds = [s.bound for _, _, s in run.parts if s.status != "infeasible"]
        _assert_not_stronger("min", run.out.bound, min(bounds), what)
        assert run.out.bound is not None and run.out.bound >= min(bounds) - objective_tolerance(min(bounds))


def test_pipeline_partition_milp_bound_is_the_least_not_the_largest():
    """With every K solved, the bound is OPT = min over K; the largest K's value is no bound."""
    inst = _partition_instance()
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.bound is not None
    assert abs(r.bound - r.objective) <= objective_tolerance(r.objective)


def test_pipeline_partition_milp_no_bound_when_a_stage_count_has_none():
    inst = _partition_instance()

    def drop(i, model, sol):
        if i != 0 or sol.status != "optimal":
            return sol
        return dataclasses.replace(sol, status="time_limit", bound=None)
    run = run_below_guard(inst, "milp", degrade=drop)
    assert run.out.status == "time_limit" and run.out.bound is None


@pytest.mark.parametrize("method", ["dp", "subset-dp", "order-dp"])
def test_pipeline_partition_dps_stopped_at_every_clock_read(method, monkeypatch):
    """The DPs poll the clock; stopped after k reads (k = 0, 1, 2, 4, ...), they report
    ``time_limit`` with a bound no plan beats (<= OPT), never ``optimal``. The clock is read at
    every unit of work here (``POLL_EVERY = 1``) so that a small instance stops at many points."""
    from optsched.pipeline.partition import clock

    monkeypatch.setattr(clock, "POLL_EVERY", 1)
    inst = optsched.generate("pipeline-partition", seed=3, layers=24, topology="nvlink:4")
    ref = optsched.solve(inst, "milp")
    assert ref.status == "optimal"
    stopped = 0
    for k in (0, 1, 2, 4, 8, 16, 64, 256, 1024):
        run = run_below_guard(inst, method, stop_after_reads=k)
        if run.raised is None and run.out.status in ("optimal", "feasible"):
            break  # the search finished within k reads
        stopped += 1
        what = f"pipeline-partition/{method} stopped after {k} clock reads"
        _not_optimal(run, what)
        if run.out is not None and run.out.bound is not None:
            assert run.out.bound <= ref.objective + objective_tolerance(ref.objective), what
    assert stopped, f"{method} never read the clock on this instance: the test stops nothing"


def test_ps_locality_lower_bound_with_its_lp_stopped():
    """max(sum of solo times, pooled LP): with the LP stopped, not optimal, and the bound is
    max(solo, the LP's dual bound), not the unstopped LP value."""
    inst = _tiny("ps-locality")
    full = run_below_guard(inst, "lower-bound")
    run = run_below_guard(inst, "lower-bound", degrade=stop_parts())
    assert run.out.status == "time_limit"
    solo = run.out.stats["sum_solo_slots"]
    lp_bound = run.parts[0][2].bound
    _assert_not_stronger("min", run.out.bound, max(solo, lp_bound), "ps-locality/lower-bound")
    assert run.out.objective == run.out.bound
    # and with no dual bound at all, the solo sum alone
    run = run_below_guard(inst, "lower-bound", degrade=lambda i, m, s: dataclasses.replace(
        s, status="time_limit", bound=None, x=None, objective=None))
    assert run.out.status == "time_limit" and run.out.bound == solo
    assert full.out.status == "optimal" and full.out.bound >= solo


@pytest.mark.parametrize("method", ["rr", "online-rr"])
def test_ps_locality_rounding_with_its_lp_stopped(method):
    """LP, then rounding and repair: an LP stopped unproven gives no LP bound and no ``optimal``
    (rr refuses to round a point that is not the LP optimum)."""
    inst = _tiny("ps-locality")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, method, degrade=stop_parts(status=status))
        _not_optimal(run, f"ps-locality/{method}")
        if run.out is not None:
            assert run.out.bound is None, f"ps-locality/{method}: bound {run.out.bound} from an unproven LP"


def test_hetero_sharding_brute_one_program_lp_stopped():
    """One ratio LP per program: any one stopped LP means the enumeration proved nothing."""
    from optsched.problems.hetero_sharding.algorithms import num_programs

    brute = optsched.get_problem("hetero-sharding").methods["brute"]
    inst = _tiny("hetero-sharding", lambda i: brute.applicable(i)[0] and num_programs(i) >= 2)
    for k in range(num_programs(inst)):
        run = run_below_guard(inst, "brute", degrade=stop_parts(lambda i, m, k=k: i == k))
        _not_optimal(run, f"hetero-sharding/brute, program {k} stopped")


@pytest.mark.parametrize("method", ["milp-round", "alternate", "ratio-lp"])
def test_hetero_sharding_lp_or_milp_then_rounding(method):
    inst = _tiny("hetero-sharding")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, method, degrade=stop_parts(status=status))
        _not_optimal(run, f"hetero-sharding/{method}")
        if run.out is not None:
            assert run.out.bound is None


def test_hetero_sharding_milp_with_the_capped_model():
    """cap_seconds: a feasibility solve, then the MILP of another objective: never optimal."""
    inst = _tiny("hetero-sharding")
    run = run_below_guard(inst, "milp", options={"cap_seconds": True})
    _not_optimal(run, "hetero-sharding/milp cap_seconds")


@pytest.mark.parametrize("problem", ["mknap", "smd"])
def test_lp_round_then_repair_with_the_lp_stopped(problem):
    """LP-round then repair: a stopped LP is not rounded (no bound from it, no ``optimal``)."""
    inst = _tiny(problem)
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, "lp-round", degrade=stop_parts(status=status))
        _not_optimal(run, f"{problem}/lp-round")
        assert run.out is None or run.out.bound is None


def test_smd_certified_search_with_node_lps_stopped():
    """smd: inner MC-MKP steps and a branch and bound of node LPs; every solve stopped: not
    optimal, and the reported bound stays <= OPT."""
    for seed in range(6):
        inst = optsched.get_problem("smd").tiny_instances(seed)
        opt = optsched.solve(inst, "milp")
        if opt.status != "optimal":
            continue
        for status in ("time_limit", "feasible"):
            run = run_below_guard(inst, "smd", degrade=stop_parts(status=status), options={"target_gap": 0.0})
            _not_optimal(run, "smd/smd")
            if run.out is not None and run.out.bound is not None:
                assert run.out.bound <= opt.objective + objective_tolerance(opt.objective)


def test_interference_online_milp_per_event_with_every_event_stopped():
    inst = _tiny("interference-online")
    run = run_below_guard(inst, "milp-per-event", degrade=stop_parts())
    _not_optimal(run, "interference-online/milp-per-event")
    assert run.out.bound is None


def test_srpt_milp_placement_with_every_event_stopped():
    inst = _tiny("srpt")
    run = run_below_guard(inst, "a-srpt", degrade=stop_parts(), options={"placement": "milp"})
    _not_optimal(run, "srpt/a-srpt milp placement")
    assert run.out is None or run.out.bound is None


def test_intra_op_anytime_with_its_milp_stopped():
    """intra-op anytime: MILP stage, then Lagrangian and LNS stages; with the MILP stopped and the
    Lagrangian stage off, no stage proves the plan: not optimal, and the bound is no stronger
    than the MILP's loosened one."""
    inst = _tiny("intra-op")
    run = run_below_guard(inst, "anytime", degrade=stop_parts(), options={"lagrange": False})
    assert run.parts, "the MILP stage did not run"
    _not_optimal(run, "intra-op/anytime")
    _assert_not_stronger("min", run.out.bound, run.parts[0][2].bound, "intra-op/anytime")


def test_pipeline_graph_antichain_dp_stopped_by_its_deadline():
    """antichain-dp: chain DP, then the lattice DP; a deadline already past stops the lattice
    search: not optimal unless its proven lower bound meets the plan."""
    inst = optsched.generate("pipeline-graph", seed=0)
    problem = optsched.get_problem("pipeline-graph")
    meth = problem.methods["antichain-dp"]
    ctx = SolveContext(problem, meth, get_backend(None).name, SolverSettings(time_limit=1.0), 0,
                       meth.resolve_options({}))
    ctx.remaining = lambda: -1.0   # the budget is spent before the search starts
    out = meth.run(inst, ctx)
    if out.status == "optimal":
        assert out.bound is not None and out.objective <= out.bound * (1 + 2.5e-9)
    else:
        assert out.status in ("time_limit", "feasible")
        assert out.bound is None or out.bound <= out.objective * (1 + 1e-9)


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


# ---- 4. capacity repair (online-knapsack and online-packing milp): a solve, then re-solves ------
def _forced_excess(monkeypatch, overloads: int):
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


@pytest.mark.parametrize("problem", ["online-knapsack", "online-packing"])
@pytest.mark.parametrize("stopped", ["first", "repair", "none"])
def test_capacity_repair_status_and_bound(problem, stopped, monkeypatch):
    """A repaired answer is never ``optimal`` (the lowered capacity may cut off OPT); its bound is
    the first solve's (loosened when that solve stopped), never the repaired model's, and a stopped
    re-solve is not hidden by a proven first one."""
    from importlib import import_module

    mod = import_module(f"optsched.problems.{problem.replace('-', '_')}.algorithms")
    monkeypatch.setattr(mod, "solve_with_capacity_repair", _forced_excess(monkeypatch, overloads=1))
    inst = _tiny(problem)
    which = {"first": lambda i, m: i == 0, "repair": lambda i, m: i == 1, "none": lambda i, m: False}[stopped]
    run = run_below_guard(inst, "milp", degrade=stop_parts(which))
    assert len(run.parts) == 2, "the repair did not re-solve"
    what = f"{problem}/milp capacity repair ({stopped} stopped)"
    _not_optimal(run, what)
    first = run.parts[0][2].bound
    assert run.out.bound == first, f"{what}: bound {run.out.bound}, the first solve's is {first}"
    if stopped == "repair":
        assert run.out.status == "time_limit", what


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

    problem = optsched.get_problem("mknap")
    meth = problem.methods["milp"]
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
