"""rar-online's ``gavel-trace-online`` importer against values computed by hand.

From the module doc [ours]: jobs sorted by arrival; arrival slot = floor(arrival_s / 21,600);
F_j = ceil(total_steps / 1,000) worker-iterations; max_workers = the scale factor (capped at the
cluster's 20 x 8 GPUs); d0 = ceil(F_j / (w x floor(60 s / tau))) with tau the ring iteration time at
w = max_workers inside one server (compute only for w = 1); sigmoid utility of value 1, midpoint
2 d0, steepness 2 / d0; reserved bandwidth 12.5e9 / 4 bytes/s; horizon = last arrival + 100.
"""

from __future__ import annotations

import json
import math

import pytest

from optsched.problems.rar_online.generate import load_gavel_online

from optsched.workloads.job_types import TABLE_PATH
from tests.conftest import require_data

TABLE = json.loads(TABLE_PATH.read_text())["types"]

TRACE = ("Transformer (batch size 128)\tcmd\t-step\t1\t2000\t50000.0\t2\n"
         "ResNet-50 (batch size 64)\tcmd\t-n\t1\t1234567\t21599.0\t1\n"
         "vgg16\tcmd\t-n\t1\t500\t21600.0\t400\n")


def test_slots_iterations_and_utility(tmp_path):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    inst = load_gavel_online(path)
    # sorted by arrival: ResNet (21599 s -> slot 0), vgg16 (21600 s -> slot 1), Transformer (slot 2)
    assert [j.job_type for j in inst.jobs] == ["ResNet-50 (batch size 64)", "vgg16", "Transformer (batch size 128)"]
    assert [j.arrival for j in inst.jobs] == [0, 1, 2]
    assert [j.iterations for j in inst.jobs] == [1235, 1, 2]        # ceil(steps / 1000)
    assert [j.max_workers for j in inst.jobs] == [1, 160, 2]        # 400 GPUs capped at 20 x 8
    assert "capped" in inst.provenance
    assert inst.horizon == 102 and inst.servers == (8,) * 20 and inst.slot_s == 60.0
    r = inst.jobs[0]
    assert r.model_bytes == TABLE["ResNet-50"]["model_bytes"]
    tau = 64 * (0.000822 + 0.001644)                                # one worker: compute only
    assert r.compute_s == pytest.approx(tau, rel=1e-12)
    d0 = math.ceil(1235 / math.floor(60.0 / tau))                   # 1235 / 380 -> 4
    assert d0 == 4
    assert (r.utility.kind, r.utility.value) == ("sigmoid", 1.0)
    assert r.utility.midpoint == 2 * d0 and r.utility.steepness == pytest.approx(2 / d0)
    assert r.reserved_bandwidth == 12.5e9 / 4


@pytest.mark.data
def test_real_trace_against_the_file_read_directly():
    path = require_data("traces/gavel_philly/e13805.trace")
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip()]
    order = sorted(range(len(rows)), key=lambda i: (float(rows[i][5]), i))
    inst = load_gavel_online(path)
    assert len(inst.jobs) == len(rows)
    for k in (0, len(rows) // 2, len(rows) - 1):
        r = rows[order[k]]
        job = inst.jobs[k]
        assert job.job_type == r[0] and job.arrival == int(float(r[5]) // 21600)
        assert job.iterations == max(1, math.ceil(int(r[4]) / 1000))
        assert job.max_workers == min(int(r[6]), 160)
