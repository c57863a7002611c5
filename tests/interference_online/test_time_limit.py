"""The clock inside interference-online's simulations: every policy polls the method's clock at
every event, so a run whose budget ends stops there as ``time_limit`` (no solution: a schedule of
only some jobs is none), whatever the trace's length.

No wall time: the budget is a counter (``tests/clock_support.py``). A stop must end the run at
once: no job is started after the clock read as spent.
"""

from __future__ import annotations

import pytest

from optsched.problems.interference_online import generate
from optsched.simulation.cluster import Simulator

from ..clock_support import solve_with_counting_clock, stops

METHODS = ["milp-per-event", "least-interference", "fifo-pack", "tiresias-las", "gandiva-pack",
           "sjf-least-interference", "marl"]


def _instance():
    return generate(3, jobs=24, servers=3, gpus_per_server=4)


@pytest.mark.parametrize("method", METHODS)
def test_a_spent_budget_stops_the_simulation_at_the_next_event(method):
    inst = _instance()
    full, clock = solve_with_counting_clock(inst, method, work=[(Simulator, "start")])
    assert full.status == "feasible" and clock.reads >= len(inst.jobs)
    for k in stops(clock.reads - 1, count=6):
        result, c = solve_with_counting_clock(inst, method, k, work=[(Simulator, "start")])
        assert result.status == "time_limit", f"{method}, read {k}: {result.status}"
        assert result.solution is None
        # (a model solve that finds the budget spent answers without a point; the poll after it stops)
        assert c.reads <= k + 2 and c.late == [], f"{method}, read {k}: jobs started after the limit: {c.late}"


def test_an_already_spent_budget_starts_no_job():
    result, clock = solve_with_counting_clock(_instance(), "milp-per-event", 0, work=[(Simulator, "start")])
    assert result.status == "time_limit" and clock.work == 0 and "subsolves" not in result.stats
