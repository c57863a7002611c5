"""Loading, validating, solving and writing large instances and results (``make bench``).

Each step is measured on its own and reported as a ratio to a plain reference on the same data
in the same run, with the peak memory of the step (``tracemalloc``: Python objects and numpy
buffers):

* ``load``: file -> JSON data. From the JSON (``load_json_file``: orjson) against ``json.loads``
  of the same file's bytes; from the binary sidecar (``read_sidecar``: the SHA-256 check of the
  JSON file it belongs to, ``numpy.load`` of its arrays, lists back) against a plain
  ``numpy.load`` of every array in the same ``.npz``.
* ``validate``: JSON data -> validated instance (type conversion and the problem's rules),
  against ``json.loads``.
* ``solve``: a linear-time method through ``optsched.solve`` (checker included).
* ``write``: ``save`` of the JSON (against ``json.dumps`` of the same data, compact) and of the
  sidecar (against ``numpy.savez`` of the same arrays).

Instances: a 10^6-position ``pipeline-partition`` chain (issue 24's target: load and validate
in under 3 s from the JSON and from the sidecar) and a 10^5-job ``srpt`` stream with its
result. No wall-time assertion: the ratios are what to compare across machines; the assertions
are on correctness (what is loaded equals what was written, both ways).
"""

from __future__ import annotations

import gc
import json
import os
import time
import tracemalloc

import numpy as np
import pytest

import optsched
from optsched.core.instance import load_json_file
from optsched.core.result import Result
from optsched.core.sidecar import read_sidecar, sidecar_path
from optsched.problems.pipeline_partition import PipelinePartitionInstance

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]


def _measure(fn):
    """(result, wall seconds, peak MiB): the time from an untraced run, the peak from a second run
    under ``tracemalloc`` (which slows allocation-heavy code several-fold, so it never times)."""
    gc.collect()  # each step starts from the same heap state, not the garbage of the one before
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    del out
    gc.collect()
    tracemalloc.start()
    out = fn()
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


def _npz_load(path):
    with np.load(path, allow_pickle=False) as z:
        return [z[k] for k in z.files]


def _report(label: str, rows: list[tuple[str, float, float, float, str]], record_property) -> None:
    print(f"\n{label} (1-minute load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    for step, wall, ref, peak, ref_name in rows:
        print(f"  {step:<28} {wall:7.3f} s = {wall / ref:6.2f} x {ref_name} ({ref:.3f} s); peak {peak:7.1f} MiB")
        record_property(step.replace(" ", "_") + "_s", wall)


@pytest.mark.parametrize("n", [10**6])
def test_chain_instance_load_validate_solve_write(tmp_path, n, record_property):
    inst = _chain(n)
    path = tmp_path / "chain.json"
    data = inst.to_json()
    _, write_json, wpeak = _measure(lambda: inst.save(path))
    _, ref_dumps, _ = _measure(lambda: json.dumps(data, separators=(",", ":")))
    _, write_both, wpeak2 = _measure(lambda: inst.save(path, sidecar=True))
    side = sidecar_path(path)
    arrays = _npz_load(side)
    _, ref_savez, _ = _measure(lambda: np.savez(tmp_path / "plain.npz", *arrays))

    _, ref_json, _ = _measure(lambda: json.loads(path.read_bytes()))
    _, ref_npz, _ = _measure(lambda: _npz_load(side))
    parsed, load_json, lpeak = _measure(lambda: load_json_file(path, inst.problem))
    from_side, load_side, speak = _measure(lambda: read_sidecar(path, inst.problem))
    assert from_side == parsed
    loaded, validate, vpeak = _measure(lambda: PipelinePartitionInstance.from_json(parsed))
    assert loaded == inst
    _, total_json, tpeak = _measure(lambda: PipelinePartitionInstance.load(path, sidecar=False))
    again, total_side, tpeak2 = _measure(lambda: PipelinePartitionInstance.load(path))
    assert again == inst
    result, solve, spk = _measure(lambda: optsched.solve(loaded, "uniform"))
    assert result.status == "feasible"
    _report(f"{n} positions: JSON {path.stat().st_size / 1e6:.0f} MB, sidecar {side.stat().st_size / 1e6:.0f} MB", [
        ("load JSON", load_json, ref_json, lpeak, "json.loads"),
        ("load sidecar", load_side, ref_npz, speak, "numpy.load"),
        ("validate", validate, ref_json, vpeak, "json.loads"),
        ("load+validate JSON", total_json, ref_json, tpeak, "json.loads"),
        ("load+validate sidecar", total_side, ref_npz, tpeak2, "numpy.load"),
        ("solve uniform", solve, ref_json, spk, "json.loads"),
        ("write JSON", write_json, ref_dumps, wpeak, "json.dumps"),
        ("write JSON+sidecar", write_both, ref_savez, wpeak2, "numpy.savez"),
    ], record_property)
    print(f"  load+validate JSON = {total_json / ref_json:.2f} x json.loads; sidecar = {total_side / ref_json:.2f} "
          f"x json.loads ({total_side / total_json:.2f} x the JSON path)")


@pytest.mark.parametrize("jobs", [10**5])
def test_srpt_instance_load_and_result_write(tmp_path, jobs, record_property):
    start = time.perf_counter()
    inst = optsched.get_problem("srpt").generate(0, jobs=jobs, servers=64)
    gen_s = time.perf_counter() - start
    path = tmp_path / "srpt.json"
    inst.save(path, sidecar=True)
    side = sidecar_path(path)
    _, ref, _ = _measure(lambda: json.loads(path.read_bytes()))
    _, ref_npz, _ = _measure(lambda: _npz_load(side))
    loaded, wall, peak = _measure(lambda: type(inst).load(path, sidecar=False))
    assert loaded == inst
    again, wall_side, peak_side = _measure(lambda: type(inst).load(path))
    assert again == inst
    result, solve, speak = _measure(lambda: optsched.solve(loaded, "fifo"))
    out = tmp_path / "result.json"
    _, ref_w, _ = _measure(lambda: json.dumps(result.to_json()))
    _, write, wpeak = _measure(lambda: result.save(out))
    back = Result.from_json(json.loads(out.read_text()))
    assert back.objective == result.objective and back.solution == json.loads(json.dumps(result.solution))
    _, write_both, wpeak2 = _measure(lambda: result.save(out, sidecar=True))
    _, rref, _ = _measure(lambda: json.loads(out.read_bytes()))
    read_back, read_side, rpeak = _measure(lambda: Result.load(out))
    assert read_back.to_json() == back.to_json()
    _report(f"{jobs} srpt jobs (generated in {gen_s:.2f} s)", [
        ("load+validate JSON", wall, ref, peak, "json.loads"),
        ("load+validate sidecar", wall_side, ref_npz, peak_side, "numpy.load"),
        ("solve fifo", solve, ref, speak, "json.loads"),
        ("write result JSON", write, ref_w, wpeak, "json.dumps"),
        ("write result JSON+sidecar", write_both, ref_w, wpeak2, "json.dumps"),
        ("read result sidecar", read_side, rref, rpeak, "json.loads"),
    ], record_property)
