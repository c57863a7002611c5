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

Instance: a 10^6-position chain (issue 24's target: load and validate in under 3 s from the
JSON and from the sidecar); the same steps on a 10^5-job stream and its result are measured in
the ``bench_io.py`` of that online problem's tests. No wall-time assertion: the ratios are what to compare across
machines; the assertions are on correctness (what is loaded equals what was written, both ways).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import optsched
from optsched.core.instance import load_json_file
from optsched.core.sidecar import read_sidecar, sidecar_path
from optsched.problems.pipeline_partition import PipelinePartitionInstance
from tests.benchmarking import measure as _measure, npz_load as _npz_load, report as _report

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]


def _chain(n: int) -> PipelinePartitionInstance:
    rng = np.random.default_rng(0)
    return PipelinePartitionInstance(
        objective="bottleneck", microbatches=8, profile_batch=1.0, microbatch_size=1.0,
        layer_names=[f"l{i}" for i in range(n)], forward_s=rng.random(n), backward_s=rng.random(n),
        parameter_bytes=rng.random(n) * 1e6, activation_bytes=rng.random(n) * 1e6, stash_bytes=rng.random(n) * 1e6,
        device_speed=[1.0] * 8, device_memory_bytes=[1e12] * 8,
        links=[(i, j, 1e10) for i in range(8) for j in range(i + 1, 8)])


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
