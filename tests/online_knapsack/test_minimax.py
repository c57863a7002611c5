"""The minimax pricing LP: hand-solved values, convergence to 1 + ln(U/L), dense cross-check,
back-ends, and the exact grid ratio of posted-price policies."""

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from optsched.problems.online_knapsack.algorithms import threshold_price
from optsched.problems.online_knapsack.minimax import (build_minimax_model, minimax_context, minimax_ratio,
                                                       policy_grid_ratio, value_grid)


def test_two_values_by_hand():
    # K = 2, values L < U: x1 = r (prefix 1), L r + U (1 - r) >= r U  =>  r = U / (2U - L)
    r = minimax_ratio(1.0, 4.0, grid=2)
    assert r.status == "optimal"
    assert r.fraction == pytest.approx(4 / 7, rel=1e-9)
    assert r.allocation.sum() == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("ratio", [4.0, 16.0, 64.0])
def test_fine_grid_within_one_percent_and_from_below(ratio):
    coarse = minimax_ratio(1.0, ratio, grid=100).ratio
    fine = minimax_ratio(1.0, ratio, grid=2000).ratio
    classical = 1 + math.log(ratio)
    # a grid adversary is weaker than a continuous one: the value rises to 1 + ln(U/L) from below
    # (1e-7: HiGHS's relative optimality tolerance on r)
    assert coarse < fine <= classical * (1 + 1e-7)
    assert fine >= 0.99 * classical


def test_sparse_model_matches_dense_prefix_rows():
    # the dense prefix-row form (K^2/2 nonzeros) solved independently by scipy
    lower, upper, k = 1.0, 10.0, 60
    v = value_grid(lower, upper, k)
    a_ub = np.zeros((1 + k, k + 1))
    a_ub[0, :k] = 1
    for j in range(k):
        a_ub[1 + j, :j + 1] = -v[:j + 1]
        a_ub[1 + j, k] = v[j]
    b_ub = np.concatenate([[1.0], np.zeros(k)])
    res = linprog(-np.eye(k + 1)[k], A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    assert res.status == 0
    assert minimax_ratio(lower, upper, grid=k).fraction == pytest.approx(-res.fun, rel=1e-7)
    assert build_minimax_model(lower, upper, k).matrix.nnz == 6 * k - 1  # capacity k, cumulative 3k - 1, prefix 2k


def test_backends_agree():
    a = minimax_ratio(1.0, 16.0, grid=300)
    b = minimax_ratio(1.0, 16.0, grid=300, ctx=minimax_context("scipy"))
    assert b.backend == "scipy" and a.backend == "highs"
    assert a.ratio == pytest.approx(b.ratio, rel=1e-7)


def test_policy_grid_ratio_brackets():
    lower, upper, k = 1.0, 16.0, 1000
    lp = minimax_ratio(lower, upper, grid=k).ratio
    psi = np.vectorize(lambda z: threshold_price(z, lower, upper))
    thr = policy_grid_ratio(psi, lower, upper, grid=k)
    # no policy beats the LP optimum on the grid; the threshold is within 0.5% of it
    # (its price is evaluated on a utilization step of 1/20000)
    assert lp * (1 - 1e-7) <= thr <= lp * 1.005
    greedy = policy_grid_ratio(lambda z: np.full(z.shape, lower), lower, upper, grid=k)
    assert greedy == pytest.approx(upper / lower)   # fills at L, then U arrives
    fixed = policy_grid_ratio(lambda z: np.full(z.shape, 4.0), lower, upper, grid=k)
    assert fixed == math.inf                          # sells nothing while the value is below 4
