"""Benchmarks of issue 18: the sparse minimax pricing LP on a fine grid, and one training iteration
of the learned pricing game.

Minimax LP: K = 2000 and K = 10000 geometric values, U/L = 64. Reference measured in the same run:
the dense prefix-row formulation (K^2 / 2 nonzeros) at K = 500, solved by SciPy's HiGHS --
the ratio says what the cumulative-welfare variables buy. Reported, not asserted.

Training: 10 iterations of the bundled one-resource configuration; reference = the same number of
deployed-policy simulations without the per-round rollouts (what the per-round update costs).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import pytest
from scipy.optimize import linprog

from optsched.problems.online_knapsack.minimax import minimax_ratio, value_grid


def _dense_seconds(k: int) -> float:
    v = value_grid(1.0, 64.0, k)
    a_ub = np.zeros((1 + k, k + 1))
    a_ub[0, :k] = 1
    for j in range(k):
        a_ub[1 + j, :j + 1] = -v[:j + 1]
        a_ub[1 + j, k] = v[j]
    began = time.perf_counter()
    linprog(-np.eye(k + 1)[k], A_ub=a_ub, b_ub=np.r_[1.0, np.zeros(k)], bounds=(0, None), method="highs")
    return time.perf_counter() - began


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("grid", [2000, 10000])
def test_minimax_lp_fine_grid(benchmark, grid):
    reference = _dense_seconds(500)
    result = benchmark.pedantic(lambda: minimax_ratio(1.0, 64.0, grid=grid), rounds=1, iterations=1)
    assert result.status == "optimal"
    benchmark.extra_info.update(ratio=result.ratio, classical=1 + math.log(64), nonzeros=result.nonzeros,
                                dense_k500_s=reference, rel_gap=(1 + math.log(64) - result.ratio) / (1 + math.log(64)))


@pytest.mark.slow
@pytest.mark.benchmark
def test_training_iterations(benchmark):
    from optsched.online.learned import train_pricing
    from optsched.problems.online_knapsack.learned import training_config

    cfg = dataclasses.replace(training_config(16), iterations=10)
    _, log = benchmark.pedantic(lambda: train_pricing(cfg), rounds=1, iterations=1)
    benchmark.extra_info.update(seconds_per_iteration=log.seconds / cfg.iterations)
