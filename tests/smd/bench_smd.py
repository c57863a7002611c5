"""Benchmarks of the SMD problem (``optsched.problems.smd``); heavy, marked slow.

1. The ``smd-large`` preset (1,000 jobs x 2,000 (w, s) configurations = 2,001,000 columns before
   dominance pruning): ``smd`` is timed by pytest-benchmark; the exact ``milp`` (with a time limit,
   reporting its status, bound and gap) and ``lp-round`` are run once each in the same process on
   the same instance, and the ratio milp time / smd time is recorded in ``extra_info`` and printed.
   Objectives are compared (smd never below the milp's bound; smd's certified bound never above
   the milp's value); smd's certified bound, gap and branch-and-bound nodes are recorded; no
   wall-time assertion.
2. Costing every configuration: the vectorized enumeration against a plain loop that evaluates the
   timing recursion of optsched/problems/smd/README.md per configuration, on the same 10 jobs x 2,000 configurations; the ratio is
   recorded, and both must give the same costs.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import optsched
from optsched.core.solving import objective_tolerance
from optsched.problems.smd.configurations import enumerate_configurations
from optsched.problems.smd.generate import PRESETS, generate
from optsched.workloads.layer_timing import iteration_time_recursive, sync_seconds_per_byte

pytestmark = pytest.mark.slow

SEED = 0
#: the milp's wall-clock limit on smd-large: it reports time_limit with its bound and gap if hit
MILP_TIME_LIMIT_S = 600.0


def _timed(instance, method, **kwargs):
    start = time.perf_counter()
    result = optsched.solve(instance, method, **kwargs)
    return result, time.perf_counter() - start


def test_bench_large_smd_vs_milp(benchmark):
    instance = generate(SEED, **PRESETS["smd-large"])
    milp, milp_s = _timed(instance, "milp", time_limit=MILP_TIME_LIMIT_S)
    lp_round, lp_round_s = _timed(instance, "lp-round")
    smd = benchmark.pedantic(optsched.solve, args=(instance, "smd"), rounds=1, iterations=1)
    smd_s = benchmark.stats.stats.mean
    assert smd.status == "feasible" and lp_round.status == "feasible"
    assert milp.status in ("optimal", "time_limit", "feasible")
    assert milp.bound is not None
    for r in (smd, lp_round):  # feasible values are never below a proven lower bound on OPT
        assert r.objective >= milp.bound - objective_tolerance(milp.bound)
    # smd's certified bound is a lower bound on OPT, so never above any feasible value
    assert smd.bound <= milp.objective + objective_tolerance(milp.objective)
    info = {
        "columns_enumerated": milp.stats["configurations_enumerated"], "columns_after_pruning": milp.stats["columns"],
        "milp_status": milp.status, "milp_objective": milp.objective, "milp_bound": milp.bound, "milp_gap": milp.gap,
        "milp_s": milp_s, "milp_time_limit_s": MILP_TIME_LIMIT_S,
        "lp_round_objective": lp_round.objective, "lp_round_s": lp_round_s,
        "lp_round_fractional_jobs": lp_round.stats["fractional_jobs"],
        "smd_objective": smd.objective, "smd_s": smd_s, "smd_stop": smd.stats["stop"],
        "smd_bound": smd.bound, "smd_certified_gap": smd.gap, "smd_certify": smd.stats["certify"],
        "smd_bnb_nodes": smd.stats["bnb_nodes"], "smd_outer_value": smd.stats["outer_value"],
        "smd_inner_iterations": smd.stats["inner_iterations"],
        "smd_over_milp_bound": smd.objective / milp.bound, "lp_round_over_milp_bound": lp_round.objective / milp.bound,
        "milp_time_over_smd_time": milp_s / smd_s, "lp_round_time_over_smd_time": lp_round_s / smd_s,
    }
    benchmark.extra_info.update(info)
    print("\nsmd-large:", ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in info.items()))


def _loop_costs(instance) -> np.ndarray:
    """Every configuration's cost by the timing model's recursion, one configuration at a time."""
    out = []
    for job in instance.jobs:
        for w in range(1, job.max_workers + 1):
            for s in range(1, job.max_parameter_servers + 1):
                k = sync_seconds_per_byte(w, s, instance.worker_bandwidth, instance.ps_bandwidth)
                tau = float(iteration_time_recursive(job.forward_s, job.backward_s, job.parameter_bytes, k))
                out.append(job.weight * int(job.iterations(w)) * tau)
    return np.array(out)


def test_bench_vectorized_costing(benchmark):
    instance = generate(SEED, **{**PRESETS["smd-wide"], "jobs": 10})
    start = time.perf_counter()
    reference = _loop_costs(instance)
    loop_s = time.perf_counter() - start
    cfg = benchmark(enumerate_configurations, instance, prune=False)
    vector_s = benchmark.stats.stats.mean
    got = np.delete(cfg.cost, cfg.start[1:] - 1)  # drop the defer columns (every generated job is deferrable)
    # same sums of the same terms in another order (envelope vs recursion): a few ulps
    np.testing.assert_allclose(got, reference, rtol=1e-12)
    benchmark.extra_info.update(configurations=int(reference.size), loop_s=loop_s, vectorized_s=vector_s,
                                loop_over_vectorized=loop_s / vector_s)
    print(f"\ncosting {reference.size} configurations: loop {loop_s:.3f} s, vectorized {vector_s:.4f} s, "
          f"ratio {loop_s / vector_s:.1f}")
