"""``lb`` reads the clock before each simulation (10^6 periods ran past 120 s on a 5 s limit) and
simulates each distinct bandwidth row once; a bound cut short is no bound. No wall clock: the
budget is a counter (:mod:`tests.clock_support`)."""

from __future__ import annotations

import optsched

from ..clock_support import solve_with_counting_clock


def test_lb_reads_the_clock_per_distinct_row_and_stops_without_a_value():
    inst = optsched.generate("pipeline-adaptive", seed=0, periods=30)
    distinct = len({tuple(row) for row in inst.trace.bandwidth})
    full, clock = solve_with_counting_clock(inst, "lb")
    assert full.status == "optimal"
    assert clock.reads == len(inst.candidates) * distinct
    result, _ = solve_with_counting_clock(inst, "lb", clock.reads // 2)
    assert result.status == "time_limit" and result.objective is None and result.bound is None


def test_repeated_rows_are_simulated_once():
    import dataclasses

    inst = optsched.generate("pipeline-adaptive", seed=0, periods=12)
    doubled = dataclasses.replace(inst, bandwidth=inst.bandwidth + inst.bandwidth)
    once, clock_once = solve_with_counting_clock(inst, "lb")
    twice, clock_twice = solve_with_counting_clock(doubled, "lb")
    assert twice.objective == once.objective and clock_twice.reads == clock_once.reads


def test_a_run_reads_the_clock_every_256_iterations():
    inst = optsched.generate("pipeline-adaptive", seed=0, iterations=1_000)
    for method in ("ada-grouper", "fixed", "oracle"):
        full, clock = solve_with_counting_clock(inst, method)
        assert full.status == "feasible" and clock.reads >= 1_000 // 256
        result, _ = solve_with_counting_clock(inst, method, 2)
        assert result.status == "time_limit" and result.solution is None


def test_memory_use_is_computed_once_per_group_size(monkeypatch):
    from optsched.problems.pipeline_adaptive import adagrouper

    calls = []
    peak_inflight = adagrouper.peak_inflight
    monkeypatch.setattr(adagrouper, "peak_inflight", lambda kind: calls.append(kind.tobytes()) or peak_inflight(kind))
    inst = optsched.generate("pipeline-adaptive", seed=0, iterations=500)
    optsched.solve(inst, "ada-grouper")
    # once per (group size, microbatches) pair and setting (the method's and the checker's), not
    # once per iteration
    assert len(calls) <= 2 * len(set(calls)) < 500
