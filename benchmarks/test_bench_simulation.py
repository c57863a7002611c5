"""Benchmark of the discrete-event simulator (optsched.simulation.cluster).

10^5 jobs (seeded: Poisson arrivals at 80 % nominal load, exponential works of mean 100 s,
1-8 GPUs uniformly) on 64 servers x 8 GPUs, strict FIFO, no log.  The time is reported as a
ratio to a reference measured in the same run on the same jobs: a plain loop that sorts the
jobs by arrival and passes each through a binary heap of completion instants (one heappush and
one heappop per job), i.e. the bare minimum any event-driven simulation of them must do.  The
ratio, not the absolute time, is what to compare across machines; no wall-time assertion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from heapq import heappop, heappush

import numpy as np
import pytest

from optsched.simulation.cluster import Cluster, FifoPolicy, SimJob, SimulationResult, Simulator

NUM_JOBS = 100_000
NUM_SERVERS = 64
GPUS_PER_SERVER = 8
MEAN_WORK = 100.0
LOAD = 0.8
SEED = 20240611


def make_jobs(num_jobs: int = NUM_JOBS, seed: int = SEED) -> list[SimJob]:
    """Poisson arrivals at ``LOAD`` times the cluster's GPU capacity, 1-8 GPUs per job."""
    rng = np.random.default_rng(seed)
    gpus = rng.integers(1, GPUS_PER_SERVER + 1, size=num_jobs)
    work = 1.0 + rng.exponential(MEAN_WORK - 1.0, size=num_jobs)
    mean_gpus = (1 + GPUS_PER_SERVER) / 2
    arrival_rate = LOAD * NUM_SERVERS * GPUS_PER_SERVER / (MEAN_WORK * mean_gpus)
    arrivals = np.cumsum(rng.exponential(1.0 / arrival_rate, size=num_jobs))
    return [
        SimJob(id=index, arrival=float(arrival), work=float(amount), gpus=int(count))
        for index, (arrival, amount, count) in enumerate(zip(arrivals, work, gpus))
    ]


def simulate(jobs: list[SimJob]) -> SimulationResult:
    """FIFO on 64 x 8 GPUs, without log."""
    cluster = Cluster(
        gpus_per_server=(GPUS_PER_SERVER,) * NUM_SERVERS,
        intra_bandwidth=3e11,
        inter_bandwidth=1.25e9,
    )
    return Simulator(cluster, jobs, FifoPolicy(), record_log=False).run()


def reference_loop(jobs: list[SimJob]) -> int:
    """Sort the jobs by arrival and pass each through a heap of completion instants."""
    heap: list[tuple[float, int]] = []
    popped = 0
    for job in sorted(jobs, key=lambda job: (job.arrival, job.id)):
        while heap and heap[0][0] <= job.arrival:
            heappop(heap)
            popped += 1
        heappush(heap, (job.arrival + job.work, job.id))
    while heap:
        heappop(heap)
        popped += 1
    return popped


def best_time(function: Callable[[], object], repeat: int) -> float:
    """Smallest wall time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
def test_fifo_100k_jobs_64x8_gpus(benchmark):
    jobs = make_jobs()
    assert reference_loop(jobs) == NUM_JOBS
    reference_seconds = best_time(lambda: reference_loop(jobs), repeat=5)

    result = benchmark.pedantic(simulate, args=(jobs,), rounds=3, iterations=1)
    if benchmark.stats is not None:
        simulation_seconds = benchmark.stats.stats.min
    else:  # --benchmark-disable: time it here
        simulation_seconds = best_time(lambda: simulate(jobs), repeat=1)

    assert result.unfinished == ()
    assert len(result.completion) == NUM_JOBS
    assert all(result.start_first[job.id] >= job.arrival for job in jobs)

    ratio = simulation_seconds / reference_seconds
    benchmark.extra_info.update(
        jobs=NUM_JOBS,
        servers=NUM_SERVERS,
        gpus_per_server=GPUS_PER_SERVER,
        simulation_seconds=simulation_seconds,
        reference_seconds=reference_seconds,
        ratio_to_reference=ratio,
    )
    print(
        f"\nsimulator: {NUM_JOBS} jobs on {NUM_SERVERS}x{GPUS_PER_SERVER} GPUs, FIFO, no log: "
        f"{simulation_seconds:.3f} s (best of 3); reference heap loop {reference_seconds:.3f} s; "
        f"ratio {ratio:.1f}"
    )
