"""``learned`` reads the clock every ``POLL_REQUESTS`` requests (10^6 requests ran 84 s on a 5 s
limit). No wall clock: the budget is a counter (:mod:`tests.clock_support`)."""

from __future__ import annotations

import importlib

import optsched

from ..clock_support import solve_with_counting_clock

learned = importlib.import_module("optsched.problems.online_packing.learned")


def test_learned_stops_inside_the_stream(monkeypatch):
    monkeypatch.setattr(learned, "POLL_REQUESTS", 8)
    inst = optsched.generate("online-packing", seed=0, preset="small")
    full, clock = solve_with_counting_clock(inst, "learned")
    assert full.status == "feasible" and clock.reads >= inst.num_requests // 8
    result, _ = solve_with_counting_clock(inst, "learned", clock.reads // 2)
    assert result.status == "time_limit" and result.solution is None
