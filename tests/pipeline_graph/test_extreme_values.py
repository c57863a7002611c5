"""pipeline-graph: extreme values inside the documented limits (the problem-free limits:
``tests/test_extreme_values.py``, docs/io.md, "Numeric limits")."""

from __future__ import annotations

import optsched

#: the time limit of each solve (seconds): far beyond a tiny instance's DP, so that the status is the
#: method's own answer on any machine, not the clock's
TIME_LIMIT = 3600.0


def _tiny(problem: str) -> dict:
    return optsched.generate(problem, seed=0, preset="tiny").to_json()


def test_a_1e30_activation_does_not_crash_antichain_dp():
    """One activation of 1e30 bytes beside millisecond layers (inside the 1e50 limit) made the
    DP's sums lose all precision and antichain-dp raise RuntimeError; now it returns its best
    plan, not claimed optimal, with a bound that is still a bound."""
    data = _tiny("pipeline-graph")
    data["activation_bytes"][1] = 1e30
    cls = type(optsched.generate("pipeline-graph", seed=0, preset="tiny"))
    inst = cls.from_json(data)
    for method in ("antichain-dp", "chain-dp"):
        r = optsched.solve(inst, method, time_limit=TIME_LIMIT)
        assert r.status == "feasible", (method, r.status, r.reason)
        assert r.bound is None or r.bound <= r.objective
