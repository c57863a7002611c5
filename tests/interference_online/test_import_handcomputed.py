"""interference-online's ``gavel-online`` importer against values computed by hand.

Gavel's trace (tab separated; job type, ..., total steps, arrival seconds, scale factor = GPUs) and
Gavel's ``simulation_throughputs.json`` (per accelerator, ``"('<type>', scale)"`` -> isolated
steps/s under ``"null"`` and, per other scale-1 type, ``[this job's, the other's]`` co-located
steps/s). The importer [ours]: jobs by arrival; step time = 1 / the isolated v100 throughput of
(type, scale) (the scale-1 row when no multi-GPU row); iterations = total steps;
beta[a][b] = iso_a / coloc_{a|b} - 1; a co-located throughput of 0 forbids the pair.
A tiny hand-written throughput file stands in for Gavel's.
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.interference_online.generate import load_gavel_online

from tests.conftest import require_data
from tests.gavel_files import A, B, write_gavel_files
from tests.gavel_files import gavel_key as _key


TRACE = (f"{B}\tcmd\t-n\t1\t400\t30.0\t4\n"
         f"{A}\tcmd\t-n\t1\t1000\t5.0\t2\n"
         f"{A}\tcmd\t-n\t1\t300\t30.0\t1\n")


def _files(tmp_path):
    return write_gavel_files(tmp_path, TRACE)


def test_stream_step_times_and_interference(tmp_path):
    trace, tp = _files(tmp_path)
    inst = load_gavel_online(trace, throughputs=tp, servers=2, gpus_per_server=4, servers_per_group=1)
    assert inst.job_types == (A, B)
    # beta = iso / co-located - 1: A|A 10/8 - 1, A|B 10/5 - 1, B|A 4/2 - 1; B|B forbidden
    assert inst.beta[0] == pytest.approx((0.25, 1.0)) and inst.beta[1][0] == pytest.approx(1.0)
    assert inst.forbidden == ((False, False), (False, True))
    # by arrival: the A job at 5 s, then the two at 30 s in file order (B, then A)
    jobs = inst.jobs
    assert [(j.arrival, j.type, j.gpus) for j in jobs] == [(5.0, 0, 2), (30.0, 1, 4), (30.0, 0, 1)]
    assert [j.iterations for j in jobs] == [1000.0, 400.0, 300.0]
    # step time = 1 / isolated steps/s: A on 2 GPUs has its own row (16), B on 4 falls back to scale 1
    assert [j.step_time for j in jobs] == [pytest.approx(1 / 16), pytest.approx(1 / 4), pytest.approx(1 / 10)]
    assert inst.gpus_per_server == (4, 4)
    slow = load_gavel_online(trace, throughputs=tp, servers=2, gpus_per_server=4, arrival_scale=0.5)
    assert [j.arrival for j in slow.jobs] == [2.5, 15.0, 15.0]


@pytest.mark.data
def test_real_trace_against_the_files_read_directly():
    trace = require_data("traces/gavel_philly/7f04ca.trace")
    table = json.loads(require_data("throughputs/gavel/simulation_throughputs.json").read_text())["v100"]
    rows = [line.split("\t") for line in trace.read_text().splitlines() if line.strip()]
    rows = [r for _, r in sorted(enumerate(rows), key=lambda ir: (float(ir[1][5]), ir[0]))]
    inst = load_gavel_online(trace)
    assert len(inst.jobs) == len(rows)
    for k in (0, len(rows) // 2, len(rows) - 1):
        r, job = rows[k], inst.jobs[k]
        key = _key(r[0], int(r[6])) if _key(r[0], int(r[6])) in table else _key(r[0])
        assert job.step_time == pytest.approx(1 / table[key]["null"], rel=1e-12)
        assert job.gpus == int(r[6]) and job.iterations == float(r[4]) and inst.job_types[job.type] == r[0]
