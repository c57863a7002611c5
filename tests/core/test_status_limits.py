"""``optimal`` means proven to the default zero gap; gap and node limits have their own statuses.

A positive ``mip_rel_gap`` that stops a search with its gap open reports ``gap_limit`` (with
objective, bound and gap) on every back-end; a node limit, 0 included, ends in ``feasible`` (a
point) or ``node_limit`` (none), never ``error``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from optsched.core.backends.base import SolverSettings, settle_status
from optsched.core.linear import ModelBuilder, ModelSolution
from optsched.core.result import STATUSES
from tests.core.patience import patient
from tests.core.picks import MILP_PROBLEM

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ("highs", "scip", "cpsat", "scipy", "pyomo", "cvxpy", "portfolio")


@pytest.fixture(scope="module")
def instance():
    # 100 items x 5 rows: no back-end's first incumbent is optimal, so a tolerance of 5 (500%)
    # stops every search with the gap open (measured: gaps 0.05 to 3.7 on the seven back-ends)
    return optsched.generate(MILP_PROBLEM, seed=0, preset="chu-beasley")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_positive_gap_tolerance_is_not_optimal(instance, backend):
    r = optsched.solve(instance, "milp", backend=backend, mip_rel_gap=5)
    assert "gap_limit" in STATUSES
    if backend == "portfolio" and r.status == "optimal":  # a member may prove the optimum first
        assert r.gap == 0
        return
    assert r.status == "gap_limit", (r.status, r.objective, r.bound, r.gap, r.reason)
    assert r.objective is not None and r.bound is not None and r.gap > 0
    assert r.bound >= r.objective  # a maximization: the bound is above


@pytest.mark.parametrize("backend", BACKENDS)
def test_node_limit_zero_is_never_an_error(instance, backend):
    r = optsched.solve(instance, "milp", backend=backend, node_limit=0)
    assert r.status in ("feasible", "node_limit"), (r.status, r.reason)
    if r.status == "node_limit":
        assert r.solution is None and r.objective is None
    else:
        assert r.solution is not None


def _model():
    b = ModelBuilder("two", "max")
    b.add_block("x", 2, upper=1, integer=True, cost=[3, 2])
    return b.build()


def _sol(status, objective, bound):
    return ModelSolution(status, None, objective, bound, "highs", "", 0.0)


def test_settle_status_rules():
    model = _model()
    loose = SolverSettings(mip_rel_gap=0.5)
    # open gap at a loosened tolerance: gap_limit, bound kept
    out = settle_status(model, loose, _sol("optimal", 3.0, 5.0))
    assert out.status == "gap_limit" and out.bound == 5.0 and "gap tolerance" in out.message
    # closed gap (within the granularity-based default): still optimal
    assert settle_status(model, loose, _sol("optimal", 5.0, 5.0)).status == "optimal"
    # no bound at all at a loosened tolerance: not proven
    assert settle_status(model, loose, _sol("optimal", 5.0, None)).status == "gap_limit"
    # default settings: the back-end's own zero-gap proof is taken as it is
    assert settle_status(model, SolverSettings(), _sol("optimal", 5.0, 5.0)).status == "optimal"
    # a larger absolute gap than the default loosens too
    assert settle_status(model, SolverSettings(mip_abs_gap=2.0), _sol("optimal", 3.0, 5.0)).status == "gap_limit"
    # other statuses pass through
    assert settle_status(model, loose, _sol("time_limit", 3.0, 5.0)).status == "time_limit"


@pytest.mark.load_sensitive
def test_cli_reports_gap_limit_with_exit_0(tmp_path, instance):
    path = tmp_path / "i.json"
    path.write_text(instance.dumps())
    proc = subprocess.run([sys.executable, "-m", "optsched.cli", "solve", MILP_PROBLEM, str(path), "--node-limit", "0",
                           "--quiet"], capture_output=True, text=True, cwd=ROOT, timeout=patient(120.0))
    assert proc.returncode == 0, proc.stderr
    assert ": node_limit " in proc.stdout or ": feasible " in proc.stdout, proc.stdout


def test_thread_counts_past_the_bound_are_a_typed_error():
    """``--threads 1e6`` reached HiGHS and ended in std::bad_alloc."""
    from optsched.core.backends.base import MAX_THREADS
    from optsched.core.errors import InvalidOptionError

    assert SolverSettings(threads=MAX_THREADS).threads == MAX_THREADS
    with pytest.raises(InvalidOptionError, match="threads"):
        SolverSettings(threads=MAX_THREADS + 1)
