"""The SCIP, CP-SAT and portfolio back-ends: every problem's exact models agree with HiGHS or are
refused with a reason; CP-SAT's integer scaling; statuses, limits, Ctrl-C.

Agreement tolerance: :func:`optsched.core.solving.objective_tolerance` (1e-6 relative), the
tolerance between two computations of one objective (the solvers' feasibility tolerances are
1e-7 relative; CP-SAT is exact on the scaled data, whose rationals round to the model's doubles).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import optsched
from optsched.core.backends import BACKENDS, SolverSettings, get_backend
from optsched.core.backends.cpsat import ACTIVITY_LIMIT, as_rational, scale_model
from optsched.core.backends.portfolio import PortfolioBackend
from optsched.core.errors import BackendRefused, InvalidOptionError, UnknownNameError
from optsched.core.linear import ModelBuilder
from optsched.core.solving import objective_tolerance
from tests.core.patience import growing_limit, patient, wait_until
from tests.core.picks import MILP_PROBLEM

build_model = optsched.get_problem(MILP_PROBLEM).build_model

ROOT = Path(__file__).resolve().parents[2]


def exact_cases(problems=None, kinds=("exact", "bound"), seeds=(0, 1)):
    """(problem, method, seed) for every exact or bound method that solves a model."""
    out = []
    for p in optsched.core.registry.problems().values():
        if p.tiny_instances is None or (problems is not None and p.name not in problems):
            continue
        for m in p.methods.values():
            if m.uses_backend and m.kind in kinds:
                out += [pytest.param(p.name, m.name, s, id=f"{p.name}/{m.name}/s{s}") for s in seeds]
    return out


def _portfolio_problems() -> tuple[str, ...]:
    """:data:`MILP_PROBLEM`, the first problem (registry order) with an exact model whose tiny
    instance's model CP-SAT accepts, and the first two whose model it refuses: a portfolio races
    ``cpsat`` or ``highs`` with ``scip``, and both ways are checked."""
    accepted, refused = [], []
    for p in optsched.core.registry.problems().values():
        if p.tiny_instances is None or p.build_model is None or (accepted and len(refused) == 2):
            continue
        if any(m.uses_backend and m.kind == "exact" for m in p.methods.values()):
            try:
                model = p.build_model(p.tiny_instances(0))
            except InvalidOptionError:  # several models (one per parameter value): not one to race
                continue
            (accepted if get_backend("cpsat").refuses(model) is None else refused).append(p.name)
    return tuple(dict.fromkeys([MILP_PROBLEM, *accepted[:1], *refused[:2]]))


PORTFOLIO_PROBLEMS = _portfolio_problems()


_HIGHS: dict = {}


def highs_result(problem, method, seed):
    key = (problem, method, seed)
    if key not in _HIGHS:
        inst = optsched.get_problem(problem).tiny_instances(seed)
        _HIGHS[key] = optsched.solve(inst, method, seed=seed)
    return _HIGHS[key]


def agree_or_refuse(problem, method, seed, backend):
    p = optsched.get_problem(problem)
    inst = p.tiny_instances(seed)
    if not p.methods[method].applicable(inst)[0]:
        pytest.skip("the method does not apply to this tiny instance")
    ref = highs_result(problem, method, seed)
    try:
        res = optsched.solve(inst, method, seed=seed, backend=backend)
    except BackendRefused as exc:
        assert exc.backend.startswith(backend.split(":")[0]) and exc.reason, exc
        assert exc.exit_status == 2
        return "refused", exc.reason
    assert res.backend == backend
    assert res.status == ref.status, (res.status, ref.status, res.reason)
    if ref.objective is not None:
        assert res.objective == pytest.approx(ref.objective, abs=objective_tolerance(ref.objective))
    if ref.status == "optimal" and ref.bound is not None:
        assert res.bound == pytest.approx(ref.bound, abs=objective_tolerance(ref.bound))
    return "agrees", res


@pytest.mark.parametrize("problem,method,seed", exact_cases())
@pytest.mark.parametrize("backend", ["scip", "cpsat"])
def test_exact_models_agree_with_highs_or_are_refused(problem, method, seed, backend):
    verdict, detail = agree_or_refuse(problem, method, seed, backend)
    if backend == "scip":
        assert verdict == "agrees", detail  # SCIP takes every linear model
    if verdict == "refused":
        assert any(w in detail for w in ("continuous", "denominator", "activity", "infinite")), detail


# each portfolio solve starts two interpreters (about 1 s): a few here, every case in the slow set
@pytest.mark.parametrize("problem,method,seed", exact_cases(PORTFOLIO_PROBLEMS, ("exact",), (0,)))
def test_portfolio_agrees_with_highs(problem, method, seed):
    verdict, res = agree_or_refuse(problem, method, seed, "portfolio")
    assert verdict == "agrees"
    raced = set(res.stats["portfolio_members"])
    assert res.stats["portfolio_winner"] in raced
    # CP-SAT replaces HiGHS exactly on the models it accepts
    accepted = get_backend("cpsat").refuses(optsched.get_problem(problem).build_model(
        optsched.get_problem(problem).tiny_instances(seed))) is None
    assert raced == ({"cpsat", "scip"} if accepted else {"highs", "scip"})


@pytest.mark.slow
@pytest.mark.parametrize("problem,method,seed", exact_cases())
def test_portfolio_agrees_with_highs_everywhere(problem, method, seed):
    assert agree_or_refuse(problem, method, seed, "portfolio")[0] == "agrees"


# ---- CP-SAT's scaling ---------------------------------------------------------------------------
def test_rational_reading_of_doubles():
    assert as_rational(0.3) == as_rational(0.1) * 3  # 3/10, not the binary 0.29999999999999998...
    assert as_rational(-7.0) == -7
    for v in (162284.26231774603, 0.5787464801671108, 1e-7, 123456.789):
        r = as_rational(v)
        assert float(r) == v and (r.denominator <= 10**6 or r == Fraction(v))


def test_random_doubles_fall_back_to_their_exact_binary_values():
    """Eight random doubles as short rationals would need a common denominator far above 2**53;
    read as binary fractions they share a power of two, and the row is accepted exactly."""
    rng = np.random.default_rng(0)
    vals = (rng.random(8) * 1e5).tolist()
    m = _one_row_model(vals, float(sum(vals) / 2), cost=vals)
    sm = scale_model(m)
    den = sm.rows[0][4]
    assert den & (den - 1) == 0 and sm.cost_scale & (sm.cost_scale - 1) == 0  # powers of two
    assert all(Fraction(k, den) == Fraction(v) for k, v in zip(sm.rows[0][1], vals))
    a, h = get_backend("cpsat").solve(m), get_backend("highs").solve(m)
    assert a.status == h.status == "optimal" and a.objective == pytest.approx(h.objective, rel=1e-9)


def test_decimal_data_are_scaled_to_the_rationals_they_mean():
    """0.1 x + 0.2 y <= 0.3: in binary doubles 0.1 + 0.2 > 0.3; read as tenths both fit. The
    row is scaled by 10 (and a second row by 4 for its quarters)."""
    b = ModelBuilder("tenths", "max")
    x = b.add_block("x", 2, upper=1, integer=True, cost=[1, 1])
    b.add_rows("tenths", [[0.1, 0.2]], upper=0.3, cols=[x])
    b.add_rows("quarters", [[0.25, 0.75]], upper=1.0, cols=[x])
    m = b.build()
    sm = scale_model(m)
    assert [r[1:] for r in sm.rows] == [([1, 2], -3, 3, 10), ([1, 3], -4, 4, 4)]
    sol = get_backend("cpsat").solve(m)
    assert sol.status == "optimal" and sol.objective == 2.0 and sol.bound == 2.0


def _one_row_model(coefs, upper, *, integer=True, col_upper=1.0, cost=None):
    b = ModelBuilder("one-row", "max")
    x = b.add_block("x", len(coefs), upper=col_upper, integer=integer, cost=cost or [1] * len(coefs))
    b.add_rows("row", [coefs], upper=upper, cols=[x])
    return b.build()


@pytest.mark.parametrize("model,words", [
    (_one_row_model([1, 1], 1, integer=False), "continuous"),
    (_one_row_model([1, 1], 1, col_upper=math.inf), "infinite bound"),
    (_one_row_model([2.0**-60, 1.0], 1), "denominator"),
    (_one_row_model([2.0**61, 1.0], 2.0**62), "activity"),
    (_one_row_model([1, 1], 1, cost=[1, 2.0**-60]), "objective"),
])
def test_cpsat_refuses_what_it_cannot_represent(model, words):
    with pytest.raises(BackendRefused, match=words) as info:
        get_backend("cpsat").solve(model)
    assert info.value.exit_status == 2 and "cpsat refuses" in str(info.value)
    assert get_backend("cpsat").refuses(model) is not None
    # the same models are fine for SCIP and HiGHS (where finite): the refusal is CP-SAT's alone
    if words not in ("infinite bound", "activity"):  # HiGHS rejects coefficients of 2**61
        assert get_backend("scip").solve(model).status == get_backend("highs").solve(model).status


def test_activity_limit_is_below_int64():
    assert ACTIVITY_LIMIT < 2**62


def test_no_integer_activity_is_proven_infeasible_by_scaling():
    """2x + 2y = 3 has no integer point: the scaled row's domain [3, 3] holds no even number;
    CP-SAT says infeasible, as do HiGHS and SCIP."""
    b = ModelBuilder("parity", "max")
    x = b.add_block("x", 2, upper=5, integer=True, cost=[1, 1])
    b.add_rows("odd", [[2, 2]], lower=3, upper=3, cols=[x])
    m = b.build()
    for name in ("cpsat", "scip", "highs"):
        assert get_backend(name).solve(m).status == "infeasible", name
    b2 = ModelBuilder("between", "max")
    y = b2.add_block("y", 1, lower=0.2, upper=0.8, integer=True, cost=[1])
    b2.add_rows("free", [[1]], upper=5, cols=[y])
    assert get_backend("cpsat").solve(b2.build()).status == "infeasible"


# ---- limits and statuses ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hard_model():
    return build_model(optsched.generate(MILP_PROBLEM, seed=1, preset="hard"))


@pytest.mark.parametrize("backend", ["scip", "cpsat"])
def test_node_limit_is_deterministic_feasible_with_bound(backend, hard_model):
    a = get_backend(backend).solve(hard_model, SolverSettings(node_limit=30))
    b = get_backend(backend).solve(hard_model, SolverSettings(node_limit=30))
    assert a.status == "feasible" and a.gap > 0 and a.bound >= a.objective
    assert (a.objective, a.bound) == (b.objective, b.bound)
    assert np.array_equal(a.x, b.x)
    assert hard_model.violation(a.x) <= 1e-6


@pytest.mark.load_sensitive
@pytest.mark.parametrize("backend", ["scip", "cpsat", "portfolio"])
def test_time_limit_reports_incumbent_bound_and_gap(backend, hard_model):
    """A solve stopped by its time limit: ``time_limit`` (never ``optimal``: the hard preset is
    closed by no solver within minutes), with its incumbent, its bound and the gap, stopped by the
    solver itself, not by the watchdog.

    The solver's first import counts against a limit (``Backend.solve``), so one solve of a tiny
    model imports it first (and, for the portfolio, starts the warm child member); the limit is
    stretched by the machine's load (and doubled while the search had no point by then) so that
    the search has time to find a point: what is checked is the answer at the limit, not the
    machine's speed."""
    get_backend(backend).solve(build_model(optsched.generate(MILP_PROBLEM, seed=0, preset="tiny")))

    def solve(limit):
        sol = get_backend(backend).solve(hard_model, SolverSettings(time_limit=limit))
        assert sol.status == "time_limit", (sol.status, sol.message)  # never optimal
        return sol

    # the portfolio's child member starts a fresh interpreter when no warm one is left
    sol = growing_limit(solve, lambda s: s.objective is not None, 2.0 if backend == "portfolio" else 1.0)
    if backend == "portfolio":
        _check_combination(sol)
        assert not [m for m, v in sol.stats["portfolio_members"].items() if "watchdog" in v["message"]], sol.stats
    assert sol.objective is not None and sol.bound is not None and sol.bound >= sol.objective
    assert sol.gap is not None and sol.gap > 0
    assert sol.bound == math.floor(sol.bound)  # integral objective: the bound is rounded down
    assert hard_model.violation(sol.x) <= 1e-6
    # the solver stopped itself at its limit: the watchdog (1.5 * limit + 5 s) did not have to
    assert "watchdog" not in sol.message, sol.message


def _check_combination(sol):
    """The portfolio at its limit: the best point and the tightest bound across its members."""
    members = sol.stats["portfolio_members"]
    answered = {m: v for m, v in members.items() if v["objective"] is not None}
    assert sol.objective == max(v["objective"] for v in answered.values())
    assert sol.bound == min(v["bound"] for v in members.values() if v["bound"] is not None)
    assert members[sol.stats["portfolio_winner"]]["objective"] == sol.objective


@pytest.mark.load_sensitive
def test_portfolio_first_proof_wins_and_the_loser_is_stopped():
    """An instance HiGHS and SCIP both prove quickly: one wins, the other is either killed or
    answered the same."""
    inst = optsched.generate(MILP_PROBLEM, seed=3, items=30, rows=3)
    res = optsched.solve(inst, "milp", backend="portfolio")
    assert res.status == "optimal" and res.objective == optsched.solve(inst, "milp").objective
    winner = res.stats["portfolio_winner"]
    members = res.stats["portfolio_members"]
    assert set(members) == {"cpsat", "scip"} and members[winner]["status"] == "optimal"
    assert res.stats["portfolio_substituted"] == {"highs": "cpsat"}
    strict = optsched.solve(inst, "milp", backend="portfolio:highs+scip")
    assert set(strict.stats["portfolio_members"]) == {"highs", "scip"} and strict.objective == res.objective
    assert all(v["status"] in ("optimal", "killed") for v in members.values())
    assert res.stats["portfolio_overhead_s"] >= 0


def test_portfolio_members_and_refusals():
    lp = build_model(optsched.generate(MILP_PROBLEM, seed=0, preset="tiny")).relaxed()
    sol = get_backend("portfolio:highs+cpsat").solve(lp)
    assert sol.status == "optimal" and sol.stats["portfolio_winner"] == "highs"
    assert "continuous" in sol.stats["portfolio_refused"]["cpsat"]
    with pytest.raises(BackendRefused, match="every member refuses"):
        get_backend("portfolio:cpsat").solve(lp)
    with pytest.raises(UnknownNameError, match="gurobi"):
        get_backend("portfolio:highs+gurobi")
    assert PortfolioBackend(("scip", "highs")).name == "portfolio:scip+highs"
    assert get_backend("portfolio:highs+scip").name == "portfolio:highs+scip"  # no substitution
    assert "portfolio" in BACKENDS and get_backend("portfolio").members == ("highs", "scip")


def test_scip_lp_bound_and_presolve_off_agree():
    inst = optsched.generate(MILP_PROBLEM, seed=4, items=25, rows=3)
    m = build_model(inst)
    on = get_backend("scip").solve(m)
    off = get_backend("scip").solve(m, SolverSettings(presolve=False))
    assert on.status == off.status == "optimal" and on.objective == off.objective
    lp = get_backend("scip").solve(m.relaxed())
    assert lp.bound == pytest.approx(get_backend("highs").solve(m.relaxed()).objective, rel=1e-9)


# ---- the CLI: refusals exit 2, Ctrl-C exits 130 ------------------------------------------------
def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _refused_for_continuous_columns() -> str:
    """The first problem (registry order) whose MILP on its tiny instance CP-SAT refuses for its
    continuous columns."""
    for p in optsched.core.registry.problems().values():
        if "milp" not in p.methods or p.tiny_instances is None or p.build_model is None:
            continue
        try:
            model = p.build_model(p.tiny_instances(0))
        except InvalidOptionError:  # several models (one per parameter value)
            continue
        why = get_backend("cpsat").refuses(model)
        if why is not None and "continuous" in str(why):
            return p.name
    raise LookupError("no problem's MILP has continuous columns: the refusal test needs one")


def test_cli_refusal_is_exit_2_one_line(tmp_path, capsys):
    from optsched.cli import main

    problem = _refused_for_continuous_columns()
    inst = optsched.get_problem(problem).tiny_instances(0)
    path = tmp_path / "inst.json"
    path.write_text(inst.dumps())
    code = main(["solve", problem, str(path), "--method", "milp", "--backend", "cpsat"])
    err = capsys.readouterr().err
    assert code == 2 and "cpsat refuses" in err and "continuous" in err
    assert len(err.strip().splitlines()) == 1


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (``SigCgt`` in ``/proc/PID/status``)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (or is a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


@pytest.mark.load_sensitive
def test_ctrl_c_ends_every_new_backend_cleanly(tmp_path):
    """SIGINT in the middle of a long solve: exit 130 with one line and no traceback, by the
    interrupt (the time limit is an hour away), and the portfolio leaves no child behind.

    Each command is interrupted once its signal handling is in place (the package's import holds
    SIGTERM, like SIGINT, first thing: its handler is the sign) and the portfolio once it has
    started its child member; the waits are guards scaled by the machine's load, not speeds."""
    path = tmp_path / "hard.json"
    path.write_text(optsched.generate(MILP_PROBLEM, seed=1, items=300, rows=10, tightness=0.5).dumps())
    procs = {}
    for backend in ("scip", "cpsat", "portfolio"):
        procs[backend] = subprocess.Popen(
            [sys.executable, "-m", "optsched.cli", "solve", MILP_PROBLEM, str(path), "--method", "milp",
             "--backend", backend, "--time-limit", "3600"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=tmp_path,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not an inherited SIG_IGN
    try:
        for backend, p in procs.items():
            wait_until(lambda: p.poll() is not None or _catches(p.pid, signal.SIGTERM),
                       f"{backend}: the command line's signal handling in place")
        # the portfolio starts its child member (scip) once its model is built
        children = wait_until(lambda: procs["portfolio"].poll() is not None or _children(procs["portfolio"].pid),
                              "the portfolio's child member started")
        assert children is not True, "the portfolio ended before starting a member"
        time.sleep(0.5)  # a moment for the searches to start; the outcome does not depend on it
        for p in procs.values():
            assert p.poll() is None, "the solve ended before the interrupt: the instance is too easy"
            p.send_signal(signal.SIGINT)
        for backend, p in procs.items():
            try:
                out, err = p.communicate(timeout=patient(60.0))  # a guard: the limit is an hour away
            except subprocess.TimeoutExpired:
                pytest.fail(f"{backend}: still running after the interrupt")
            err = err.decode()
            assert p.returncode == 130, (backend, p.returncode, err[-500:])
            assert "Traceback" not in err and "interrupted" in err, (backend, err[-500:])
        wait_until(lambda: all(_gone(c) for c in children), "the portfolio's members ended with it", 20.0)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()


def _children(pid: int) -> list[int]:
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("PPid:") and int(line.split()[1]) == pid:
                out.append(int(status.parent.name))
    return out
