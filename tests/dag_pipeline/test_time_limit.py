"""The clock inside dag-pipeline's model writing (``milp``) and its order DP (``order-dp``), and
order-dp's memory refusal.

No wall time: the budget is a counter (``tests/clock_support.py``). At the declared bound of
100,000 nodes the stage model took seconds to write with no clock read, and order-dp's O(n^2)
tables asked for 74.5 GiB.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import NotApplicable
from optsched.problems.dag_pipeline import algorithms, model

from ..clock_support import solve_with_counting_clock, stops


def _instance(**kw):
    # a balance budget, so the windows' reach sums run too
    return optsched.generate("dag-pipeline", seed=3, nodes=24, stages=4, balance_percent=30, **kw)


def test_the_model_writing_stops_within_one_poll():
    inst = _instance()
    assert inst.stage_budget < float("inf")
    full, clock = solve_with_counting_clock(inst, "milp")
    n, m, K = inst.num_nodes, inst.graph.num_edges, inst.stages
    # a poll per node in each reach-sum pass (4), the columns and the one-stage rows, per stage,
    # per edge, and (bottleneck) per stage and per (edge, boundary) pair: every loop reads the clock
    assert inst.objective == "bottleneck"
    assert full.status == "optimal" and clock.reads >= 6 * n + 2 * K + m + (K - 1) * m
    for k in stops(clock.reads - 1, count=12):
        result, c = solve_with_counting_clock(inst, "milp", k)
        assert result.status == "time_limit", f"read {k}: {result.status}"
        assert result.solution is None and "subsolves" not in result.stats, f"read {k}: the model was solved"


def test_order_dp_stops_inside_its_sweep():
    inst = _instance()
    full, clock = solve_with_counting_clock(inst, "order-dp")
    assert full.status == "feasible" and clock.reads > inst.num_nodes
    result, c = solve_with_counting_clock(inst, "order-dp", clock.reads // 2)
    assert result.status == "time_limit" and c.reads == clock.reads // 2 + 1


def test_order_dp_keeps_the_best_cap_swept_when_stopped():
    inst = _instance(objective="sync-estimate")
    full, clock = solve_with_counting_clock(inst, "order-dp")
    assert full.status == "feasible"
    # stopped at the last read: every cap but the last was swept, and the plan is kept
    result, _ = solve_with_counting_clock(inst, "order-dp", clock.reads - 1)
    assert result.status == "time_limit" and result.solution is not None
    assert result.objective >= full.objective * (1 - 1e-12)


def test_order_dp_refuses_what_its_tables_cannot_hold():
    inst = optsched.generate("dag-pipeline", seed=0, nodes=algorithms.ORDER_DP_MAX_NODES + 1)
    with pytest.raises(NotApplicable, match="order-dp needs nodes <= 5000"):
        optsched.solve(inst, "order-dp")


def test_a_huge_brute_force_count_is_named_without_printing_it():
    inst = optsched.generate("dag-pipeline", seed=0, nodes=5000, stages=8)
    with pytest.raises(NotApplicable, match=r"K\^n = about 10\^4515"):
        optsched.solve(inst, "brute")
