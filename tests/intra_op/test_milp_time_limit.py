"""The clock inside intra-op's MILP building (milp, lp) and the MILP's memory refusal.

No wall time: the budget is a counter (``tests/clock_support.py``). The building polls between its
vectorized steps; a budget spent at any of them stops the run there as ``time_limit``, without a
model solve and without the later steps (the sparse rows handed to the model builder are its
units of work).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import optsched
from optsched.core.errors import NotApplicable
from optsched.core.linear import ModelBuilder
from optsched.problems.intra_op import model

from ..clock_support import solve_with_counting_clock

WORK = [(ModelBuilder, "add_sparse_rows"), (ModelBuilder, "add_block"), (ModelBuilder, "build")]


def _instance():
    return optsched.generate("intra-op", seed=1, graph="random", nodes=30, strategies=5)


@pytest.mark.parametrize("method", ["milp", "lp"])
def test_building_stops_at_every_poll(method):
    inst = _instance()
    full, clock = solve_with_counting_clock(inst, method)
    assert full.status == "optimal"
    polls = clock.reads - 1   # the last read is the model solve's remaining time
    assert polls >= 10
    for k in range(polls):
        result, c = solve_with_counting_clock(inst, method, k, work=WORK)
        assert result.status == "time_limit", f"poll {k}: {result.status}"
        assert "subsolves" not in result.stats, f"poll {k}: a model was solved"
        assert c.reads == k + 1 and c.late == [], f"poll {k}: building went on: {c.late}"


def test_every_step_is_followed_by_a_poll():
    """Spent during any unit of work (a block, a row group, the final build), the building starts
    no further unit: a poll sits between every two of them."""
    inst = _instance()
    full, clock = solve_with_counting_clock(inst, "milp", work=WORK)
    for k in range(1, clock.work):   # spent during the k-th unit (the last, build, ends the building)
        result, c = solve_with_counting_clock(inst, "milp", expire_after_work=k, work=WORK)
        assert result.status == "time_limit" and c.late == [], f"unit {k}: went on with {c.late}"


def test_linear_time_row_numbering_is_np_unique():
    # the marginal rows are numbered as np.unique's inverse (the model is the same as before)
    inst = _instance()
    m = model.build_model(inst)
    rows = m.matrix.tocoo().row
    assert np.array_equal(np.unique(rows), np.arange(m.num_rows))


def test_a_model_that_cannot_fit_is_refused_before_building(monkeypatch):
    inst = _instance()
    need = model.milp_memory(inst)
    monkeypatch.setattr(model, "physical_memory", lambda: int(need) - 1)
    monkeypatch.setattr(model, "build_model", lambda *a, **k: pytest.fail("built a model that cannot fit"))
    for method in ("milp", "lp"):
        with pytest.raises(NotApplicable, match="more than this machine's"):
            optsched.solve(inst, method)
    monkeypatch.setattr(model, "physical_memory", lambda: int(need))
    assert model.milp_fits(inst)[0]


def test_the_estimate_counts_pairs_and_strategies():
    inst = _instance()
    k = inst.num_strategies
    pairs = sum(int(k[u]) * int(k[v]) for u, v in zip(inst.edge_u, inst.edge_v))
    assert model.model_pairs(inst) == pairs
    assert model.milp_memory(inst) == model.MILP_BYTES_PER_ENTRY * (pairs + int(k.sum()))
    # the y block is cut from those pairs (forbidden ones removed)
    assert model.build_model(inst).block_values(np.zeros(model.build_model(inst).num_cols), "y").size <= pairs


def test_the_declared_bounds_are_refused_on_any_machine():
    # 100,000 nodes of 1,000 strategies with 150,000 edges: 1.5e11 pairs, about 5e13 bytes
    n, m = 100_000, 150_000
    big = SimpleNamespace(num_strategies=np.full(n, 1_000), edge_u=np.arange(m) % n, edge_v=(np.arange(m) + 1) % n)
    assert not model.milp_fits(big)[0]
