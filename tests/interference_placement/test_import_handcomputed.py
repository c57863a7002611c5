"""interference-placement's ``gavel-snapshot`` importer against values computed by hand.

Window ``index`` of ``jobs`` jobs of a Gavel trace in file order (``start = index x jobs``); weight =
total steps / the isolated v100 steps/s of (type, scale) (scale-1 row when there is no multi-GPU
row); reject cost = 4 x the largest weight; 4 servers of 4 GPUs, more when a job needs them;
interference table from Gavel's throughputs (``optsched.workloads``). A tiny
hand-written throughput file stands in for Gavel's.
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.interference_placement.generate import load_gavel_snapshot

from tests.conftest import require_data
from tests.gavel_files import A, B, write_gavel_files
from tests.gavel_files import gavel_key as _key


TRACE = (f"{B}\tcmd\t-n\t1\t400\t30.0\t4\n"
         f"{A}\tcmd\t-n\t1\t1000\t5.0\t2\n"
         f"{A}\tcmd\t-n\t1\t300\t1.0\t1\n"
         f"{B}\tcmd\t-n\t1\t80\t2.0\t24\n")


def test_windows_weights_and_cluster(tmp_path):
    trace, tp = write_gavel_files(tmp_path, TRACE)
    first = load_gavel_snapshot(trace, 0, jobs=2, throughputs=tp)
    assert first.job_types == (A, B)
    assert [(j.type, j.gpus) for j in first.jobs] == [(1, 4), (0, 2)]      # file order, not arrival
    # weights: 400 steps / 4 steps/s = 100 s; 1000 / 16 (A's 2-GPU row) = 62.5 s
    assert [j.weight for j in first.jobs] == [pytest.approx(100.0), pytest.approx(62.5)]
    assert first.reject_cost == pytest.approx(400.0)
    assert first.gpus_per_server == (4,) * 4
    assert first.beta[0] == pytest.approx((0.25, 1.0)) and first.forbidden[1][1]
    second = load_gavel_snapshot(trace, 1, jobs=2, throughputs=tp)        # jobs 2 and 3
    assert [(j.type, j.gpus) for j in second.jobs] == [(0, 1), (1, 24)]
    assert [j.weight for j in second.jobs] == [pytest.approx(30.0), pytest.approx(20.0)]
    assert second.gpus_per_server == (4,) * 6                              # 24 GPUs / 4 > 4 servers


@pytest.mark.data
def test_real_trace_against_the_files_read_directly():
    trace = require_data("traces/gavel_philly/e13805.trace")
    table = json.loads(require_data("throughputs/gavel/simulation_throughputs.json").read_text())["v100"]
    rows = [line.split("\t") for line in trace.read_text().splitlines() if line.strip()]
    inst = load_gavel_snapshot(trace, 3, jobs=10)
    for job, r in zip(inst.jobs, rows[30:40], strict=True):
        key = _key(r[0], int(r[6])) if _key(r[0], int(r[6])) in table else _key(r[0])
        assert job.weight == pytest.approx(int(r[4]) / table[key]["null"], rel=1e-12)
        assert job.gpus == int(r[6]) and inst.job_types[job.type] == r[0]
