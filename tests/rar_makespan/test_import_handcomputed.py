"""rar-makespan's trace importers against values computed by hand from the trace formats.

``gavel-trace-rar``: Gavel's ``.trace`` (tab separated: job type, command, steps flag, needs-data
flag, total steps, arrival seconds, scale factor = GPUs); batch ``index`` = jobs
``index * jobs .. (index + 1) * jobs - 1`` in file order; GPUs = the scale factor (7th column, not
the needs-data flag or the arrival); iterations = total steps; model bytes and compute time from the
job-type table (``optsched/workloads/job_types.json``: compute = mini-batch x (forward + backward) seconds
per sample, mini-batch from "(batch size N)"); 20 servers of 8 GPUs, more when a job needs them.
``tiresias-rar``: Tiresias' ``60_job.csv`` by column name (any order, extra columns ignored);
8 servers of 4 GPUs by default.
"""

from __future__ import annotations

import csv
import json

import pytest

from optsched.problems.rar_makespan.generate import load_gavel_rar, load_tiresias_rar

from optsched.workloads.job_types import TABLE_PATH
from tests.conftest import require_data

TABLE = json.loads(TABLE_PATH.read_text())["types"]


def _compute(model, batch=None):
    row = TABLE[model]
    return (batch or row["mini_batch"]) * (row["forward_s_per_sample"] + row["backward_s_per_sample"])


TRACE = ("ResNet-50 (batch size 64)\tcmd a\t-n\t1\t1000\t12.5\t4\n"
         "Transformer (batch size 128)\tcmd b\t-step\t0\t2500\t3.0\t1\n"
         "vgg16\tcmd c\t-n\t1\t300\t7.0\t2\n"
         "ResNet-50 (batch size 16)\tcmd d\t-n\t1\t50\t1.0\t200\n")


def test_gavel_batches_columns_and_job_types(tmp_path):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    first = load_gavel_rar(path, 0, jobs=2)
    assert first.servers == (8,) * 20
    a, b = first.jobs
    assert (a.gpus, a.iterations, a.job_type) == (4, 1000, "ResNet-50 (batch size 64)")
    assert a.model_bytes == TABLE["ResNet-50"]["model_bytes"] == 102228128
    assert a.compute_s == pytest.approx(_compute("ResNet-50", 64), rel=1e-12)  # 64 x 2.466 ms
    assert a.compute_s == pytest.approx(0.157824, rel=1e-12)
    assert (b.gpus, b.iterations) == (1, 2500)
    assert b.compute_s == pytest.approx(128 * (0.00039 + 0.00078), rel=1e-12)
    second = load_gavel_rar(path, 1, jobs=2)                    # jobs 2 and 3 of the file
    c, d = second.jobs
    assert (c.gpus, c.iterations, c.compute_s) == (2, 300, pytest.approx(32 * (0.003094 + 0.006188)))
    assert d.gpus == 200
    assert second.servers == (8,) * 25                          # ceil(200 / 8) = 25 > 20


def test_tiresias_columns_by_name(tmp_path):
    path = tmp_path / "60_job.csv"
    path.write_text("model_name,extra,iterations,job_id,duration,num_gpu,submit_time,interval\n"
                    "vgg19,x,606,0,164,1,0,30\nresnet50,y,133,1,147,8,30,23\nalexnet,z,10,2,5,64,40,1\n")
    inst = load_tiresias_rar(path)
    assert [(j.job_type, j.gpus, j.iterations) for j in inst.jobs] == [("vgg19", 1, 606), ("resnet50", 8, 133),
                                                                      ("alexnet", 64, 10)]
    assert inst.jobs[0].compute_s == pytest.approx(_compute("vgg19"), rel=1e-12)   # default mini-batch 32
    assert inst.jobs[1].model_bytes == 102228128
    assert inst.servers == (4,) * 16                            # 64 GPUs / 4 per server > 8 servers
    path.write_text("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,2,0,7,vgg11,1,1\n")
    assert load_tiresias_rar(path).servers == (4,) * 8


@pytest.mark.data
def test_real_traces_against_the_files_read_directly():
    path = require_data("traces/gavel_philly/2869ce.trace")
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip()]
    inst = load_gavel_rar(path, 1, jobs=10)
    assert [(j.job_type, j.gpus, j.iterations) for j in inst.jobs] == \
        [(r[0], int(r[6]), int(r[4])) for r in rows[10:20]]
    tpath = require_data("traces/tiresias/60_job.csv")
    with open(tpath, newline="") as fh:
        table = list(csv.DictReader(fh))
    tinst = load_tiresias_rar(tpath)
    assert [(j.job_type, j.gpus, j.iterations) for j in tinst.jobs] == \
        [(r["model_name"], int(r["num_gpu"]), int(r["iterations"])) for r in table]
