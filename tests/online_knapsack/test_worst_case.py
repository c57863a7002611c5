"""The learned method's U/L domain, the exact equal-demand worst case of utilization-priced policies
(against brute force over finite value grids) and the blocking attack (against a hand computation)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optsched
from optsched.core.errors import InvalidOptionError, NotApplicable
from optsched.online.learned import PricingPolicy, TrainConfig
from optsched.problems.online_knapsack.algorithms import threshold_price
from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance
from optsched.problems.online_knapsack.worst_case import (BELOW, blocking_attack, equal_demand_worst_case,
                                                          price_function)


# -- the learned method serves the trained U/L only --------------------------------------------------
def _stream(lower, upper):
    return OnlineKnapsackInstance(lower=lower, upper=upper, eps=0.25, demands=[0.25] * 8,
                                  values=[lower, lower, upper, upper, lower, upper, upper, upper])


def test_learned_refuses_an_untrained_ratio():
    with pytest.raises(NotApplicable, match=r"U/L = 2 is not a trained ratio.*4, 16, 64"):
        optsched.solve(_stream(1.0, 2.0), "learned")
    with pytest.raises(NotApplicable, match=r"U/L = 32 "):
        optsched.solve(_stream(0.5, 16.0), "learned")


def test_learned_serves_the_trained_ratios_on_any_scale(tmp_path):
    # 1.6 / 0.1 = 16.000000000000004: the rounding of U/L is not a different ratio
    r = optsched.solve(_stream(0.1, 1.6), "learned")
    assert r.stats["policy"] == "bundled U/L = 16"
    # a policy file given as option weights is the user's choice for any U/L
    TrainConfig_ = TrainConfig(upper=2.0)
    PricingPolicy.fresh(TrainConfig_, seed=1).save(tmp_path / "p.json")
    r = optsched.solve(_stream(1.0, 2.0), "learned", options={"weights": str(tmp_path / "p.json")})
    assert r.stats["policy"] == str(tmp_path / "p.json")


def test_cli_refuses_an_untrained_ratio_in_one_line(tmp_path, capsys):
    from optsched.cli import main

    path = tmp_path / "i.json"
    path.write_text(_stream(1.0, 2.0).dumps())
    assert main(["solve", "online-knapsack", str(path), "--method", "learned"]) == 2
    err = capsys.readouterr().err.strip()
    assert "U/L = 2" in err and "Traceback" not in err and len(err.splitlines()) == 1


# -- exact equal-demand worst case against brute force -----------------------------------------------
def _brute(price, lower, upper, demand, grid):
    """max OPT/ALG over every stream (any length) of values from ``grid``, all of demand ``demand``:
    a search over the states (the multiset of accepted values, the best ``n`` rejected values): the
    price depends on the utilization, i.e. on the number accepted, so these determine the run's
    future, ALG and OPT (the best ``n`` values of the stream)."""
    n = round(1 / demand)
    prices = {}
    best, seen, stack = 0.0, set(), [((), ())]
    while stack:
        acc, rej = stack.pop()
        if (acc, rej) in seen:
            continue
        seen.add((acc, rej))
        alg = math.fsum(acc) * demand
        opt = math.fsum(sorted(acc + rej, reverse=True)[:n]) * demand
        best = max(best, opt / alg if alg > 0 else (math.inf if opt > 0 else 1.0))
        z = 0.0
        for _ in acc:
            z += demand
        if len(acc) not in prices:
            prices[len(acc)] = price(z)
        p = prices[len(acc)]
        for v in grid:
            if v >= p and z + demand <= 1.0:
                stack.append((tuple(sorted(acc + (v,))), rej))
            else:
                stack.append((acc, tuple(sorted(rej + (v,), reverse=True)[:n])))
    return best


def _grid(price, lower, upper, demand):
    """L, U, every price posted on the equal-demand path, and each just below (by the witness's gap)."""
    n, z, g = round(1 / demand), 0.0, {lower, upper}
    for _ in range(n + 1):
        p = price(z)
        for v in (p, p * (1 - BELOW)):
            if lower <= v <= upper:
                g.add(v)
        z += demand
    return sorted(g)


def _check(price, lower, upper, demand):
    w = equal_demand_worst_case(price, lower, upper, demand)
    b = _brute(price, lower, upper, demand, _grid(price, lower, upper, demand))
    # the formula is the supremum: no grid stream beats it (1e-12: float summation order) and the grid
    # holding the witness's values reaches it up to the witness's gap BELOW below the flood's price
    assert b <= w.ratio * (1 + 1e-12)
    assert b >= w.ratio * (1 - 10 * BELOW)
    return w, b


@pytest.mark.parametrize("ratio", [4.0, 16.0])
def test_threshold_worst_case_matches_brute_force(ratio):
    _check(lambda z: threshold_price(z, 1.0, ratio), 1.0, ratio, 1 / 4)


def test_learned_worst_case_matches_brute_force():
    _check(price_function("learned", 1.0, 16.0), 1.0, 16.0, 1 / 4)


@pytest.mark.parametrize("seed", range(6))
def test_arbitrary_step_prices_match_brute_force(seed):
    # prices that may fall, go below L or above U, and end below U (then the full resource is the worst
    # case: a flood at U that no longer fits)
    rng = np.random.default_rng(seed)
    levels = rng.choice([0.5, 1.0, 1.5, 2.5, 3.5, 5.0], size=5, p=[0.15, 0.3, 0.2, 0.15, 0.15, 0.05])
    levels[0] = 1.0 if seed % 2 else levels[0]

    def price(z):
        return float(levels[min(int(z * 4 + 1e-9), 4)])

    _check(price, 1.0, 4.0, 1 / 4)


def test_two_level_price_matches_brute_force_at_demand_one_eighth():
    _check(lambda z: 1.0 if z < 0.5 else 2.0, 1.0, 3.0, 1 / 8)


def test_full_resource_is_the_worst_case_when_the_last_price_is_below_u():
    # price L until full: the only loss is a flood at U after the resource is full: ratio U / L
    w = equal_demand_worst_case(lambda z: 1.0, 1.0, 4.0, 1 / 8)
    assert w.ratio == 4.0 and w.stop == 8


def test_witness_is_scored_by_the_method_and_milp():
    for method in ("threshold", "learned"):
        w = equal_demand_worst_case(method, 1.0, 16.0, 1 / 16)
        inst = w.instance(1.0, 16.0)
        alg = optsched.solve(inst, method).objective
        opt = optsched.solve(inst, "milp")
        assert opt.status == "optimal"
        # the witness is the supremum's stream with the flood BELOW under its price
        assert opt.objective / alg == pytest.approx(w.ratio, rel=2 * BELOW)


def test_worst_case_refuses_a_demand_that_is_not_one_over_n():
    with pytest.raises(InvalidOptionError, match="demand"):
        equal_demand_worst_case("threshold", 1.0, 16.0, 0.3)
    with pytest.raises(InvalidOptionError, match="policy"):
        equal_demand_worst_case("milp", 1.0, 16.0, 0.25)


# -- the blocking attack ------------------------------------------------------------------------------
def test_blocking_attack_on_threshold_by_hand():
    # U/L = 4, n = 4, tiny = 1/16: c = 1 + ln 4, psi(z) = max(1, e^(c z - 1)): values 1, 1 (z <= 1/c =
    # 0.419), e^(c/2 - 1), then the tiny request at e^(3c/4 - 1); all served (z = 13/16); the four
    # requests at U = 4 of demand 1/4 no longer fit. OPT = 4 (those four).
    c = 1 + math.log(4)
    alg = (1 + 1 + math.exp(c / 2 - 1)) / 4 + math.exp(3 * c / 4 - 1) / 16
    rep = blocking_attack("threshold", 1.0, 4.0, copies=4, tiny=1 / 16)
    assert rep["opt"] == 4.0
    assert rep["alg"] == pytest.approx(alg, rel=1e-12)   # float summation order only
    assert rep["ratio"] == pytest.approx(4 / alg, rel=1e-12)
    assert optsched.solve(rep["instance"], "threshold").solution["accepted"] == [0, 1, 2, 3]
    assert optsched.solve(rep["instance"], "milp").objective == pytest.approx(4.0, rel=1e-12)


def test_blocking_attack_beats_the_equal_demand_worst_case_of_threshold():
    w = equal_demand_worst_case("threshold", 1.0, 64.0, 1 / 64)
    b = blocking_attack("threshold", 1.0, 64.0, copies=64, tiny=1 / 4096)
    assert b["ratio"] > w.ratio * 1.05


def test_a_price_below_l_is_paid_at_l():
    # prices 1, 0.5, 0.5, 2 (then full): an accepted value is at least L = 1, so ALG = (1 + 1 + 1 + 2) / 4 and
    # the worst case is the flood at U = 4 after the resource is full: 4 / 1.25 (k = 3: 2 / 0.75 is less)
    levels = [1.0, 0.5, 0.5, 2.0, 4.0]
    w, _ = _check(lambda z: levels[min(int(z * 4 + 1e-9), 4)], 1.0, 4.0, 1 / 4)
    assert w.ratio == pytest.approx(4 / 1.25, rel=1e-12) and w.stop == 4


def test_t15_certified_cell_reports_the_exact_worst_case_and_the_blocking_attack():
    from optsched.problems.online_knapsack.repro_t15 import run_cell

    row = run_cell({"part": "certified", "method": "threshold", "ratio": 4, "copies": [16]}, 0)
    # threshold's price is nondecreasing, so the tracking attack (values at the price up to full, then U)
    # is its exact equal-demand worst case: both computed independently, equal up to summation order
    assert row["exact_equal_demand"] == pytest.approx(row["by_attack"]["tracking 1/16"], rel=1e-12)
    assert row["blocking"] == blocking_attack("threshold", 1.0, 4.0, copies=16, tiny=1 / (64 * 16))["ratio"]
    assert row["blocking"] > row["exact_equal_demand"]
