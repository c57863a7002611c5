"""Loading, validating and writing large instances and results (``make bench``).

Measured separately: the load of a 10^6-position ``pipeline-partition`` chain and of a 10^5-job
``srpt`` stream (parse + convert + validate), and the write of the srpt result. Each time is
reported as a ratio to a reference on the same data in the same run (``json.loads`` of the same
file; ``json.dumps`` of the same record without indentation), with the peak memory of the step
(``tracemalloc``). No wall-time assertion: the ratios are what to compare across machines; the
assertions are on correctness (the loaded instance equals the written one).
"""

from __future__ import annotations

import json
import time
import tracemalloc

import numpy as np
import pytest

import optsched
from optsched.problems.pipeline_partition import PipelinePartitionInstance

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]


def _measure(fn):
    """(result, wall seconds, peak MiB): the time from an untraced run, the peak from a second run
    under ``tracemalloc`` (which slows allocation-heavy code several-fold, so it never times)."""
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, wall, peak / 2**20


def _chain(n: int) -> PipelinePartitionInstance:
    rng = np.random.default_rng(0)
    return PipelinePartitionInstance(
        objective="bottleneck", microbatches=8, profile_batch=1.0, microbatch_size=1.0,
        layer_names=[f"l{i}" for i in range(n)], forward_s=rng.random(n), backward_s=rng.random(n),
        parameter_bytes=rng.random(n) * 1e6, activation_bytes=rng.random(n) * 1e6, stash_bytes=rng.random(n) * 1e6,
        device_speed=[1.0] * 8, device_memory_bytes=[1e12] * 8,
        links=[(i, j, 1e10) for i in range(8) for j in range(i + 1, 8)])


@pytest.mark.parametrize("n", [10**6])
def test_chain_instance_load(tmp_path, n, record_property):
    inst = _chain(n)
    path = tmp_path / "chain.json"
    inst.save(path)
    _, ref, _ = _measure(lambda: json.loads(path.read_text()))
    loaded, wall, peak = _measure(lambda: PipelinePartitionInstance.load(path))
    assert loaded == inst
    record_property("load_s", wall)
    record_property("json_loads_s", ref)
    print(f"\n{n} positions: load+validate {wall:.2f} s = {wall / ref:.2f} x json.loads ({ref:.2f} s); "
          f"peak {peak:.0f} MiB")


@pytest.mark.parametrize("jobs", [10**5])
def test_srpt_instance_load_and_result_write(tmp_path, jobs, record_property):
    start = time.perf_counter()
    inst = optsched.get_problem("srpt").generate(0, jobs=jobs, servers=64)
    gen_s = time.perf_counter() - start
    path = tmp_path / "srpt.json"
    inst.save(path)
    _, ref, _ = _measure(lambda: json.loads(path.read_text()))
    loaded, wall, peak = _measure(lambda: type(inst).load(path))
    assert loaded == inst
    result = optsched.solve(loaded, "fifo")
    out = tmp_path / "result.json"
    _, ref_w, _ = _measure(lambda: json.dumps(result.to_json()))
    _, write, wpeak = _measure(lambda: result.save(out))
    again = optsched.Result.from_json(json.loads(out.read_text()))
    assert again.objective == result.objective and again.solution == json.loads(json.dumps(result.solution))
    print(f"\n{jobs} jobs: generate {gen_s:.2f} s; load+validate {wall:.2f} s = "
          f"{wall / ref:.2f} x json.loads ({ref:.2f} s), peak {peak:.0f} MiB; result write {write:.2f} s = "
          f"{write / ref_w:.2f} x json.dumps ({ref_w:.2f} s), peak {wpeak:.0f} MiB")
