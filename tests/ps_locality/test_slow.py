"""Heavy ps-locality checks (``-m slow``): the acceptance instance size, over seeds."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.solving import objective_tolerance


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_contended_lp_le_opt_le_alg(seed):
    inst = optsched.generate("ps-locality", seed=seed, preset="contended")
    opt = optsched.solve(inst, "milp", time_limit=600)
    assert opt.status == "optimal"
    tol = objective_tolerance(opt.objective)
    assert optsched.solve(inst, "lp").objective <= opt.objective + tol
    assert optsched.solve(inst, "lower-bound").objective <= opt.objective + tol
    for method in ("rr", "fifo-locality", "drf", "online-rr"):
        r = optsched.solve(inst, method, seed=seed)
        assert r.status == "feasible" and r.objective >= opt.objective - tol, method


@pytest.mark.slow
def test_node_limit_is_never_reported_optimal():
    inst = optsched.generate("ps-locality", seed=0, preset="contended")
    r = optsched.solve(inst, "milp", node_limit=1)
    if r.status != "optimal":
        assert r.status in ("feasible", "time_limit") and r.bound is not None and r.gap is not None
        assert r.bound <= r.objective + objective_tolerance(r.objective)
