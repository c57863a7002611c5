"""Benchmark of threshold pricing on 10^5 requests.

Reference = one Python loop over the requests doing the same float arithmetic (the pricing's
floor), measured in the same run.
"""

from __future__ import annotations

import math
import time

import pytest

import optsched


def _best(function, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
def test_threshold_100k_requests(benchmark):
    inst = optsched.generate("online-knapsack", seed=0, requests=100_000, lower=1.0, upper=64.0, eps=1e-4)

    def floor_loop():
        z = 0.0
        for d, v in zip(inst.demands, inst.values):
            if v >= 1.0 and z + d <= 1.0:
                z += d
        return z

    reference = _best(floor_loop, repeat=3)
    result = benchmark.pedantic(optsched.solve, args=(inst, "threshold"), rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats is not None else result.wall_s
    benchmark.extra_info.update(seconds=seconds, reference_seconds=reference, ratio=seconds / reference)
    print(f"\nthreshold: 10^5 requests {seconds:.3f} s; bare loop {reference:.3f} s; ratio {seconds / reference:.1f}")
