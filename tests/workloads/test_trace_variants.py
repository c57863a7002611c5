"""Gavel and Tiresias traces unlike the ones in the data directory, through the shared loaders and
the CLI: Gavel's 10-column ``parse_trace`` layout, CRLF, other job types and counts, ``--index`` on
formats that hold one instance, Tiresias CSVs with reordered / extra columns, blank lines. Each
problem's trace formats are checked end to end (and with an unknown job type: exit 2 naming the
line) in its own tests' ``test_trace_variants.py``, with the traces of ``tests/trace_files.py``."""

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.workloads.traces import load_gavel_trace, load_tiresias_jobs
from tests.trace_files import ROWS
from tests.trace_files import seven_columns as _seven_columns
from tests.trace_files import ten_columns as _ten_columns


def test_gavel_ten_and_seven_columns_agree(tmp_path):
    ten = load_gavel_trace(_ten_columns(tmp_path / "a.trace"))
    seven = load_gavel_trace(_seven_columns(tmp_path / "b.trace"))
    key = [(j.job_type, j.total_steps, j.arrival_s, j.gpus) for j in ten]
    assert key == [(j.job_type, j.total_steps, j.arrival_s, j.gpus) for j in seven] == [
        (t, s, float(a), g) for t, s, a, g in ROWS]
    assert ten[1].model == "LM" and ten[1].batch_size == 20 and ten[2].batch_size is None
    assert [j.line for j in seven] == [1, 3, 5, 7, 9, 11, 13]  # blank lines skipped, lines kept
    trailing = tmp_path / "c.trace"
    trailing.write_text("A3C\tpython3 main.py\t-n\t0\t10\t0\t1\t \n")  # a stray tab and blank at the end
    assert load_gavel_trace(trailing)[0].gpus == 1


@pytest.mark.parametrize("line, field", [
    ("A3C\tx\t-n\t0\t10.5\t0\t1\n", "total_steps"),
    ("A3C\tx\t-n\t0\t10\tinf\t1\n", "arrival"),
    ("A3C\tx\t/w\t-n\t0\t10\t1\tnope\t1\t0\n", "priority_weight"),
    ("A3C\tx\t-n\t0\t10\t0\n", "(columns)"),
])
def test_gavel_malformed_lines_name_the_column(tmp_path, line, field):
    path = tmp_path / "bad.trace"
    path.write_text(line)
    with pytest.raises(InvalidInstanceError) as e:
        load_gavel_trace(path)
    assert e.value.field.endswith(field) and "line 1" in e.value.field


@pytest.mark.parametrize("fmt", ["gavel-srpt", "gavel-trace-online", "gavel-trace-rar", "gavel-trace-ps",
                                 "gavel-online", "gavel-snapshot"])
def test_gavel_index_out_of_range_is_exit_2(tmp_path, capsys, fmt):
    trace = _seven_columns(tmp_path / "i.trace")
    assert main(["import", fmt, str(trace), "--index", "5", "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "'index'" in err and "Traceback" not in err


TIRESIAS = "job_id,model_name,num_gpu,submit_time,iterations,duration,interval,user\r\n" \
           "0,resnet50,2,0,100,10,0,alice\r\n\r\n1,vgg11,8,30,250,10,5,bob\r\n"


def test_tiresias_reordered_extra_columns(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_bytes(TIRESIAS.encode())
    jobs = load_tiresias_jobs(path)
    assert [(j.job_id, j.model, j.gpus, j.iterations, j.line) for j in jobs] == [
        (0, "resnet50", 2, 100, 2), (1, "vgg11", 8, 250, 4)]
    path.write_text("job_id,num_gpu,submit_time,iterations,duration,interval\n0,1,0,5,1,0\n")
    with pytest.raises(InvalidInstanceError, match="model_name"):
        load_tiresias_jobs(path)
