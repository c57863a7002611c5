"""The clock inside hetero-sharding's model building (milp, milp-round, ratio-lp, alternate) and
the joint MILP's memory refusal.

No wall time: the budget is a counter (``tests/clock_support.py``). The units of work are the
rows written; a building loop polls once per segment, per (stage, device) and per (stage, option)
pair, so after the budget is spent at most one poll's rows (3 n McCormick rows) are written
before the run stops, as ``time_limit`` without a model solve.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import optsched
from optsched.core.errors import InvalidOptionError, NotApplicable
from optsched.problems.hetero_sharding import methods, model

from ..clock_support import solve_with_counting_clock, stops

ROWS = [(model._Rows, "row")]


def _instance():
    # 16 devices, 6 stages of 1-3 options, 3 segments: every building loop runs several polls
    return optsched.generate("hetero-sharding", seed=2, devices=16, stages=6, segments=3)


@pytest.mark.parametrize("method", ["milp", "milp-round", "ratio-lp"])
def test_building_stops_within_one_poll_of_rows(method):
    inst = _instance()
    n = inst.num_devices
    full, clock = solve_with_counting_clock(inst, method, work=ROWS)
    assert full.status in ("optimal", "feasible") and clock.work > 6 * n
    for k in stops(clock.work, count=14, first=1):
        result, c = solve_with_counting_clock(inst, method, expire_after_work=k, work=ROWS)
        assert result.status == "time_limit", f"row {k}: {result.status}"
        assert result.solution is None and "subsolves" not in result.stats, f"row {k}: the model was solved"
        assert len(c.late) <= 3 * n, f"row {k}: {len(c.late)} rows written after the budget was spent"


def test_alternate_keeps_its_best_plan_at_the_limit():
    inst = _instance()
    full, clock = solve_with_counting_clock(inst, "alternate")
    assert full.status == "feasible" and clock.reads > 3
    result, c = solve_with_counting_clock(inst, "alternate", clock.reads - 2)
    assert result.status == "time_limit" and result.solution is not None
    assert result.objective >= full.objective * (1 - 1e-9)  # the best plan seen before the stop


def test_already_spent_budget_builds_nothing():
    result, clock = solve_with_counting_clock(_instance(), "milp", 0, work=ROWS)
    assert result.status == "time_limit" and clock.work <= 1 and clock.reads == 1


def test_model_size_counts_the_built_model():
    for seed in range(3):
        inst = optsched.generate("hetero-sharding", seed=seed, devices=7, stages=5, segments=3)
        built = model.build_model(inst)
        assert model.model_size(inst) == (built.num_cols, built.matrix.nnz)


@pytest.mark.parametrize("method", ["milp", "milp-round"])
def test_a_model_that_cannot_fit_is_refused_before_building(monkeypatch, method):
    inst = _instance()
    cols, nnz = model.model_size(inst)
    need = nnz * model.MILP_BYTES_PER_NONZERO
    monkeypatch.setattr(methods, "physical_memory", lambda: need - 1)
    monkeypatch.setattr(model, "build_model", lambda *a, **k: pytest.fail("built a model that cannot fit"))
    with pytest.raises(NotApplicable, match="more than this machine's"):
        optsched.solve(inst, method)
    monkeypatch.setattr(methods, "physical_memory", lambda: need)
    assert methods.milp_fits(inst)[0]


def test_the_declared_bounds_are_refused_on_any_machine():
    # 10,000 stages of 1,000 options on 1,024 devices (the generator's upper ends): the estimate
    # (about 1e13 bytes) exceeds any machine's memory; the counts alone decide (nothing is built)
    stage = SimpleNamespace(options=range(1_000))
    big = SimpleNamespace(num_devices=1_024, num_stages=10_000, num_segments=10_000, stages=[stage] * 10_000)
    ok, why = methods.milp_fits(big)
    assert not ok and "GB" in why
    assert model.model_size(big)[1] * model.MILP_BYTES_PER_NONZERO > 1e13


def test_max_rounds_outside_its_range_is_refused():
    with pytest.raises(InvalidOptionError, match="option max_rounds"):
        optsched.solve(_instance(), "alternate", options={"max_rounds": 10 ** 400})


def test_a_program_count_beyond_floats_is_refused_by_brute():
    # 2,000 stages of 1-3 options: more programs than a float holds (it overflowed to inf and
    # int(inf) raised a traceback); the count is an exact integer, shown as about 10^k
    inst = optsched.generate("hetero-sharding", seed=0, stages=2_000)
    with pytest.raises(NotApplicable, match=r"programs = about 10\^\d{3}"):
        optsched.solve(inst, "brute")
