"""Loading, validating, solving and writing a large online stream and its result (``make bench``).

Each step is measured on its own and reported as a ratio to a plain reference on the same data
in the same run, with the peak memory of the step (``tracemalloc``: Python objects and numpy
buffers), as for the 10^6-position chain in the ``bench_io.py`` of the chain-partition tests:
load and validate from the JSON (against ``json.loads``) and from the binary sidecar (against
``numpy.load`` of the same arrays), one linear-time method through ``optsched.solve``, the
result's write (against ``json.dumps``) and read back. Instance: a 10^5-job stream with its result. No wall-time
assertion: the ratios are what to compare across machines; the assertions are on correctness
(what is loaded equals what was written, both ways).
"""

from __future__ import annotations

import json
import time

import pytest

import optsched
from optsched.core.result import Result
from optsched.core.sidecar import sidecar_path
from tests.benchmarking import measure as _measure, npz_load as _npz_load, report as _report

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]


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
