"""rr's trial count has a declared range (its clock: tests/ps_locality/test_time_limit.py). No wall time: the budget is a counter (``tests/clock_support.py``)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError

from ..clock_support import solve_with_counting_clock


def _instance():
    return optsched.generate("ps-locality", seed=1, preset="tiny")


def test_a_huge_trial_count_is_refused():
    with pytest.raises(InvalidOptionError, match="option trials"):
        solve_with_counting_clock(_instance(), "rr", 0, options={"trials": 10 ** 400})
