"""The portfolio back-end on pipeline-partition's MILP, one model per stage count."""

from __future__ import annotations

import pytest

import optsched


def test_a_method_of_several_models_records_each_models_winner():
    """pipeline-partition's MILP solves one model per stage count: the record says which member
    answered each (a member no model was given to is not counted)."""
    inst = optsched.generate("pipeline-partition", seed=0, preset="tiny")
    res = optsched.solve(inst, "milp", backend="portfolio:highs+scip")
    sub = res.stats["subsolves"]
    assert sub["portfolio_members"] == ["highs", "scip"]
    assert sum(sub["portfolio_winners"].values()) == sub["count"] > 1
    assert set(sub["portfolio_winners"]) <= {"highs", "scip"}
    plain = optsched.solve(inst, "milp")
    assert "portfolio_winners" not in plain.stats["subsolves"]
    assert res.objective == pytest.approx(plain.objective, rel=1e-6)  # solver tolerances are 1e-7
