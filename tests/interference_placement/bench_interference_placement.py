"""Benchmark of interference-aware placement: the snapshot MILP on the ``medium`` preset.

Reference measured in the same run: the ``least-interference`` greedy on the same instance (best
of 3). No wall-time assertion.
"""

from __future__ import annotations

import math
import time

import pytest

import optsched


def _best(function, repeat: int = 1) -> float:
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
def test_snapshot_milp_medium(benchmark):
    inst = optsched.generate("interference-placement", seed=0, preset="medium")
    reference = _best(lambda: optsched.solve(inst, "least-interference"), repeat=3)
    result = benchmark.pedantic(optsched.solve, args=(inst, "milp"), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats is not None else result.wall_s
    assert result.status == "optimal"
    benchmark.extra_info.update(seconds=seconds, reference_greedy_seconds=reference, ratio=seconds / reference)
