"""lp-round stopped by its time limit inside the LP relaxation answers ``time_limit`` with the
best single item (a feasible plan), not an error: at the declared bound of 100,000 items the LP
did not finish in 5 s and the command ended with exit status 1."""

from __future__ import annotations

import optsched

from ..clock_support import solve_with_counting_clock


def test_lp_round_stopped_in_its_lp_keeps_the_best_single_item():
    inst = optsched.generate("mknap", seed=0, items=30, rows=3)
    full, clock = solve_with_counting_clock(inst, "lp-round")
    assert full.status == "feasible"
    result, _ = solve_with_counting_clock(inst, "lp-round", 0)   # spent before the LP
    assert result.status == "time_limit" and len(result.solution["selected"]) == 1
    assert result.objective == max(inst.profits)
