"""Benchmark of the pipeline-schedule event simulator (optsched.simulation.pipeline).

1F1B on 64 stages x 1024 microbatches (131 072 tasks; the ``large`` generator preset, seed 0:
heterogeneous stages, transfers, all-reduces). The vectorized engine's time is reported as a
ratio to the plain-Python event loop (``engine="plain"``: each task visited once, a blocked
stage woken by the task it waits for) on the same instance in the same run; both include
building the order and the dependency arrays. The ratio is what to compare across machines;
the absolute time is reported (target: under 1 s), not asserted.
"""

from __future__ import annotations

import time

import pytest

import optsched
from optsched.simulation.pipeline import simulate

STAGES, MICROBATCHES = 64, 1024


def best_time(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


@pytest.mark.slow
@pytest.mark.benchmark
def test_1f1b_64_stages_1024_microbatches(benchmark):
    inst = optsched.generate("pipeline-schedule", seed=0, preset="large")
    assert (inst.stages, inst.microbatches) == (STAGES, MICROBATCHES)
    plain = simulate(inst.timing, MICROBATCHES, "1f1b", engine="plain")
    reference_seconds = best_time(lambda: simulate(inst.timing, MICROBATCHES, "1f1b", engine="plain"), repeat=3)

    result = benchmark.pedantic(simulate, args=(inst.timing, MICROBATCHES, "1f1b"),
                                kwargs={"engine": "vectorized"}, rounds=5, iterations=1)
    if benchmark.stats is not None:
        seconds = benchmark.stats.stats.min
    else:  # --benchmark-disable: time it here
        seconds = best_time(lambda: simulate(inst.timing, MICROBATCHES, "1f1b", engine="vectorized"), repeat=3)

    assert result.makespan == plain.makespan  # same float operations in the same order
    assert result.makespan >= result.lower_bound
    ratio = seconds / reference_seconds
    benchmark.extra_info.update(stages=STAGES, microbatches=MICROBATCHES, simulation_seconds=seconds,
                                reference_seconds=reference_seconds, ratio_to_reference=ratio,
                                makespan=result.makespan, lower_bound=result.lower_bound)
    print(f"\n1F1B {STAGES} stages x {MICROBATCHES} microbatches: vectorized {seconds:.3f} s (best of 5), "
          f"plain-Python event loop {reference_seconds:.3f} s (best of 3), ratio {ratio:.2f}; "
          f"makespan {result.makespan:.1f} s, LB {result.lower_bound:.1f} s")
    assert ratio < 1.0, "the vectorized engine must beat the plain loop it replaces at this size"


# -- the time limit at the declared bounds -------------------------------------------------------
LIMIT = 5.0


@pytest.mark.slow
@pytest.mark.parametrize("method, stages, microbatches", [
    ("milp", 64, 125),      # the largest 64-stage model within the nonzero cap (19.9 million)
    ("list", 64, 512),
    ("list", 1024, 128),    # the generator's largest K x M (131,072) at its largest K
    ("1f1b", 1024, 128),
    ("1f1b", 64, 2048),
])
def test_time_limit_at_the_declared_bounds(method, stages, microbatches):
    """``time_limit = 5``: the library call's wall time / limit is printed with the load."""
    import os

    inst = optsched.generate("pipeline-schedule", seed=0, stages=stages, microbatches=microbatches)
    t = time.perf_counter()
    r = optsched.solve(inst, method, time_limit=LIMIT)
    wall = time.perf_counter() - t
    print(f"\n{method} {stages} x {microbatches}: {r.status}, wall {wall:.2f} s = {wall / LIMIT:.2f} x limit, "
          f"load {os.getloadavg()[0]:.1f}")
    assert r.status in ("time_limit", "optimal", "feasible")


@pytest.mark.slow
def test_milp_refused_past_the_cap_at_once():
    from optsched.core.errors import NotApplicable

    inst = optsched.generate("pipeline-schedule", seed=0, stages=64, microbatches=512)
    t = time.perf_counter()
    with pytest.raises(NotApplicable):
        optsched.solve(inst, "milp", time_limit=LIMIT)
    print(f"\nmilp 64 x 512 refused in {time.perf_counter() - t:.3f} s")
