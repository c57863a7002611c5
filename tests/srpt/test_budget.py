"""The MILP placement gets the method's remaining time; a placement MILP without a point falls
back to greedy + KL; a spent budget stops the run (no wall time: ``tests/clock_support.py``)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.linear import ModelSolution
from optsched.core.solving import SolveContext

from ..clock_support import solve_with_counting_clock


def no_point(self, model, **overrides):
    """A placement solve that stopped at a limit before finding any point."""
    self.subsolves.append({"model": model.name, "status": "time_limit", "backend": "highs", "solver_version": "",
                           "run_time": 0.0, "time_limit": None})
    return ModelSolution("time_limit", None, None, None, "highs", "", 0.0, message="stopped by the test")


def test_milp_placement_without_a_point_degrades_to_greedy_and_kl(monkeypatch):
    srpt = optsched.generate("srpt", seed=1, preset="tiny")
    monkeypatch.setattr(SolveContext, "solve_model", no_point)
    placed = optsched.solve(srpt, "fifo", options={"placement": "milp"})
    assert placed.status == "feasible" and optsched.check(srpt, placed).feasible
    # every MILP placement (jobs that fit no single server) had no point and fell back
    assert placed.stats["placement_milp_fallbacks"] == placed.stats["subsolves"]["count"] > 0


@pytest.mark.parametrize("method", ["a-srpt", "fifo", "sjf-oracle", "tiresias-las"])
@pytest.mark.parametrize("placement", ["heuristic", "milp"])
def test_a_spent_budget_stops_the_run_at_the_next_dispatch(method, placement):
    from optsched.simulation.cluster import Simulator

    srpt = optsched.generate("srpt", seed=1, preset="tiny")
    options = {"placement": placement}
    full, clock = solve_with_counting_clock(srpt, method, options=options)
    assert full.status == "feasible" and clock.reads >= len(srpt.jobs)
    # every read with the MILP placement (some are placement solves); a sample with the heuristic
    picks = range(clock.reads - 1) if placement == "milp" else sorted({0, 1, 2, clock.reads // 2, clock.reads - 2})
    for k in picks:
        result, c = solve_with_counting_clock(srpt, method, k, work=[(Simulator, "start")], options=options)
        assert result.status == "time_limit" and result.solution is None, f"{method}, read {k}: {result.status}"
        # a placement solve that finds the budget spent answers without a point; the poll after it stops
        assert c.reads <= k + 2 and c.late == [], f"{method}, read {k}: jobs started after the limit: {c.late}"
