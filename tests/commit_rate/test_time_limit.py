"""Every ``commit-rate`` method stops at its time limit inside one simulation (no wall clock: the
budget is a counter, :mod:`tests.clock_support`).

A simulation of 256 workers at the declared bound takes seconds per run, so a check only between
simulations would let a method run a whole simulation (and the referee's re-run) past the limit.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.commit_rate import algorithms

from ..clock_support import solve_with_counting_clock


@pytest.fixture(scope="module")
def instance():
    return optsched.generate("commit-rate", seed=0, preset="tiny")


@pytest.mark.parametrize("method", ["bsp", "ssp", "fixed", "adsp-search"])
def test_a_single_simulation_stops_at_the_limit(instance, method):
    full, clock = solve_with_counting_clock(instance, method)
    assert full.status == "feasible" and clock.reads > 3
    # spent after the second read: inside the (first) simulation
    result, _ = solve_with_counting_clock(instance, method, 2)
    assert result.status == "time_limit" and result.solution is None


def test_exhaustive_keeps_the_best_constant_when_stopped_inside_a_simulation(instance):
    full, clock = solve_with_counting_clock(instance, "exhaustive")
    assert full.status == "feasible"
    values = full.stats["objective_by_commits"]
    assert len(values) >= 3 and min(values[:2]) != min(values)
    # spent as the third constant's simulation starts: its first check stops it, with the best of two
    result, c = solve_with_counting_clock(instance, "exhaustive", expire_after_work=3,
                                          work=[(algorithms, "simulate")])
    assert result.status == "time_limit" and c.work == 3 and not c.late
    assert result.objective == pytest.approx(min(values[:2]))
