"""ps-locality's ``gavel-trace-ps`` importer against values computed by hand.

From the module doc [ours]: window ``index`` of ``jobs`` jobs in arrival order; slot 600 s;
arrival slot = floor((arrival_s - the window's first arrival) / 600); workload = total steps x
1e-3; compute slots = the job type's mini-batch x (forward + backward) s per sample / 600;
gradient = model bytes / 1e6 MB; max_workers = the scale factor; machines of (8 GPUs, 48 CPUs,
256 GB); bandwidths 10 GB/s = 10,000 MB/s inside a machine and 10 Gbit/s = 1,250 MB/s between
machines, per slot (x 600).
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.ps_locality.trace import load_philly_trace

from optsched.workloads.job_types import TABLE_PATH
from tests.conftest import require_data

TABLE = json.loads(TABLE_PATH.read_text())["types"]

TRACE = ("ResNet-50 (batch size 64)\tcmd\t-n\t1\t4000\t9000.0\t4\n"     # 3rd by arrival
         "vgg16\tcmd\t-n\t1\t2000\t1000.0\t2\n"                          # 1st
         "Transformer (batch size 128)\tcmd\t-step\t1\t3000\t2300.0\t1\n"  # 2nd
         "ResNet-18 (batch size 32)\tcmd\t-n\t1\t5000\t9500.0\t8\n")     # 4th


def test_window_slots_units(tmp_path):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    inst = load_philly_trace(path, 1, jobs=2, machines=2)
    # window 1 of 2 = the 3rd and 4th by arrival: ResNet-50 (9000 s), ResNet-18 (9500 s)
    a, b = inst.jobs
    assert (a.model, b.model) == ("ResNet-50 (batch size 64)", "ResNet-18 (batch size 32)")
    assert (a.arrival, b.arrival) == (0, 0)                   # floor(500 / 600) = 0
    assert (a.max_workers, b.max_workers) == (4, 8)
    assert (a.workload, b.workload) == (pytest.approx(4.0), pytest.approx(5.0))
    assert inst.slot_s == 600.0
    assert a.compute_slots == pytest.approx(64 * (0.000822 + 0.001644) / 600, rel=1e-12)
    assert a.gradient_mb == pytest.approx(TABLE["ResNet-50"]["model_bytes"] / 1e6, rel=1e-12)
    assert inst.bandwidth_in == 10000.0 * 600 and inst.bandwidth_ex == 1250.0 * 600
    assert len(inst.machines) == 2 and tuple(inst.machines[0].capacity) == (8.0, 48.0, 256.0)
    first = load_philly_trace(path, 0, jobs=2, machines=2)
    # window 0: vgg16 at 1000 s (slot 0), Transformer at 2300 s: floor(1300 / 600) = slot 2
    assert [j.model for j in first.jobs] == ["vgg16", "Transformer (batch size 128)"]
    assert [j.arrival for j in first.jobs] == [0, 2]


@pytest.mark.data
def test_real_trace_against_the_file_read_directly():
    path = require_data("traces/gavel_philly/7f04ca.trace")
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip()]
    rows = sorted(rows, key=lambda r: float(r[5]))     # arrivals are distinct in this file
    inst = load_philly_trace(path, 2, jobs=5, slot_s=600.0)
    window = rows[10:15]
    assert [j.model for j in inst.jobs] == [r[0] for r in window]
    assert [j.max_workers for j in inst.jobs] == [int(r[6]) for r in window]
    assert [j.workload for j in inst.jobs] == pytest.approx([int(r[4]) * 1e-3 for r in window], rel=1e-12)
    t0 = float(window[0][5])
    assert [j.arrival for j in inst.jobs] == [int((float(r[5]) - t0) // 600) for r in window]
