"""``certify`` on one resource of an m-resource instance trusts an attack only when the exact
re-evaluation of its worst input agrees with the attack's own accounting."""

from __future__ import annotations

import optsched.problems.online_packing.certified as certified

#: a small staircase (9 values, 4 copies each: 36 requests, the hindsight MILP in well under a second)
SMALL = {"grids": (9,), "copies": (4,), "tracking": False}


def test_an_agreeing_re_evaluation_certifies():
    report = certified.certify("threshold", 2, 1.0, 16.0, **SMALL)
    assert report["certified"] is True and all(row["agrees"] for row in report["attacks"])


def test_a_disagreeing_re_evaluation_is_not_certified(monkeypatch):
    real = certified.exact_recheck

    def disagreeing(*args, **kwargs):
        exact = real(*args, **kwargs)
        return {**exact, "ratio": exact["ratio"] * 1.5}  # the attack's accounting is off by half

    monkeypatch.setattr(certified, "exact_recheck", disagreeing)
    report = certified.certify("threshold", 2, 1.0, 16.0, **SMALL)
    assert [row["agrees"] for row in report["attacks"]] == [False]
    assert report["certified"] is False
