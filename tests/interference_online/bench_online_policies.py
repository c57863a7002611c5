"""Benchmark of the interference-aware online policies: one simulated run of each on the
Philly-derived trace 7f04ca (972 jobs, 16 x 4 GPUs).

Reference measured in the same run: the shared simulator's own ``FifoPolicy`` on the same jobs
(constant rates, no interference, no snapshot), so the ratio says what the interference-aware
policy adds over the bare engine. No wall-time assertion.
"""

from __future__ import annotations

import math
import time

import pytest

import optsched
from optsched.simulation.cluster import Cluster, FifoPolicy, SimJob, Simulator

from tests.conftest import require_data


def _best(function, repeat: int = 1) -> float:
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("method", ["fifo-pack", "least-interference", "marl"])
def test_online_policy_on_7f04ca(benchmark, method):
    from optsched.problems.interference_online import load_gavel_online

    inst = load_gavel_online(require_data("traces/gavel_philly/7f04ca.trace"))
    jobs = [SimJob(id=j.id, arrival=j.arrival, work=j.isolated_time, gpus=j.gpus) for j in inst.jobs]
    cluster = Cluster(gpus_per_server=inst.gpus_per_server, intra_bandwidth=1.0, inter_bandwidth=1.0)
    reference = _best(lambda: Simulator(cluster, jobs, FifoPolicy(), record_log=False).run())
    result = benchmark.pedantic(optsched.solve, args=(inst, method), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats is not None else result.wall_s
    assert result.status == "feasible"
    benchmark.extra_info.update(seconds=seconds, reference_seconds=reference, ratio_to_reference=seconds / reference,
                                jobs=inst.num_jobs)
    print(f"\n{method}: {inst.num_jobs} jobs, {seconds:.2f} s (bare FIFO engine {reference:.3f} s)")
