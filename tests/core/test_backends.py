"""Back-ends: the same linear model through four routes, statuses, bounds and the watchdog."""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.core.backends import BACKENDS, SolverSettings, get_backend, write_mps
from optsched.core.errors import InvalidOptionError, UnknownNameError
from optsched.core.linear import ModelBuilder
from tests.core.patience import patient
from tests.core.picks import MILP_PROBLEM

build_model = optsched.get_problem(MILP_PROBLEM).build_model

ALL = sorted(BACKENDS)


def lp_model():
    """min x + 2y s.t. x + y >= 3, x - y = 1, 0 <= x <= 10, y >= 0: optimum x=2, y=1, value 4."""
    b = ModelBuilder("lp", "min")
    xy = b.add_block("xy", 2, upper=[10, np.inf], cost=[1, 2])
    b.add_rows("cover", [[1, 1]], lower=3, cols=[xy])
    b.add_rows("balance", [[1, -1]], lower=1, upper=1, cols=[xy])
    return b.build()


@pytest.mark.parametrize("backend", ALL)
def test_lp_optimum_and_point(backend):
    if get_backend(backend).refuses(lp_model()) is not None:
        from optsched.core.errors import BackendRefused

        with pytest.raises(BackendRefused, match="continuous"):  # CP-SAT: integer models only
            get_backend(backend).solve(lp_model())
        return
    sol = get_backend(backend).solve(lp_model())
    assert sol.status == "optimal"
    # HiGHS' primal feasibility tolerance is 1e-7: the point is exact to that
    assert sol.objective == pytest.approx(4.0, abs=1e-7)
    assert np.allclose(sol.x, [2.0, 1.0], atol=1e-7)
    assert sol.bound == pytest.approx(4.0, abs=1e-7)


@pytest.mark.parametrize("backend", ALL)
def test_infeasible_mip(backend):
    b = ModelBuilder("infeasible", "max")
    x = b.add_block("x", 2, upper=1, integer=True, cost=[1, 1])
    b.add_rows("impossible", [[1, 1]], lower=3, cols=[x])
    assert get_backend(backend).solve(b.build()).status == "infeasible"


@pytest.mark.parametrize("backend", ALL)
def test_integral_objective_gets_an_exact_optimum_and_integral_bound(backend):
    inst = optsched.generate(MILP_PROBLEM, seed=2, items=20, rows=3)
    sol = get_backend(backend).solve(build_model(inst))
    assert sol.status == "optimal"
    assert sol.bound == sol.objective == round(sol.objective)


def test_node_limit_is_deterministic_and_never_optimal_unless_proven():
    inst = optsched.generate(MILP_PROBLEM, seed=1, preset="hard")
    a = optsched.solve(inst, "milp", node_limit=50)
    b = optsched.solve(inst, "milp", node_limit=50)
    assert a.status == "feasible" and a.gap > 0
    assert (a.objective, a.bound, a.solution) == (b.objective, b.bound, b.solution)


@pytest.mark.load_sensitive
@pytest.mark.parametrize("backend", ["highs", "scipy"])
def test_watchdog_stops_a_solve_that_overruns(backend):
    """The watchdog fires before the solver's own limit: in-process cancel (highs) and killing
    the child process (scipy) both end with time_limit, never optimal. What stopped the solve is
    read from the answer, not from the clock: HiGHS reports that it was interrupted (at its own
    limit it would report kTimeLimit), the child's answer is the watchdog's. The solver's own limit
    is stretched by the machine's load, so the watchdog (1 s) always comes first."""
    inst = optsched.generate(MILP_PROBLEM, seed=1, preset="hard")
    settings = SolverSettings(time_limit=patient(60.0), watchdog_factor=0.0, watchdog_grace_s=1.0)
    sol = get_backend(backend).solve(build_model(inst), settings)
    assert sol.status == "time_limit"
    assert "watchdog" in sol.message
    if backend == "highs":
        assert sol.message.startswith("kInterrupt"), sol.message  # cancelled, not at its own limit
    else:
        assert sol.stats.get("watchdog") is True and sol.x is None, sol  # the child was killed


def test_unknown_backend():
    with pytest.raises(UnknownNameError, match="gurobi"):
        get_backend("gurobi")


def test_mps_export_round_trips(tmp_path):
    model = lp_model()
    path = tmp_path / "lp.mps"
    write_mps(model, path)
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(4.0, abs=1e-7)


def test_large_seeds_reach_highs():
    """Seeds derived for repro cells are 63-bit; HiGHS takes 0 .. 2^31 - 1 (reduced, not dropped)."""
    assert SolverSettings(seed=2**62 + 5).solver_seed == 5
    inst = optsched.generate(MILP_PROBLEM, seed=0, preset="tiny")
    assert optsched.solve(inst, "milp", seed=2**62 + 5).status == "optimal"


def test_an_option_highs_rejects_is_an_error(monkeypatch):
    from optsched.core.errors import SolverError

    # the settings refuse it first (typed, exit 2) ...
    with pytest.raises(InvalidOptionError, match="threads"):
        SolverSettings(threads=-3)
    # ... and a value HiGHS itself rejects is still a SolverError
    settings = SolverSettings()
    object.__setattr__(settings, "threads", -3)
    with pytest.raises(SolverError, match="threads"):
        get_backend("highs").solve(lp_model(), settings)


# the load step (tests/core/patience.py) keeps two of the three: each is a minute there
@pytest.mark.parametrize("backend", [pytest.param("pyomo", marks=pytest.mark.load_sensitive), "cvxpy",
                                     pytest.param("scipy", marks=pytest.mark.load_sensitive)])
def test_child_solves_that_finish_within_the_limit_return_their_answer(backend):
    """Under a time limit these back-ends solve in a child process whose stdout carries the
    answer; solver output must not corrupt it. On this instance SciPy's bundled HiGHS prints a
    debug line ("HighsMipSolverData::transformNewIntegerFeasibleSolution ...") to the C-level
    stdout while it solves. The limit (an hour) only routes the solve through the child: it is
    far beyond the solve's few seconds, so the answer, optimal, does not depend on the speed."""
    inst = optsched.generate(MILP_PROBLEM, seed=5, items=40, rows=5, tightness=0.25)
    r = optsched.solve(inst, "milp", backend=backend, time_limit=3600.0)
    assert r.status == "optimal" and r.objective == optsched.solve(inst, "milp").objective
