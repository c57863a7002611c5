"""rr's trials poll the clock (the best repaired schedule so far is the incumbent) and its trial
count has a declared range. No wall time: the budget is a counter (``tests/clock_support.py``)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.problems.ps_locality import algorithms

from ..clock_support import solve_with_counting_clock


def _instance():
    return optsched.generate("ps-locality", seed=1, preset="tiny")


def test_trials_stop_at_the_clock_with_the_best_schedule_so_far():
    inst = _instance()
    trials = 6
    full, clock = solve_with_counting_clock(inst, "rr", options={"trials": trials}, seed=1)
    assert full.status == "feasible"
    polls = clock.reads - trials   # the reads before the trials (the LP's remaining time)
    assert polls >= 1
    for done in range(trials):
        result, c = solve_with_counting_clock(inst, "rr", polls + done, options={"trials": trials}, seed=1,
                                              work=[(algorithms, "_sample_plan")])
        assert result.status == "time_limit", f"after {done} trials: {result.status}"
        assert c.late == [] and c.work == done, f"after {done} trials: {c.work} trials sampled"
        assert (result.solution is None) == (done == 0)
        if done:
            assert result.objective >= full.objective - 1e-9  # the best of the first trials only


def test_a_huge_trial_count_is_refused():
    with pytest.raises(InvalidOptionError, match="option trials"):
        solve_with_counting_clock(_instance(), "rr", 0, options={"trials": 10 ** 400})
