"""``learned`` reads the clock every ``POLL_REQUESTS`` requests (10^6 requests ran 71 s on a 5 s
limit). No wall clock: the budget is a counter (:mod:`tests.clock_support`)."""

from __future__ import annotations

import optsched
from optsched.problems.online_knapsack import learned

from ..clock_support import solve_with_counting_clock


def test_learned_stops_inside_the_stream(monkeypatch):
    monkeypatch.setattr(learned, "POLL_REQUESTS", 8)
    inst = optsched.generate("online-knapsack", seed=0, preset="small")
    full, clock = solve_with_counting_clock(inst, "learned")
    assert full.status == "feasible" and clock.reads >= inst.num_requests // 8
    result, c = solve_with_counting_clock(inst, "learned", clock.reads // 2)
    assert result.status == "time_limit" and result.solution is None


def test_the_models_refuse_streams_they_cannot_stop_on():
    from optsched.problems.online_knapsack import algorithms

    inst = optsched.generate("online-knapsack", seed=0, requests=algorithms.MODEL_MAX_REQUESTS + 1)
    for method in ("milp", "lp"):
        ok, why = optsched.get_problem("online-knapsack").methods[method].applicable(inst)
        assert not ok and "requests" in why
