"""online-rr's window LPs get the method's remaining time; once it is spent they fall back."""

from __future__ import annotations

import optsched


def test_rolling_windows_degrade_to_the_greedy_fill_when_the_budget_is_spent():
    # once the budget is spent the window LPs fall back to the greedy fill and say how often,
    # instead of failing
    inst = optsched.generate("ps-locality", seed=0, preset="tiny")
    full = optsched.solve(inst, "online-rr")
    cut = optsched.solve(inst, "online-rr", time_limit=1e-6)
    assert full.stats["greedy_fallback_solves"] == 0 and cut.stats["greedy_fallback_solves"] > 0
    assert cut.status == "feasible" and optsched.check(inst, cut).feasible
