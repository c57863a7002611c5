"""Scale of the chain DP and bisection (issue 21, part 1; ``make bench``; marked slow).

Every time is reported as a ratio against a reference measured in the same run on the same data:
a numpy prefix-sum pass (``np.cumsum`` of the five per-position arrays, best of 20), so that the
figures survive the machine's load; absolute seconds, the peak memory (``tracemalloc``, numpy
allocations included, in a separate run because tracing slows numpy calls) and ``uptime`` are
printed with them.

* ``dp`` at n = 10^4 positions on ``nvlink:64`` (K free, replication free, memory binding at M = 4):
  the issue's acceptance (under 5 s, under 500 MB); peak memory is asserted (< 500 MB), time is
  reported.
* ``dp`` at n = 10^5 on ``nvlink:8``; ``dp`` at n = 10^4 on ``two-level:2x4`` and with K fixed.
* growth exponents in n and N for ``dp`` and ``bisect`` (log-log least squares over 4-5 sizes).

The chains keep their total parameter and stash bytes constant as n grows (memory binds on one
device at every size, a plan fits on 8), work per position uniform in [1, 10] ms.
"""

from __future__ import annotations

import os
import time
import tracemalloc

import numpy as np
import pytest

import optsched
from optsched.problems.pipeline_partition.bisect import min_bottleneck
from optsched.pipeline.partition.dp import bottleneck_dp, order_space
from optsched.problems.pipeline_partition.generate import chain_instance

pytestmark = pytest.mark.slow


def _chain(n: int, topology: str, *, seed: int = 0, stages=None, max_replicas=None, microbatches: int = 4,
           memory_gb=None):
    rng = np.random.default_rng(seed)
    work = rng.uniform(1e-3, 1e-2, n)
    act = rng.uniform(0, 2 * 5e9 / n, n)      # 5 GB of activations (stash) in total
    par = rng.uniform(0, 2 * 2e10 / n, n)     # 20 GB of parameters in total (x 4 with the optimizer)
    return chain_instance(list(work), topology=topology, activation=list(act), parameters=list(par),
                          stages=stages, max_replicas=max_replicas, microbatches=microbatches, memory_gb=memory_gb)


def _reference_s(inst) -> float:
    """Best of 20 numpy prefix-sum passes over the instance's five per-position arrays."""
    arrays = [np.asarray(getattr(inst, f), float) for f in
              ("forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes")]
    best = np.inf
    for _ in range(20):
        t = time.perf_counter()
        for a in arrays:
            np.cumsum(a)
        best = min(best, time.perf_counter() - t)
    return best


def _measure(fn) -> tuple[float, float, object]:
    """(seconds of one untraced run, peak traced bytes of a second run, result)."""
    t = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t
    tracemalloc.start()
    try:
        fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return seconds, peak, out


def _load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def _fit(xs, ys) -> float:
    """Slope of log y on log x (least squares): the growth exponent."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def _dp(inst):
    return bottleneck_dp(inst, order_space(inst))


def test_dp_acceptance_10k_positions_64_devices(benchmark):
    inst = _chain(10_000, "nvlink:64")
    ref = _reference_s(inst)
    result = benchmark.pedantic(lambda: optsched.solve(inst, "dp"), rounds=1, iterations=1)
    solve_s = benchmark.stats.stats.min
    seconds, peak, (value, plan) = _measure(lambda: _dp(inst))
    print(f"\ndp n=10^4 nvlink:64 K free M=4: solve {solve_s:.2f} s (DP alone {seconds:.2f} s, "
          f"{seconds / ref:.0f}x a prefix-sum pass of {ref * 1e6:.0f} us), DP peak {peak / 1e6:.1f} MB, "
          f"{len(plan.bounds)} stages, replicas {sorted({len(g) for g in plan.groups})}; {_load()}")
    benchmark.extra_info.update(dp_s=seconds, peak_mb=peak / 1e6, ratio=seconds / ref, load=_load())
    assert result.status == "optimal" and result.objective == pytest.approx(value, rel=1e-12)
    assert peak < 500e6


def test_dp_100k_positions_8_devices(benchmark):
    inst = _chain(100_000, "nvlink:8")
    ref = _reference_s(inst)
    benchmark.pedantic(lambda: _dp(inst), rounds=1, iterations=1)
    seconds, peak, (value, plan) = _measure(lambda: _dp(inst))
    print(f"\ndp n=10^5 nvlink:8 K free M=4: {seconds:.2f} s ({seconds / ref:.0f}x a prefix-sum pass), "
          f"peak {peak / 1e6:.1f} MB, {len(plan.bounds)} stages; {_load()}")
    assert plan is not None and peak < 500e6


@pytest.mark.parametrize("topology,stages", [("two-level:2x4", None), ("nvlink:8", 6)])
def test_dp_reachability_probe_10k(benchmark, topology, stages):
    """The general probe (clustered keys, or K fixed)."""
    inst = _chain(10_000, topology, stages=stages)
    ref = _reference_s(inst)
    benchmark.pedantic(lambda: _dp(inst), rounds=1, iterations=1)
    seconds, peak, (value, plan) = _measure(lambda: _dp(inst))
    print(f"\ndp n=10^4 {topology} K={stages or 'free'}: {seconds:.2f} s ({seconds / ref:.0f}x a prefix-sum "
          f"pass), peak {peak / 1e6:.1f} MB; {_load()}")
    assert plan is not None and peak < 500e6


def _growth(label, sizes, make, solve):
    times, peaks, ratios = [], [], []
    for s in sizes:
        inst = make(s)
        ref = _reference_s(inst)
        seconds, peak, _ = _measure(lambda: solve(inst))
        times.append(seconds)
        peaks.append(peak)
        ratios.append(seconds / ref)
    et, em = _fit(sizes, times), _fit(sizes, peaks)
    rows = ", ".join(f"{s}: {t:.3f} s / {p / 1e6:.1f} MB" for s, t, p in zip(sizes, times, peaks))
    print(f"\n{label}: time ~ x^{et:.2f}, peak memory ~ x^{em:.2f} ({rows}); {_load()}")
    return et, em


def test_growth_dp_in_n(benchmark):
    sizes = [2_500, 5_000, 10_000, 20_000, 40_000]
    et, em = benchmark.pedantic(lambda: _growth("dp in n (nvlink:8, K free)", sizes,
                                                lambda n: _chain(n, "nvlink:8"), _dp), rounds=1, iterations=1)
    benchmark.extra_info.update(time_exponent=et, memory_exponent=em)
    assert em < 1.5  # linear memory (n^2 would fit an exponent near 2)


def test_growth_dp_in_devices(benchmark):
    sizes = [8, 16, 32, 64]
    et, em = benchmark.pedantic(lambda: _growth("dp in N (n = 5,000, nvlink:N, K free)", sizes,
                                                lambda N: _chain(5_000, f"nvlink:{N}"), _dp), rounds=1, iterations=1)
    benchmark.extra_info.update(time_exponent=et, memory_exponent=em)


def _bisect_chain(n, N):
    return _chain(n, f"flat:{N}:10", max_replicas=1, memory_gb=1e6)


def test_growth_bisect_in_n(benchmark):
    sizes = [12_500, 25_000, 50_000, 100_000, 200_000]
    et, em = benchmark.pedantic(lambda: _growth("bisect in n (flat:64, no replication)", sizes,
                                                lambda n: _bisect_chain(n, 64), min_bottleneck), rounds=1, iterations=1)
    benchmark.extra_info.update(time_exponent=et, memory_exponent=em)
    assert em < 1.5


def test_growth_bisect_in_devices(benchmark):
    sizes = [8, 16, 32, 64, 128]
    et, em = benchmark.pedantic(lambda: _growth("bisect in N (n = 50,000, flat:N)", sizes,
                                                lambda N: _bisect_chain(50_000, N), min_bottleneck),
                                rounds=1, iterations=1)
    benchmark.extra_info.update(time_exponent=et, memory_exponent=em)
