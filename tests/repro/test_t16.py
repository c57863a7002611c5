"""T16 (``paper_repro/t16_solvers.py``): how a time row names the portfolio's members and winner."""

from __future__ import annotations

from pathlib import Path

import pytest

from optsched.repro.discovery import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "paper_repro" / "t16_solvers.py"


@pytest.fixture(scope="module")
def t16():
    return load_script(SCRIPT)


def test_one_model_names_its_winner(t16):
    stats = {"portfolio_members": {"cpsat": {}, "scip": {}}, "portfolio_winner": "scip",
             "subsolves": {"count": 1, "portfolio_winners": {"scip": 1}, "portfolio_members": ["cpsat", "scip"]}}
    assert t16._portfolio_summary(stats) == ("cpsat+scip", "scip")


def test_several_models_count_each_members_wins(t16):
    stats = {"subsolves": {"count": 4, "portfolio_winners": {"highs": 3, "scip": 1},
                           "portfolio_members": ["highs", "scip"]}}
    assert t16._portfolio_summary(stats) == ("highs+scip", "highs (3 of 4), scip (1 of 4)")


def test_no_portfolio_no_names(t16):
    assert t16._portfolio_summary({"subsolves": {"count": 2}}) == (None, None)
