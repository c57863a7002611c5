"""The sweep runner end to end: determinism, resume after SIGKILL, dask vs local, failures."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import optsched
from optsched.repro import RunOptions, cell_key, cell_seed, run
from optsched.repro.runner import artifacts_dir, runs_dir
from tests.core.patience import patient

from .tiny import read_csv_without_timings, tiny_problem, write_tiny

REPO = Path(__file__).resolve().parents[2]


def _db_rows(out: Path, experiment_id: str = "K1", quick: bool = True) -> list[tuple[str, dict, dict]]:
    path = runs_dir(out) / f"{experiment_id}{'-quick' if quick else ''}.sqlite"
    with sqlite3.connect(path) as conn:
        return [(k, json.loads(p), json.loads(r)) for k, p, r in conn.execute("SELECT key, params, row FROM cells")]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """One QUICK run of the tiny experiment on the local executor (2 processes)."""
    root = tmp_path_factory.mktemp("local")
    write_tiny(root / "paper_repro")
    out = root / "results"
    status = run(RunOptions(quick=True, jobs=2, out=out), scripts_dir=root / "paper_repro")
    return root, out, status


def test_local_run_rows_match_direct_solves(local_run):
    # the runner must hand each cell the documented seed and store what run_cell returned:
    # recompute every row here, in this process, without the runner
    _, out, status = local_run
    assert status == 0
    rows = read_csv_without_timings(artifacts_dir(out, True) / "K1_rows.csv")
    header, body = rows[0], rows[1:]
    assert len(body) == 4
    for line in body:
        row = dict(zip(header, line))
        seed = cell_seed("K1", {"instance": int(row["instance"])})
        assert int(row["seed"]) == seed
        instance = optsched.generate(tiny_problem(), seed=seed, preset="tiny")
        assert float(row["milp"]) == optsched.solve(instance, "brute").objective
        assert float(row["greedy"]) == optsched.solve(instance, "greedy").objective
    index = (artifacts_dir(out, True) / "index.md").read_text()
    assert "K1_rows.md" in index and "4 computed now, 0 reused" in index and "within budget" in index


def test_two_runs_give_identical_csvs_without_timings(local_run, tmp_path):
    root, out, _ = local_run
    out2 = tmp_path / "results"  # a fresh results database: every cell is computed again
    assert run(RunOptions(quick=True, jobs=2, out=out2), scripts_dir=root / "paper_repro") == 0
    assert len(_db_rows(out2)) == 4
    for name in ("K1_rows.csv", "K1_summary.csv"):
        first = (artifacts_dir(out, True) / name).read_text()
        second = (artifacts_dir(out2, True) / name).read_text()
        assert read_csv_without_timings(artifacts_dir(out, True) / name) == \
            read_csv_without_timings(artifacts_dir(out2, True) / name)
        if name == "K1_summary.csv":  # no timing column: byte-identical as files
            assert first == second


def test_rerun_reuses_every_finished_cell(local_run, tmp_path, monkeypatch):
    root, out, _ = local_run
    side = tmp_path / "side.txt"
    monkeypatch.setenv("TINY_SIDE_FILE", str(side))
    before = (artifacts_dir(out, True) / "K1_rows.csv").read_text()
    assert run(RunOptions(quick=True, jobs=2, out=out), scripts_dir=root / "paper_repro") == 0
    assert not side.exists()  # no cell ran
    assert (artifacts_dir(out, True) / "K1_rows.csv").read_text() == before
    assert "0 computed now, 4 reused" in (artifacts_dir(out, True) / "index.md").read_text()


def test_dask_executor_gives_the_same_rows(local_run, tmp_path):
    root, out, _ = local_run
    out_dask = tmp_path / "results"
    status = run(RunOptions(quick=True, jobs=2, executor="dask", out=out_dask), scripts_dir=root / "paper_repro")
    assert status == 0
    assert read_csv_without_timings(artifacts_dir(out_dask, True) / "K1_rows.csv") == \
        read_csv_without_timings(artifacts_dir(out, True) / "K1_rows.csv")
    assert sorted(k for k, _, _ in _db_rows(out_dask)) == sorted(k for k, _, _ in _db_rows(out))
    assert "dask.distributed, embedded LocalCluster" in (artifacts_dir(out_dask, True) / "index.md").read_text()


@pytest.mark.load_sensitive
def test_sigkill_mid_sweep_then_resume(tmp_path, monkeypatch):
    write_tiny(tmp_path / "paper_repro")
    out = tmp_path / "results"
    side = tmp_path / "side.txt"
    cells = 12
    env = {**os.environ, "TINY_CELLS": str(cells), "TINY_DELAY": "0.5", "TINY_SIDE_FILE": str(side),
           "TINY_PHASE": "first"}
    proc = subprocess.Popen([sys.executable, "-m", "optsched.cli", "repro", "--quick", "--only", "k1", "--jobs", "2",
                             "--out", str(out)], cwd=tmp_path, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    db = runs_dir(out) / "K1-quick.sqlite"
    deadline = time.monotonic() + patient(90)  # a guard against a hang, stretched by the load
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as conn:
                        if conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0] >= 3:
                            break
                except sqlite3.OperationalError:  # the table is being created
                    pass
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers, like a power cut
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    proc.stderr.close()
    survived = {params["instance"] for _, params, _ in _db_rows(out)}
    assert 3 <= len(survived) < cells

    monkeypatch.setenv("TINY_CELLS", str(cells))
    monkeypatch.setenv("TINY_SIDE_FILE", str(side))
    monkeypatch.setenv("TINY_PHASE", "second")
    assert run(RunOptions(quick=True, jobs=2, out=out), scripts_dir=tmp_path / "paper_repro") == 0

    stored = _db_rows(out)
    assert sorted(params["instance"] for _, params, _ in stored) == list(range(cells))  # each exactly once
    second = [int(line.split()[1]) for line in side.read_text().splitlines() if line.startswith("second ")]
    assert not survived & set(second)  # nothing stored before the kill was computed again
    assert sorted(second) == sorted(set(range(cells)) - survived)  # the rest exactly once
    rows = read_csv_without_timings(artifacts_dir(out, True) / "K1_rows.csv")
    assert rows[0][0] == "instance"  # run_cell's column order survives the database
    assert [int(r[0]) for r in rows[1:]] == list(range(cells))


def test_failures_do_not_stop_other_tables(tmp_path, monkeypatch):
    scripts = tmp_path / "paper_repro"
    (scripts / "k0_broken.py").parent.mkdir(parents=True)
    (scripts / "k0_broken.py").write_text("import no_such_module_here\n")
    (scripts / "_helper.py").write_text("raise RuntimeError('helpers are not experiment scripts')\n")
    for experiment_id in ("K2", "K3", "K9"):
        write_tiny(scripts, f"{experiment_id.lower()}_tiny.py", experiment_id)
    monkeypatch.setenv("TINY_CELLS", "2")
    monkeypatch.setenv("TINY_FAIL", "K2:1")
    monkeypatch.setenv("TINY_REPORT_FAIL", "K3")
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=2, out=out), scripts_dir=scripts) == 1
    index = (artifacts_dir(out, True) / "index.md").read_text()
    assert "K0 (k0_broken.py)" in index and "No module named 'no_such_module_here'" in index
    assert "cell failure requested by TINY_FAIL" in index and "1 failed" in index
    assert "report failure requested by TINY_REPORT_FAIL" in index
    assert "helpers are not" not in index
    assert (artifacts_dir(out, True) / "K9_rows.csv").exists()
    assert not list(artifacts_dir(out, True).glob("K2_*")) and not list(artifacts_dir(out, True).glob("K3_*"))
    assert index.index("## K0") < index.index("## K2") < index.index("## K3") < index.index("## K9")
    # K2's good cell was stored: a rerun without the failure computes only the failed one
    monkeypatch.delenv("TINY_FAIL")
    monkeypatch.delenv("TINY_REPORT_FAIL")
    side = tmp_path / "side.txt"
    monkeypatch.setenv("TINY_SIDE_FILE", str(side))
    assert run(RunOptions(quick=True, jobs=1, out=out), only=["k2", "K3"], scripts_dir=scripts) == 0
    assert side.read_text() == " 1\n"
    index = (artifacts_dir(out, True) / "index.md").read_text()
    assert "FAILED" not in index.split("## K2")[1] and "K0 (k0_broken.py)" in index
    assert (artifacts_dir(out, True) / "K3_rows.csv").exists()


def test_missing_data_is_a_note_and_keeps_earlier_artifacts(tmp_path, monkeypatch):
    scripts = tmp_path / "paper_repro"
    write_tiny(scripts)
    script = scripts / "k1_tiny.py"
    script.write_text(script.read_text().replace('instance_family=', 'requires_data=("toy/needed.txt",), '
                                                                      'instance_family='))
    monkeypatch.setenv("TINY_CELLS", "1")
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True)
    (data / "toy" / "needed.txt").write_text("x")
    monkeypatch.setenv("OPTSCHED_DATA_DIR", str(data))
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, out=out), scripts_dir=scripts) == 0
    monkeypatch.delenv("OPTSCHED_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "no-cache"))  # nor the user cache 'optsched data fetch' fills
    assert run(RunOptions(quick=True, out=out), scripts_dir=scripts) == 0
    index = (artifacts_dir(out, True) / "index.md").read_text()
    assert "> Latest run: skipped (data unavailable: OPTSCHED_DATA_DIR is not set" in index
    assert "K1_rows.md" in index and (artifacts_dir(out, True) / "K1_rows.md").exists()
    fresh = tmp_path / "fresh"
    assert run(RunOptions(quick=True, out=fresh), scripts_dir=scripts) == 0
    index = (artifacts_dir(fresh, True) / "index.md").read_text()
    assert "**Not run**: data unavailable" in index and not list(artifacts_dir(fresh, True).glob("K1_*"))


def test_cli_unknown_id_is_exit_2(tmp_path, monkeypatch, capsys):
    from optsched.cli import main

    write_tiny(tmp_path / "paper_repro")
    monkeypatch.chdir(tmp_path)
    assert main(["repro", "--quick", "--only", "K1", "Z9"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment id 'Z9'; known: K1" in err
    assert not (tmp_path / "paper_repro" / "results").exists()


def test_cli_outside_a_repository_is_exit_2(tmp_path, monkeypatch, capsys):
    from optsched.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["repro", "--quick"]) == 2
    assert "run optsched repro from the repository root" in capsys.readouterr().err


def test_repository_scripts_are_discovered():
    from optsched.repro.discovery import discover

    scripts = {s.id: s for s in discover(REPO / "paper_repro")}
    assert "T2b" in scripts and scripts["T2b"].experiment is not None


@pytest.mark.load_sensitive
def test_ctrl_c_stops_running_cells_and_keeps_finished_ones(tmp_path):
    write_tiny(tmp_path / "paper_repro")
    out = tmp_path / "results"
    done = tmp_path / "done.txt"
    # 4 s per cell: wide enough that no cell is between "done" and "stored" when Ctrl-C arrives
    env = {**os.environ, "TINY_CELLS": "8", "TINY_DELAY": "4", "TINY_DONE_FILE": str(done)}
    proc = subprocess.Popen([sys.executable, "-m", "optsched.cli", "repro", "--quick", "--jobs", "2", "--out",
                             str(out)], cwd=tmp_path, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not an inherited SIG_IGN
    db = runs_dir(out) / "K1-quick.sqlite"
    deadline = time.monotonic() + patient(90)  # a guard against a hang, stretched by the load
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as conn:
                        if conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0] >= 2:
                            break
                except sqlite3.OperationalError:
                    pass
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        _, err = proc.communicate(timeout=patient(60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err.decode()
    assert "rerun the same command to resume" in err.decode()
    stored = sorted(params["instance"] for _, params, _ in _db_rows(out))
    assert 2 <= len(stored) < 8
    time.sleep(5)  # longer than a cell's delay: a cell left running (awaited or orphaned) would finish
    assert sorted(int(line) for line in done.read_text().split()) == stored


@pytest.mark.parametrize("argv, message", [
    (["--jobs", "0"], "--jobs': must be >= 1"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler': needs --executor dask"),
])
def test_cli_invalid_options_are_exit_2(tmp_path, monkeypatch, capsys, argv, message):
    from optsched.cli import main

    write_tiny(tmp_path / "paper_repro")
    monkeypatch.chdir(tmp_path)
    assert main(["repro", "--quick"] + argv) == 2
    assert message in capsys.readouterr().err


def test_a_dead_worker_fails_its_sweep_and_the_next_sweep_gets_new_workers(tmp_path, monkeypatch):
    scripts = tmp_path / "paper_repro"
    write_tiny(scripts, "k1_tiny.py", "K1")
    write_tiny(scripts, "k2_tiny.py", "K2")
    monkeypatch.setenv("TINY_CELLS", "2")
    monkeypatch.setenv("TINY_CRASH", "K1:0")
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=scripts) == 1
    index = (artifacts_dir(out, True) / "index.md").read_text()
    k1, k2 = index.split("## K2")
    assert "the worker process died (killed or crashed)" in k1 and "FAILED" in k1
    assert "FAILED" not in k2 and (artifacts_dir(out, True) / "K2_rows.csv").exists()


def test_cells_that_hit_the_safety_net_are_retried(tmp_path, monkeypatch):
    from optsched.repro.db import ResultsDB
    from optsched.repro.keys import file_digest, software_versions

    script = write_tiny(tmp_path / "paper_repro")
    monkeypatch.setenv("TINY_CELLS", "2")
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    key = cell_key("K1", {"instance": 1}, {**software_versions(), "script": file_digest(script)})
    with ResultsDB(runs_dir(out) / "K1-quick.sqlite", "K1") as db:
        stored = db.get(key)
        db.add(key, stored.params, stored.seed, {**stored.row, "hit_time_limit": True}, wall_s=1.0, cpu_s=1.0,
               worker="test", replace=True)
    side = tmp_path / "side.txt"
    monkeypatch.setenv("TINY_SIDE_FILE", str(side))
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    assert side.read_text() == " 1\n"  # only the flagged cell ran again
    with ResultsDB(runs_dir(out) / "K1-quick.sqlite", "K1") as db:
        assert len(db) == 2 and "hit_time_limit" not in db.get(key).row


def test_a_script_change_recomputes_its_cells(tmp_path, monkeypatch):
    """Cell keys include the script's digest: editing the script invalidates its stored cells."""
    script = write_tiny(tmp_path / "paper_repro")
    monkeypatch.setenv("TINY_CELLS", "2")
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    side = tmp_path / "side.txt"
    monkeypatch.setenv("TINY_SIDE_FILE", str(side))
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    assert not side.exists()  # unchanged script: nothing recomputed
    script.write_text(script.read_text() + "\n# edited\n")
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    assert sorted(side.read_text().split()) == ["0", "1"]  # both cells ran again
