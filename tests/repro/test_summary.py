"""The table at the end of ``optsched repro``: which tables ran, were reused from the results
database, were skipped (and why) or failed, and which went over their QUICK budget."""

from __future__ import annotations

import io

from optsched.experiments.declaration import Experiment
from optsched.repro import RunOptions, run
from optsched.repro.report import SweepRecord, run_summary

from .tiny import write_tiny


def _table(text: str) -> dict[str, str]:
    """The summary's rows by table id (the lines after the 'summary' line)."""
    tail = text.split(": summary (", 1)[1].splitlines()[1:]
    return {line.split()[0]: line for line in tail[1:-1]} | {"total": tail[-1]}


def test_the_run_ends_with_what_ran_was_reused_skipped_or_failed(tmp_path, monkeypatch):
    scripts = tmp_path / "paper_repro"
    for experiment_id in ("K1", "K2", "K3"):
        write_tiny(scripts, f"{experiment_id.lower()}_tiny.py", experiment_id)
    k2 = scripts / "k2_tiny.py"
    k2.write_text(k2.read_text().replace("instance_family=", 'requires_data=("toy/needed.txt",), instance_family='))
    monkeypatch.setenv("TINY_CELLS", "2")
    monkeypatch.setenv("TINY_REPORT_FAIL", "K3")
    monkeypatch.setenv("OPTSCHED_DATA_DIR", str(tmp_path / "no-data"))
    out, stream = tmp_path / "results", io.StringIO()
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=scripts, stream=stream) == 1
    rows = _table(stream.getvalue())
    assert rows["K1"].split()[1:3] == ["ran", "2"] and "(2/0/0)" in rows["K1"]
    assert rows["K2"].split()[1] == "skipped" and "missing data toy/needed.txt" in rows["K2"]
    assert rows["K3"].split()[1] == "FAILED"
    assert "report() raised: ValueError: report failure requested by TINY_REPORT_FAIL" in rows["K3"]
    assert rows["total"].startswith("3 tables: 1 ran, 0 reused, 1 skipped, 1 failed")
    assert "QUICK budget" in stream.getvalue()
    # a second run computes nothing: every cell comes from the results database
    stream = io.StringIO()
    assert run(RunOptions(quick=True, jobs=1, out=out), only=["K1"], scripts_dir=scripts, stream=stream) == 0
    rows = _table(stream.getvalue())
    assert rows["K1"].split()[1] == "reused" and "(0/2/0)" in rows["K1"]
    assert rows["total"].startswith("1 table: 0 ran, 1 reused, 0 skipped, 0 failed")


def _record(experiment_id: str, wall_s: float, cpu_s: float, jobs: int = 1, quick: bool = True) -> SweepRecord:
    exp = Experiment(id=experiment_id, title="t", paper="p", formulation="[ours]", cells=list, run_cell=print,
                     report=print, quick_budget_s=30.0)
    return SweepRecord(experiment_id, "x.py", "ok", "", quick, exp, cells_total=3, cells_run=3, wall_s=wall_s,
                       cell_cpu_s=cpu_s, jobs=jobs)


def test_over_budget_is_named_by_wall_time_or_the_unloaded_estimate():
    # recorded times, not measured ones: 31 s of wall time, or 62 s of cell CPU time on 2 jobs
    # (31 s unloaded), are over a 30 s budget; 29 s and 58 s on 2 jobs are within it
    records = [_record("A", 31.0, 1.0), _record("B", 1.0, 62.0, jobs=2), _record("C", 29.0, 58.0, jobs=2)]
    text = run_summary(records, quick=True)
    rows = {line.split()[0]: line for line in text.splitlines()[1:-1]}
    assert "OVER: 31 s > 30 s" in rows["A"] and "OVER: 31 s > 30 s" in rows["B"]
    assert "within 30 s" in rows["C"] and "OVER" not in rows["C"]
    assert text.splitlines()[-1].endswith("2 over the QUICK budget (A, B)")
    full = run_summary([_record("A", 31.0, 1.0, quick=False)], quick=False)
    assert "budget" not in full and "OVER" not in full   # a full run has no QUICK budget
