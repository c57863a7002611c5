"""``pipeline-adaptive``: Ada-Grouper's policy as a registered method whose checker re-simulates."""

from __future__ import annotations

import itertools
import math

import pytest

import optsched
from optsched.problems.pipeline_adaptive import PRESETS, check, generate


@pytest.fixture(scope="module")
def tiny():
    return generate(3, **PRESETS["tiny"])


def test_brute_equals_enumeration_through_the_checker(tiny):
    # two routes: brute's incremental depth-first search vs a full re-simulation of every sequence
    values = [check(tiny, {"group_sizes": list(seq)}).objective
              for seq in itertools.product(tiny.candidates, repeat=tiny.iterations)]
    res = optsched.solve(tiny, "brute")
    assert res.status == "optimal"
    assert res.objective == pytest.approx(min(values), rel=1e-12)


def test_bound_and_heuristics_bracket_the_optimum(tiny):
    opt = optsched.solve(tiny, "brute").objective
    assert optsched.solve(tiny, "lb").objective <= opt * (1 + 1e-12)
    for method in ("ada-grouper", "oracle", "fixed"):
        assert optsched.solve(tiny, method).objective >= opt * (1 - 1e-12)


def test_checker_recomputes_the_total_by_hand(tiny):
    setting, trace = tiny.setting, tiny.trace
    seq = [tiny.candidates[i % len(tiny.candidates)] for i in range(tiny.iterations)]
    now, prev = 0.0, None
    for g in seq:   # the model by hand: a switch costs switch_cost, the period is the one at the start
        now += (setting.switch_cost if prev is not None and g != prev else 0.0) \
            + setting.iteration_time(g, trace.bandwidth[min(int(now // trace.period), len(trace.bandwidth) - 1)])
        prev = g
    report = check(tiny, {"group_sizes": seq})
    assert report.feasible and report.objective == pytest.approx(now, rel=1e-12)
    assert report.details["switches"] == sum(a != b for a, b in zip(seq, seq[1:]))


@pytest.mark.parametrize("solution,message", [
    ({"group_sizes": [1]}, "entries for"),
    ({"group_sizes": [3] * 6}, "does not fit memory"),
    ({"group_sizes": [1.0] * 6}, "list of integers"),
    ({"sizes": []}, "must be an object"),
])
def test_checker_rejects(tiny, solution, message):
    report = check(tiny, solution)
    assert not report.feasible and any(message in v for v in report.violations)


def test_the_switching_rule_matters():
    # with a free switch the adaptive policy follows the best size; with a prohibitive one it
    # never switches and equals its first choice run fixed
    inst = generate(0, iterations=40, periods=20, period=0.5, group_sizes="1,2,4,8", switch_cost=0.0)
    free = optsched.solve(inst, "ada-grouper")
    assert free.stats["switches"] > 0
    costly = generate(0, iterations=40, periods=20, period=0.5, group_sizes="1,2,4,8", switch_cost=1e6)
    stuck = optsched.solve(costly, "ada-grouper")
    assert stuck.stats["switches"] == 0
    first = stuck.solution["group_sizes"][0]
    assert stuck.objective == pytest.approx(
        optsched.solve(costly, "fixed", options={"group_size": first}).objective, rel=1e-12)


def test_fixed_rejects_a_group_size_that_does_not_fit(tiny):
    with pytest.raises(optsched.InvalidOptionError, match="group_size"):
        optsched.solve(tiny, "fixed", options={"group_size": 3})


def test_invalid_bandwidth_row_names_the_field(tiny):
    data = tiny.to_json()
    data["bandwidth"] = [list(row) for row in data["bandwidth"]]
    data["bandwidth"][1] = data["bandwidth"][1][:1]
    with pytest.raises(optsched.InvalidInstanceError, match=r"bandwidth\[1\]"):
        type(tiny).from_json(data)
    assert math.isfinite(check(tiny, {"group_sizes": [1] * tiny.iterations}).objective)
