"""srpt's ``gavel-srpt`` importer against values computed by hand from Gavel's trace format.

From the module doc [ours]: jobs sorted by arrival; the first round(history_fraction x n) train the
iteration predictor, the rest form the stream with arrivals shifted so the first is at 0 (seconds,
not slots); GPUs = the scale factor; iterations = total steps; data-parallel rings whose edges
carry 2 (g - 1) / g x model bytes each (both directions of a 2-GPU ring on its one link);
compute time from the job-type table; 16 servers of 8 GPUs, 1e11 bytes/s inside a server and
1.25e9 bytes/s (10 Gbit/s) between servers.
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.srpt.generate import load_gavel_stream

from optsched.workloads.job_types import TABLE_PATH
from tests.conftest import require_data

TABLE = json.loads(TABLE_PATH.read_text())["types"]

TRACE = ("ResNet-50 (batch size 64)\tcmd\t-n\t1\t1000\t500.0\t4\n"      # 3rd by arrival: stream job 0
         "vgg16\tcmd\t-n\t1\t300\t10.0\t1\n"                              # 1st: history
         "Transformer (batch size 128)\tcmd\t-step\t1\t2500\t800.0\t2\n"   # 4th: stream job 1
         "ResNet-50 (batch size 64)\tcmd\t-n\t1\t900\t20.0\t4\n")         # 2nd: history


def test_stream_split_units_and_rings(tmp_path):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    inst = load_gavel_stream(path)
    assert inst.gpus_per_server == (8,) * 16
    assert inst.intra_bandwidth == 1e11 and inst.inter_bandwidth == 1.25e9
    a, b = inst.jobs
    assert (a.arrival, b.arrival) == (0.0, 300.0)            # 500 - 500, 800 - 500 seconds
    assert (a.gpus, a.iterations, a.model, a.batch_size) == (4, 1000, "ResNet-50", 64)
    assert (b.gpus, b.iterations, b.model, b.batch_size) == (2, 2500, "Transformer", 128)
    assert a.compute_s == pytest.approx(64 * (0.000822 + 0.001644), rel=1e-12)
    mb = TABLE["ResNet-50"]["model_bytes"]
    # a 4-GPU ring: 4 edges of 2 x 3 / 4 x model bytes
    assert a.edges == tuple((k, (k + 1) % 4, pytest.approx(1.5 * mb, rel=1e-12)) for k in range(4))
    # a 2-GPU ring: one link carrying both directions, 2 x (2 x 1 / 2 x model bytes)
    assert b.edges == ((0, 1, pytest.approx(2 * TABLE["Transformer"]["model_bytes"], rel=1e-12)),)
    assert a.plan == "data" and a.recurrence == "ResNet-50 (batch size 64)|4"


@pytest.mark.data
def test_real_trace_against_the_file_read_directly():
    path = require_data("traces/gavel_philly/2869ce.trace")
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip()]
    rows = sorted(enumerate(rows), key=lambda ir: (float(ir[1][5]), ir[0]))
    split = round(0.5 * len(rows))
    stream = [r for _, r in rows[split:]]
    inst = load_gavel_stream(path)
    assert len(inst.jobs) == len(stream)
    t0 = float(stream[0][5])
    for k in (0, len(stream) // 2, len(stream) - 1):
        job, r = inst.jobs[k], stream[k]
        assert job.gpus == int(r[6]) and job.iterations == int(r[4])
        assert job.arrival == pytest.approx(float(r[5]) - t0, abs=0)
