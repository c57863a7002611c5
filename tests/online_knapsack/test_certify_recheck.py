"""``certify`` trusts an attack only when the exact re-evaluation of its worst input (the
problem's own solve, ALG by the method, OPT by the hindsight MILP) agrees with the attack's own
accounting: a disagreeing re-evaluation makes the report uncertified, with the row saying so."""

from __future__ import annotations

import optsched.problems.online_knapsack.certified as certified

#: a small staircase (9 values, 4 copies each: 36 requests, the hindsight MILP in well under a second)
SMALL = {"grids": (9,), "copies": (4,), "tracking": False}


def test_an_agreeing_re_evaluation_certifies():
    report = certified.certify("threshold", 1.0, 16.0, **SMALL)
    assert report["certified"] is True and all(row["agrees"] for row in report["attacks"])


def test_a_disagreeing_re_evaluation_is_not_certified(monkeypatch):
    real = certified._exact

    def disagreeing(method, res, options, milp_max):
        exact = real(method, res, options, milp_max)
        return {**exact, "ratio": exact["ratio"] * 1.5}  # the attack's accounting is off by half

    monkeypatch.setattr(certified, "_exact", disagreeing)
    report = certified.certify("threshold", 1.0, 16.0, **SMALL)
    assert [row["agrees"] for row in report["attacks"]] == [False]
    assert report["certified"] is False
