"""Benchmark of one simulated ADSP training run (``commit-rate``), least squares and the tanh
network, 6 workers, heterogeneity 10, constant C = 2, to the target or the 1800 s horizon.

Reference measured in the same run: the same number of bare gradient evaluations on one
mini-batch (the floor of any simulation of these local steps). No wall-time assertion.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import optsched
from optsched.problems.commit_rate.simulate import Task, simulate


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("model", ["least-squares", "mlp"])
def test_one_simulated_run(benchmark, model):
    inst = optsched.generate("commit-rate", seed=0, model=model, heterogeneity=10.0)
    run = benchmark.pedantic(simulate, args=(inst, {"scheme": "adsp", "commits": [2]}), rounds=3, iterations=1)
    task = Task(inst)
    idx = np.arange(inst.batch)
    steps = sum(int(min(run.objective, inst.horizon) / t) for t in inst.step_times)
    began = time.perf_counter()
    w = task.w0.copy()
    for _ in range(steps):
        w -= 1e-9 * task.grad(w, idx)
    reference = time.perf_counter() - began
    seconds = benchmark.stats.stats.min
    benchmark.extra_info.update(seconds=seconds, local_steps=steps, reference_seconds=reference,
                                ratio=seconds / reference, reached=run.reached)
    print(f"\n{model}: one run {seconds:.3f} s ({steps} local steps; bare gradients {reference:.3f} s)")
