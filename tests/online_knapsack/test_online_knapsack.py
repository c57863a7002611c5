"""online-knapsack: instance rules, checker, exact methods cross-checked, threshold's proven bound."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from scipy.integrate import quad

import optsched
from optsched.cli import main
from optsched.problems.online_knapsack import OnlineKnapsackInstance, check, generate, threshold_bound
from optsched.problems.online_knapsack.algorithms import competitive_constant, threshold_price

ONLINE = ("threshold", "fixed-price", "greedy")


def make(demands, values, lower=1.0, upper=4.0, eps=0.5):
    return OnlineKnapsackInstance(lower=lower, upper=upper, eps=eps, demands=demands, values=values)


# -- invalid input ------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,field", [
    (dict(demands=[], values=[]), "demands"),
    (dict(demands=[0.5], values=[4.5]), "values[0]"),
    (dict(demands=[0.5], values=[0.5]), "values[0]"),
    (dict(demands=[0.6], values=[2.0]), "demands[0]"),
    (dict(demands=[0.0], values=[2.0]), "demands[0]"),
    (dict(demands=[0.5, 0.1], values=[2.0]), "values"),
    (dict(demands=[0.5], values=[2.0], eps=1.5), "eps"),
    (dict(demands=[0.5], values=[2.0], lower=0.0), "lower"),
    (dict(demands=[0.5], values=[2.0], upper=0.5), "upper"),
])
def test_invalid_instances_name_the_field(kwargs, field):
    args = dict(lower=1.0, upper=4.0, eps=0.5) | kwargs
    with pytest.raises(optsched.InvalidInstanceError) as info:
        OnlineKnapsackInstance(**args)
    assert info.value.field == field


@pytest.mark.parametrize("change", [{"values": [5.0]}, {"demands": [], "values": []}])
def test_cli_rejects_invalid_stream_with_exit_2(tmp_path, capsys, change):
    data = make([0.5], [2.0]).to_json() | change
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "online-knapsack", str(path), "--method", "threshold"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "online-knapsack: field" in err[0]


def test_cli_generate_solve_check(tmp_path, capsys):
    inst, res = tmp_path / "i.json", tmp_path / "r.json"
    assert main(["generate", "online-knapsack", "--seed", "3", "--preset", "tiny", "-o", str(inst)]) == 0
    assert main(["solve", "online-knapsack", str(inst), "--method", "threshold", "-o", str(res)]) == 0
    assert main(["check", "online-knapsack", str(inst), str(res)]) == 0
    assert "feasible" in capsys.readouterr().out


# -- checker ------------------------------------------------------------------------------------
def test_checker_computes_welfare_and_flags_violations():
    inst = make([0.5, 0.5, 0.25], [1.0, 4.0, 2.0])
    report = check(inst, {"accepted": [1, 2]})
    assert report.feasible and report.objective == 0.5 * 4 + 0.25 * 2
    over = check(inst, {"accepted": [0, 1, 2]})
    assert not over.feasible and "exceeds the capacity" in over.violations[0]
    assert not check(inst, {"accepted": [1, 1]}).feasible
    assert not check(inst, {"accepted": [3]}).feasible
    assert not check(inst, {"chosen": []}).feasible


# -- online semantics on hand-computed streams -----------------------------------------------------
def test_posted_price_semantics():
    # L=1, U=4: c = 1 + ln 4 = 2.386, psi = 1 while z <= 1/c = 0.419
    inst = make([0.4, 0.4, 0.4], [1.0, 1.5, 4.0])
    # threshold: request 0 at price 1 (z=0); request 1 at z=0.4 <= 1/c: price 1 <= 1.5, served;
    # request 2 does not fit (0.8 + 0.4 > 1)
    assert optsched.solve(inst, "threshold").solution == {"accepted": [0, 1]}
    # fixed price sqrt(4) = 2: only request 2 has value >= 2
    assert optsched.solve(inst, "fixed-price").solution == {"accepted": [2]}
    assert optsched.solve(inst, "greedy").solution == {"accepted": [0, 1]}
    assert optsched.solve(inst, "milp").solution == {"accepted": [1, 2]}


def test_threshold_price_shape():
    lower, upper = 2.0, 32.0
    c = competitive_constant(lower, upper)
    assert threshold_price(0.0, lower, upper) == lower
    assert threshold_price(0.999 / c, lower, upper) == lower
    assert math.isclose(threshold_price(1 / c, lower, upper), lower)  # continuous at 1/c
    assert math.isclose(threshold_price(1.0, lower, upper), upper)
    # the classical form (U e / L)^z (L / e) above 1/c (Zhou, Chakrabarty & Lukose)
    z = 0.7
    assert math.isclose(threshold_price(z, lower, upper), (upper * math.e / lower) ** z * lower / math.e)


@given(st.floats(1.0, 100.0), st.floats(0.0, 1.0), st.floats(0.0, 0.5))
def test_lemma_price_growth(ratio, z, d):
    """Lemma 1 of optsched/problems/online_knapsack/README.md: psi(z + d) <= e^(c d) psi(z)."""
    c = competitive_constant(1.0, ratio)
    # 1e-12 relative: one exp and one multiplication of rounding
    assert threshold_price(z + d, 1.0, ratio) <= math.exp(c * d) * threshold_price(z, 1.0, ratio) * (1 + 1e-12)


@pytest.mark.parametrize("ratio", [1.0, 4.0, 64.0])
def test_lemma_price_integral(ratio):
    """Lemma 2 of optsched/problems/online_knapsack/README.md: int_0^Z psi = L Z (Z <= 1/c), psi(Z) / c (Z >= 1/c)."""
    c = competitive_constant(1.0, ratio)
    for big_z in np.linspace(0.0, 1.0, 11):
        integral, _ = quad(lambda u: threshold_price(u, 1.0, ratio), 0.0, big_z, points=[1 / c], limit=200)
        expected = big_z if big_z <= 1 / c else threshold_price(big_z, 1.0, ratio) / c
        assert integral == pytest.approx(expected, rel=1e-9)  # quad's accuracy on a smooth piece


# -- exact methods: two independent routes ---------------------------------------------------------
@given(st.integers(0, 10 ** 6), st.sampled_from(["log-uniform", "uniform", "increasing"]))
def test_milp_matches_brute_force_and_scipy(seed, shape):
    inst = generate(seed, requests=10, lower=1.0, upper=8.0, eps=0.35, values=shape)
    milp = optsched.solve(inst, "milp")
    brute = optsched.solve(inst, "brute")
    via_scipy = optsched.solve(inst, "milp", backend="scipy")
    assert milp.status == brute.status == via_scipy.status == "optimal"
    assert milp.objective == pytest.approx(brute.objective, rel=1e-9)  # same set: float summation only
    assert via_scipy.objective == pytest.approx(brute.objective, rel=1e-9)


def fractional_knapsack(inst):
    """Dantzig's greedy: the LP optimum of a one-row knapsack, computed without a solver."""
    left, value = 1.0, 0.0
    for t in np.argsort(-inst.value_array, kind="stable"):
        take = min(1.0, left / inst.demands[t])
        value += take * inst.welfare_weights[t]
        left -= take * inst.demands[t]
        if left <= 0:
            break
    return value


@given(st.integers(0, 10 ** 6))
def test_lp_is_the_fractional_knapsack(seed):
    inst = generate(seed, requests=30, lower=1.0, upper=16.0, eps=0.2)
    lp = optsched.solve(inst, "lp").objective
    assert lp == pytest.approx(fractional_knapsack(inst), rel=1e-7)  # HiGHS feasibility tolerance 1e-7
    assert lp >= optsched.solve(inst, "milp").objective - 1e-9


# -- threshold's registered guarantee ---------------------------------------------------------------
@given(st.integers(0, 10 ** 6), st.sampled_from([4.0, 16.0, 64.0]), st.sampled_from([0.02, 0.05, 0.2, 0.5]),
       st.sampled_from(["log-uniform", "uniform", "increasing"]), st.integers(1, 60))
def test_threshold_satisfies_registered_bound(seed, ratio, eps, shape, requests):
    inst = generate(seed, requests=requests, lower=1.0, upper=ratio, eps=eps, values=shape)
    guarantee = optsched.get_problem("online-knapsack").methods["threshold"].guarantee
    assert guarantee.applies(inst)[0]
    alg = optsched.solve(inst, "threshold").objective
    opt = optsched.solve(inst, "milp")
    assert opt.status == "optimal"
    assert alg > 0  # the first request is always served (price L, demand <= eps <= 1)
    assert guarantee.holds(inst, alg, opt.objective)
    assert opt.objective <= threshold_bound(1.0, ratio, eps) * alg * (1 + 1e-9)


@given(st.integers(0, 10 ** 6), st.sampled_from([0.1, 0.3, 0.6, 0.9]), st.integers(1, 12))
def test_threshold_bound_with_equal_values(seed, eps, requests):
    """U = L (c = 1): OPT by brute force (the MILP is a subset-sum search there, slow at n = 80)."""
    inst = generate(seed, requests=requests, lower=2.0, upper=2.0, eps=eps)
    alg = optsched.solve(inst, "threshold").objective
    opt = optsched.solve(inst, "brute").objective
    assert opt <= threshold_bound(2.0, 2.0, eps) * alg * (1 + 1e-9)  # 1e-9: float sums of <= 12 terms


def test_bound_check_can_fail():
    """The same inequality rejects greedy on its bad case: the property test is not vacuous."""
    # 0.98 of capacity at value L first, then U-valued requests that no longer fit
    guarantee = optsched.get_problem("online-knapsack").methods["threshold"].guarantee
    small = make([0.049] * 20 + [0.05] * 20, [1.0] * 20 + [64.0] * 20, upper=64.0, eps=0.05)
    greedy = optsched.solve(small, "greedy").objective
    opt = optsched.solve(small, "milp").objective
    assert opt / greedy > threshold_bound(1.0, 64.0, 0.05)
    assert not guarantee.holds(small, greedy, opt)


def test_guarantee_does_not_apply_at_eps_one():
    inst = make([0.01, 1.0], [1.0, 1.0], upper=1.0, eps=1.0)
    guarantee = optsched.get_problem("online-knapsack").methods["threshold"].guarantee
    assert not guarantee.applies(inst)[0]
    # and indeed the ratio is 1 / 0.01 here: no finite bound holds at eps = 1
    assert optsched.solve(inst, "milp").objective / optsched.solve(inst, "threshold").objective == pytest.approx(100)


def test_bound_tends_to_classical_constant():
    for ratio in (4.0, 16.0, 64.0):
        c = competitive_constant(1.0, ratio)
        assert threshold_bound(1.0, ratio, 1e-9) == pytest.approx(c, rel=1e-7)
        assert threshold_bound(1.0, ratio, 0.01) > c


def test_generator_is_deterministic_and_validates_options():
    assert generate(5, requests=7) == generate(5, requests=7)
    assert generate(5, requests=7) != generate(6, requests=7)
    with pytest.raises(optsched.InvalidOptionError):
        generate(0, requests=0)
    with pytest.raises(optsched.InvalidOptionError):
        generate(0, values="zipf")
    inc = generate(1, requests=20, values="increasing")
    assert list(inc.values) == sorted(inc.values)


#: an adversary-found stream (U/L = 16, eps = 0.05) on which HiGHS, given the unscaled capacity row,
#: returned a set of load 1 + 6.8e-7 (its absolute MIP feasibility tolerance is 1e-6)
TIGHT_DEMANDS = [
    0.018169260926316544, 0.015140341161128501, 0.048329754300046955, 0.025763140801825846, 0.02867120284326897,
    0.043762873294628246, 0.020520567553488276, 0.02729612220032078, 0.02670207449761275, 0.03640372125482101,
    0.025893064221914532, 0.03567994307027741, 0.017923681058632675, 0.03996085596011427, 0.019963679794226877,
    0.03462064645813422, 0.035571320407645324, 0.024020085898179243, 0.05, 0.046990113089038464,
    0.016505344282735108, 0.03988684521525088, 0.0009626665379629352, 0.03054279438101162, 0.01163616753358993,
    0.04967477851793133, 0.03722725348263688, 0.02586771191796171, 0.00973719922771123, 0.044548629040545115,
    0.033793713391352134, 0.03760064005876404, 0.012391112748838579, 0.0035350591013577157, 0.0005,
    0.045198370077040084, 0.05, 0.02254620982648859, 0.03869343695124039, 0.03171944778201941,
    0.04596202938116728, 0.04146177843960442, 0.05, 0.004750456435180736, 0.031086746859525984,
    0.02144248023932617, 0.03509562687100408, 0.02519591936064014
]
TIGHT_VALUES = [
    1.0, 1.0, 1.0450171696185515, 1.142475055728848, 1.1471873580105667, 1.1744449026713093, 1.1792166858589999,
    1.2043030105860495, 1.2279349293540422, 1.2870145668954347, 1.3302558013072896, 1.3670044294453823,
    1.4139200498903945, 1.4357570613778181, 1.7174635662731337, 1.8582888660650843, 2.1046644796064196,
    2.119676787790282, 2.1328931391958315, 2.159927356602942, 2.8895050682857875, 3.0020432512645736,
    3.080074339301366, 3.2665411303474037, 3.9218519537600725, 4.036764813406666, 4.509558545677649,
    4.732702795375658, 4.7403634903311325, 5.202350112964161, 5.731894520667406, 6.11579251978064,
    7.354738917712583, 7.778310034900272, 8.616320463151006, 8.69189844783254, 9.32755965966805,
    9.37876627262208, 10.064856765919718, 11.287566519662988, 13.409963462443198, 13.443327902490063,
    14.240029760681017, 14.416768943743465, 15.331171395330703, 15.44643327473951, 15.74075565578452, 16.0
]


def test_milp_respects_capacity_exactly_on_a_tight_adversarial_stream():
    inst = OnlineKnapsackInstance(lower=1.0, upper=16.0, eps=0.05, demands=TIGHT_DEMANDS, values=TIGHT_VALUES)
    res = optsched.solve(inst, "milp")
    assert res.status == "optimal" and "capacity_tightened" not in res.stats
    assert math.fsum(inst.demands[t] for t in res.solution["accepted"]) <= 1.0 + 1e-9  # CAPACITY_TOL
    assert res.objective == pytest.approx(optsched.solve(inst, "milp", backend="scipy").objective, rel=1e-9)
