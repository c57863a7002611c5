"""Gavel and Tiresias traces unlike the ones in the data directory, through the loaders and the
CLI: Gavel's 10-column ``parse_trace`` layout, CRLF, other job types and counts, an unknown job
type (exit 2 naming the line), ``--index`` on formats that hold one instance, Tiresias CSVs with
reordered / extra columns, blank lines, other job counts."""

import json

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.workloads.job_types import job_type
from optsched.workloads.traces import load_gavel_trace, load_tiresias_jobs

ROWS = [("ResNet-18 (batch size 32)", 1000, 0.0, 1), ("LM (batch size 20)", 5000, 10.5, 2), ("A3C", 300, 10.5, 1),
        ("CycleGAN", 800, 3600, 4), ("Recommendation (batch size 512)", 2000, 7200, 1),
        ("Transformer (batch size 64)", 4000, 100, 8), ("ResNet-50 (batch size 128)", 1200, 50, 2)]


def _ten_columns(path, rows=ROWS):
    # Gavel's scheduler/utils.py parse_trace: type, command, workdir, steps flag, needs data, steps,
    # scale factor, priority, SLO, arrival
    path.write_bytes("".join(f"{t}\tpython3 main.py\t/tmp/wd\t--num_steps\t1\t{s}.0\t{g}\t1.0\t1.2\t{a}\r\n"
                             for t, s, a, g in rows).encode())
    return path


def _seven_columns(path, rows=ROWS):
    path.write_text("".join(f"{t}\tpython3 main.py\t-n\t0\t{s}\t{a}\t{g}\n\n" for t, s, a, g in rows))
    return path


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


@pytest.mark.parametrize("fmt, problem", [("gavel-trace-rar", "rar-makespan"), ("gavel-trace-ps", "ps-locality"),
                                          ("gavel-trace-online", "rar-online"), ("gavel-srpt", "srpt")])
def test_gavel_cli_end_to_end_without_data(tmp_path, fmt, problem):
    trace = _ten_columns(tmp_path / "vc.trace")
    inst = tmp_path / "x.json"
    assert main(["import", fmt, str(trace), "-o", str(inst)]) == 0
    doc = json.loads(inst.read_text())
    res = tmp_path / "r.json"
    assert main(["solve", problem, str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", problem, str(inst), str(res)]) == 0
    if fmt == "gavel-trace-rar":  # every job kept, GPUs and steps as in the file
        assert [(j["gpus"], j["iterations"]) for j in doc["jobs"]] == [(g, s) for _, s, _, g in ROWS]
    if fmt == "gavel-srpt":  # history = first half by arrival (4 of 7 rounded), stream = the other 3
        assert len(doc["jobs"]) == 3


@pytest.mark.parametrize("fmt, problem", [("gavel-trace-rar", "rar-makespan"), ("gavel-trace-ps", "ps-locality"),
                                          ("gavel-trace-online", "rar-online"), ("gavel-srpt", "srpt")])
def test_gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, fmt, problem):
    trace = _seven_columns(tmp_path / "u.trace", ROWS[:3] + [("BERT (batch size 8)", 100, 5, 1)] + ROWS[3:])
    assert main(["import", fmt, str(trace), "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "u.trace line 7 job_type" in err and "'BERT'" in err and "Traceback" not in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("fmt", ["gavel-srpt", "gavel-trace-online", "gavel-trace-rar", "gavel-trace-ps",
                                 "gavel-online", "gavel-snapshot"])
def test_gavel_index_out_of_range_is_exit_2(tmp_path, capsys, fmt):
    trace = _seven_columns(tmp_path / "i.trace")
    assert main(["import", fmt, str(trace), "--index", "5", "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "'index'" in err and "Traceback" not in err


def test_gavel_interference_formats_other_trace(tmp_path, capsys):
    from tests.conftest import require_data

    require_data("throughputs/gavel/simulation_throughputs.json")
    trace = _ten_columns(tmp_path / "vc.trace")
    for fmt, problem in (("gavel-online", "interference-online"), ("gavel-snapshot", "interference-placement")):
        inst = tmp_path / f"{problem}.json"
        assert main(["import", fmt, str(trace), "--index", "0", "-o", str(inst)]) == 0
        order = ROWS if fmt == "gavel-snapshot" else sorted(ROWS, key=lambda r: r[2])  # file / arrival order
        assert [j["gpus"] for j in json.loads(inst.read_text())["jobs"]] == [g for _, _, _, g in order]
        res = tmp_path / "r.json"
        assert main(["solve", problem, str(inst), "--time-limit", "20", "-o", str(res)]) == 0
        assert main(["check", problem, str(inst), str(res)]) == 0
    bad = _seven_columns(tmp_path / "u.trace", [("BERT (batch size 8)", 100, 5, 1)])
    assert main(["import", "gavel-snapshot", str(bad), "-o", str(tmp_path / "x.json")]) == 2
    assert "u.trace line 1 job_type" in capsys.readouterr().err


TIRESIAS = "job_id,model_name,num_gpu,submit_time,iterations,duration,interval,user\r\n" \
           "0,resnet50,2,0,100,10,0,alice\r\n\r\n1,vgg11,8,30,250,10,5,bob\r\n"


def test_tiresias_reordered_extra_columns_and_cli(tmp_path, capsys):
    path = tmp_path / "jobs.csv"
    path.write_bytes(TIRESIAS.encode())
    jobs = load_tiresias_jobs(path)
    assert [(j.job_id, j.model, j.gpus, j.iterations, j.line) for j in jobs] == [
        (0, "resnet50", 2, 100, 2), (1, "vgg11", 8, 250, 4)]
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
    path.write_text("job_id,num_gpu,submit_time,iterations,duration,interval\n0,1,0,5,1,0\n")
    with pytest.raises(InvalidInstanceError, match="model_name"):
        load_tiresias_jobs(path)


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


def test_gavel_snapshot_grows_the_default_cluster(tmp_path):
    from tests.conftest import require_data

    require_data("throughputs/gavel/simulation_throughputs.json")
    from optsched.problems.interference_placement.generate import load_gavel_snapshot

    trace = _seven_columns(tmp_path / "big.trace", [("A3C", 10, 0, 32), ("CycleGAN", 10, 0, 1)])
    inst = load_gavel_snapshot(trace)
    assert inst.gpus_per_server == (4,) * 8 and [j.gpus for j in inst.jobs] == [32, 1]
    with pytest.raises(InvalidInstanceError, match="line 1 scale_factor"):
        load_gavel_snapshot(trace, servers=4)


def test_rar_online_caps_max_workers_and_says_so(tmp_path):
    from optsched.problems.rar_online.generate import load_gavel_online

    trace = _seven_columns(tmp_path / "big.trace", [("A3C", 1000, 0, 400), ("CycleGAN", 1000, 0, 2)])
    inst = load_gavel_online(trace)  # 20 x 8 = 160 GPUs
    assert [j.max_workers for j in inst.jobs] == [160, 2]
    assert "max_workers of 1 job(s)" in inst.provenance
    assert "capped" not in load_gavel_online(_seven_columns(tmp_path / "s.trace", ROWS)).provenance


def test_ps_locality_window_over_days_stays_small(tmp_path):
    from optsched.problems.ps_locality.trace import MAX_DEFAULT_SLOTS, load_philly_trace

    # five jobs a day apart: 600 s slots would give a horizon of 576+ slots
    rows = [("ResNet-18 (batch size 32)", 20000, k * 86400.0, 2) for k in range(5)]
    trace = _seven_columns(tmp_path / "days.trace", rows)
    inst = load_philly_trace(trace)
    assert inst.horizon_slots <= MAX_DEFAULT_SLOTS and inst.slot_s == 600.0
    arrivals = [j.arrival for j in inst.jobs]
    assert arrivals == sorted(arrivals) and arrivals[-1] <= MAX_DEFAULT_SLOTS // 2 and len(set(arrivals)) == 5
    assert "arrival_scale=1.0" not in inst.provenance  # the compression is recorded
    explicit = load_philly_trace(trace, slot_s=600.0)
    assert explicit.horizon_slots > 4 * 144  # an explicit slot length is kept


def test_ps_locality_long_jobs_get_longer_slots(tmp_path):
    """When the jobs themselves run past the cap at 600 s slots (arrivals already within half of
    it: no compression), the default slot is doubled, to the first length that fits, and the
    provenance records it."""
    from optsched.problems.ps_locality.trace import MAX_DEFAULT_SLOTS, load_philly_trace

    rows = [("ResNet-18 (batch size 32)", 10**8, k * 3600.0, 2) for k in range(3)]
    trace = _seven_columns(tmp_path / "long.trace", rows)
    assert load_philly_trace(trace, slot_s=600.0, workload_scale=0.1).horizon_slots > MAX_DEFAULT_SLOTS
    inst = load_philly_trace(trace, workload_scale=0.1)
    assert inst.horizon_slots <= MAX_DEFAULT_SLOTS
    assert inst.slot_s > 600.0 and (inst.slot_s / 600.0).is_integer()
    assert f"slot_s={inst.slot_s}" in inst.provenance and "arrival_scale=1.0" in inst.provenance
    # the first doubling that fits: half of it would not
    half = load_philly_trace(trace, slot_s=inst.slot_s / 2, workload_scale=0.1)
    assert half.horizon_slots > MAX_DEFAULT_SLOTS
