"""rar-makespan's trace formats on traces unlike the ones in the data directory: Gavel's 10-column
layout end to end, an unknown job type, Tiresias CSVs with reordered / extra columns through the CLI, and
the default cluster grown to hold the largest job (traces: ``tests/trace_files.py``)."""

import json

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.workloads.job_types import job_type
from tests.trace_files import ROWS, gavel_cli_end_to_end_without_data, gavel_unknown_job_type_is_exit_2_naming_the_line
from tests.trace_files import seven_columns as _seven_columns


def test_gavel_cli_end_to_end_without_data(tmp_path):
    doc = gavel_cli_end_to_end_without_data(tmp_path, "gavel-trace-rar", "rar-makespan")
    # every job kept, GPUs and steps as in the file
    assert [(j["gpus"], j["iterations"]) for j in doc["jobs"]] == [(g, s) for _, s, _, g in ROWS]


def test_gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys):
    gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, "gavel-trace-rar")


TIRESIAS = "job_id,model_name,num_gpu,submit_time,iterations,duration,interval,user\r\n" \
           "0,resnet50,2,0,100,10,0,alice\r\n\r\n1,vgg11,8,30,250,10,5,bob\r\n"


def test_tiresias_reordered_extra_columns_through_the_cli(tmp_path, capsys):
    path = tmp_path / "jobs.csv"
    path.write_bytes(TIRESIAS.encode())
    inst = tmp_path / "x.json"
    assert main(["import", "tiresias-rar", str(path), "-o", str(inst)]) == 0
    doc = json.loads(inst.read_text())
    assert [(j["gpus"], j["iterations"], j["model_bytes"]) for j in doc["jobs"]] == [
        (2, 100, float(job_type("resnet50").model_bytes)), (8, 250, float(job_type("vgg11").model_bytes))]
    res = tmp_path / "r.json"
    assert main(["solve", "rar-makespan", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "rar-makespan", str(inst), str(res)]) == 0
    assert main(["import", "tiresias-rar", str(path), "--index", "1"]) == 2  # one batch per file
    capsys.readouterr()
    path.write_text("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,5,lstm,1,0\n")
    assert main(["import", "tiresias-rar", str(path)]) == 2
    assert "jobs.csv line 2 model_name" in capsys.readouterr().err


def test_default_cluster_grows_to_hold_the_largest_job(tmp_path):
    from optsched.problems.rar_makespan.generate import load_gavel_rar, load_tiresias_rar

    csv = tmp_path / "big.csv"
    csv.write_text("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                   "0,64,0,100,vgg19,10,0\n1,1,0,50,alexnet,10,0\n")
    inst = load_tiresias_rar(csv)
    assert inst.servers == (4,) * 16 and [j.gpus for j in inst.jobs] == [64, 1]  # 64 / 4 GPUs per server
    assert "grown" in inst.provenance
    assert load_tiresias_rar(_small_csv(tmp_path)).servers == (4,) * 8  # the default when it suffices
    with pytest.raises(InvalidInstanceError):  # an explicit cluster is kept, and too small is an error
        load_tiresias_rar(csv, servers=8)
    trace = _seven_columns(tmp_path / "big.trace", [("A3C", 10, 0, 200)])
    assert len(load_gavel_rar(trace).servers) == 25  # 200 GPUs / 8 per server > the default 20


def _small_csv(tmp_path):
    path = tmp_path / "small.csv"
    path.write_text("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,2,0,100,vgg19,10,0\n")
    return path
