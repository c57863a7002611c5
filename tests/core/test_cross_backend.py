"""Every exact model on every back-end agrees with highs or is refused with a reason.

The full table (every problem, three tiny instances and one small one) is slow on the shared
machine and marked ``slow``; the fast cases are the models whose translations were wrong before
(mixed integer/continuous columns on CVXPY, columns in no row or objective on Pyomo), each
problem's in its tests' ``test_cross_backend.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.core.backends import BACKENDS
from optsched.core.backends.base import Backend, BackendRefused, model_features
from optsched.core.linear import ModelBuilder

from .crossbackend import model_methods, reference_instances, table


def _mixed_model():
    # min x + y, x integer, y continuous, x + y >= 1.5, y <= 0.25; an unused free column z and
    # a column w in no row with a cost: optimum x = 2, y = 0 -> 2 (x = 1.25 if x were
    # continuous, and the forced-integer translation gives x=2,y=0 too, so add -y cost)
    b = ModelBuilder("mixed", sense="min")
    x = b.add_block("x", 1, upper=10, integer=True, cost=1.0)
    y = b.add_block("y", 1, upper=0.25, cost=-1.0)
    b.add_block("z", 1, lower=-np.inf, upper=np.inf)
    b.add_block("w", 1, lower=1, upper=3, cost=2.0)
    b.add_rows("cover", [[1.0, 1.0]], lower=[1.5], cols=[x, y])
    b.offset = 0.5
    return b.build()


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_mixed_integer_translation(backend):
    # x integer >= 1.25 -> 2, y = 0.25 -> 2 - 0.25 + 2*1 (w) + 0.5 = 4.25; a translation that
    # makes y integer gives y = 0 and 2 + 2 + 0.5 = 4.5; one that drops the unused z / w crashes
    model = _mixed_model()
    why = BACKENDS[backend].refuses(model)
    if why is not None:    # e.g. cpsat: pure-integer models only; refusing is the honest answer
        with pytest.raises(BackendRefused, match="continuous"):
            BACKENDS[backend].solve(model)
        return
    sol = BACKENDS[backend].solve(model)
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(4.25, abs=1e-7)
    assert sol.x is not None and sol.x.shape == (4,)
    assert model.violation(sol.x) <= 1e-6


def test_features_of_a_model():
    feats = model_features(_mixed_model())
    assert {"integer columns", "continuous columns", "free columns", "unreferenced columns",
            "objective offset"} <= feats
    assert "equality rows" not in feats


class _NoIntegers(Backend):
    name = "no-integers"
    features = frozenset({"continuous columns", "free columns", "unreferenced columns", "objective offset"})

    def version(self):
        return "test"


def test_a_backend_refuses_what_it_cannot_translate():
    with pytest.raises(BackendRefused, match="integer columns") as info:
        _NoIntegers().solve(_mixed_model())
    assert info.value.exit_status == 2


def test_every_backend_declares_every_feature_it_is_tested_on():
    for be in BACKENDS.values():
        assert be.features, be.name


@pytest.mark.slow
def test_cross_backend_table():
    cells = table(seeds=(0, 1, 2), small=True)
    wrong = {k: v for k, v in cells.items() if v[0].startswith("WRONG")}
    assert not wrong
    # every problem with a linear model is covered, on all four back-ends
    covered = {p for p, _ in cells}
    expected = {n for n, p in optsched.core.registry.problems().items() if model_methods(p)}
    assert covered == expected
    assert all(len(reference_instances(optsched.get_problem(p), (0, 1, 2), True)) >= 3 for p in covered)


@pytest.mark.parametrize("backend", ["highs", "pyomo", "cvxpy", "scipy"])
def test_an_empty_row_is_redundant_or_infeasible_on_every_backend(backend):
    for lower, status in ((-1.0, "optimal"), (1.0, "infeasible")):
        b = ModelBuilder("empty-row", sense="max")
        x = b.add_block("x", 2, upper=1, integer=True, cost=[1.0, 2.0])
        b.add_rows("cap", [[1.0, 1.0]], upper=[1.0], cols=[x])
        b.add_rows("empty", [[0.0, 0.0]], lower=[lower], upper=[2.0], cols=[x])
        sol = BACKENDS[backend].solve(b.build())
        assert sol.status == status, (backend, lower, sol.status, sol.message)
        if status == "optimal":
            assert sol.objective == pytest.approx(2.0)
