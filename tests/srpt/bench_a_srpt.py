"""Benchmark of A-SRPT on a 10,000-job stream.

The ``bench`` preset (10,000 generated jobs, rings/chains/grids, 64 servers x
8 GPUs, load 0.8, random-forest predictions), the full method through ``optsched.solve`` (virtual
SRPT, placement, simulation with restart overhead, checker). Target (issue 9): under 60 s on the
reference machine -- reported, not asserted. The reference measured in the same run is the
shared simulator's own ``FifoPolicy`` on the same jobs (no placement, no rate model): the ratio
says what A-SRPT's policy adds over the bare engine.
"""

from __future__ import annotations

import math
import time

import pytest

import optsched
from optsched.simulation.cluster import Cluster, FifoPolicy, SimJob, Simulator

from ..clock_support import cli_wall_over_limit


def _best(function, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
def test_a_srpt_10k_jobs_64x8(benchmark):
    inst = optsched.generate("srpt", seed=0, preset="bench")
    assert inst.num_jobs == 10_000 and inst.total_gpus == 512
    jobs = [SimJob(id=j.id, arrival=j.arrival, work=float(j.iterations), gpus=j.gpus) for j in inst.jobs]
    cluster = Cluster(gpus_per_server=inst.gpus_per_server, intra_bandwidth=inst.intra_bandwidth,
                      inter_bandwidth=inst.inter_bandwidth)
    reference = _best(lambda: Simulator(cluster, jobs, FifoPolicy(), record_log=False).run(), repeat=1)

    result = benchmark.pedantic(optsched.solve, args=(inst, "a-srpt"), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats is not None else result.wall_s
    lb = optsched.solve(inst, "lb").objective
    fifo = optsched.solve(inst, "fifo").objective
    assert result.status == "feasible" and result.objective >= lb
    benchmark.extra_info.update(seconds=seconds, reference_fifo_engine_seconds=reference,
                                ratio_to_reference=seconds / reference, flow_over_lb=result.objective / lb,
                                fifo_over_lb=fifo / lb, preemptions=result.stats["preemptions"])
    print(f"\na-srpt: 10,000 jobs on 64x8 GPUs: {seconds:.1f} s (target < 60 s, not asserted); bare FIFO engine "
          f"{reference:.2f} s (ratio {seconds / reference:.1f}); flow/LB {result.objective / lb:.4f}, "
          f"fifo flow/LB {fifo / lb:.4f}; {result.stats['preemptions']} preemptions")


@pytest.mark.slow
@pytest.mark.benchmark
def test_time_limit_at_the_declared_bound(benchmark, tmp_path):
    """The whole command at ``--time-limit 5`` on 65,536 GPUs (8,192 servers x 8) and 20,000 jobs: the command's and the method's wall
    over the limit (reported in ``extra_info``, not asserted; the target is at most 1.5 x the
    limit + 5 s for the command)."""
    info = benchmark.pedantic(cli_wall_over_limit, args=(tmp_path, 'srpt', 'a-srpt', {'servers': 8192, 'gpus_per_server': 8, 'jobs': 20000}),
                              kwargs={"options": None}, rounds=1, iterations=1)
    benchmark.extra_info.update(info)
    print(f"\n{info}")
