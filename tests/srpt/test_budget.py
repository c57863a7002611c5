"""The MILP placement gets the method's remaining time; once it is spent it falls back."""

from __future__ import annotations

import optsched


def test_milp_placement_degrades_to_greedy_and_kl_when_the_budget_is_spent():
    # once the budget is spent the placement falls back to greedy + KL and says how often,
    # instead of failing
    srpt = optsched.generate("srpt", seed=1, preset="tiny")
    placed = optsched.solve(srpt, "fifo", options={"placement": "milp"}, time_limit=1e-6)
    assert placed.status == "feasible" and optsched.check(srpt, placed).feasible
    # every MILP placement (jobs that fit no single server) hit the spent budget and fell back
    assert placed.stats["placement_milp_fallbacks"] == placed.stats["subsolves"]["count"] > 0
