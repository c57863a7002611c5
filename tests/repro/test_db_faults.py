"""The results database and the output folder under faults: corrupt rows, a folder or a read-only
file as the database, another schema, and two runs at once on one output folder."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from optsched.repro import RunOptions, run
from optsched.repro.db import ResultsDB, ResultsDBError
from optsched.repro.runner import artifacts_dir, runs_dir

from .tiny import read_csv_without_timings, write_tiny

ROOT = Path(__file__).resolve().parents[2]


def _stored(path: Path) -> list:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT key, row FROM cells ORDER BY key").fetchall()
    finally:
        conn.close()


def _db(tmp_path) -> Path:
    path = tmp_path / "T0.sqlite"
    with ResultsDB(path, "T0") as db:
        db.add("k1", {"n": 1}, 5, {"value": 2.0}, wall_s=0.1, cpu_s=0.1, worker="local")
        db.add("k2", {"n": 2}, 6, {"value": 3.0}, wall_s=0.1, cpu_s=0.1, worker="local")
    return path


@pytest.mark.parametrize("column, value, words", [
    ("row", "{not json", "unreadable JSON"),
    ("row", "[1, 2]", "must be JSON objects"),
    ("params", "3", "must be JSON objects"),
    ("seed", "abc", "seed 'abc' is not an integer"),
    ("wall_s", "slow", "wall_s 'slow' is not a time"),
    ("wall_s", -1.0, "wall_s -1.0 is not a time"),
    ("worker", b"\x00", "is not text"),  # a blob keeps its type in a TEXT column
])
def test_a_corrupt_row_is_one_line_and_no_row_is_lost(tmp_path, column, value, words):
    path = _db(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE cells SET {column} = ? WHERE key = 'k1'", (value,))
    conn.commit()
    conn.close()
    before = _stored(path)
    with ResultsDB(path, "T0") as db:
        assert db.get("k2").row == {"value": 3.0}  # the sound row still reads
        with pytest.raises(ResultsDBError, match=words) as exc:
            db.get("k1")
    assert len(str(exc.value).splitlines()) == 1 and exc.value.exit_status == 1 and "k1" in str(exc.value)
    assert _stored(path) == before


def test_another_schema_is_refused(tmp_path):
    path = tmp_path / "T0.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE cells (key TEXT PRIMARY KEY, value TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(ResultsDBError, match="the cells table has columns key, value"):
        ResultsDB(path, "T0")


def test_a_folder_as_the_database_path(tmp_path):
    (tmp_path / "T0.sqlite").mkdir()
    with pytest.raises(ResultsDBError, match="is a folder"):
        ResultsDB(tmp_path / "T0.sqlite", "T0")


def test_not_a_database(tmp_path):
    (tmp_path / "T0.sqlite").write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(ResultsDBError, match="not a usable results database"):
        ResultsDB(tmp_path / "T0.sqlite", "T0")


def test_a_read_only_database_keeps_its_rows(tmp_path):
    path = _db(tmp_path)
    before = _stored(path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # read-only even for root
    db = ResultsDB.__new__(ResultsDB)
    db.path, db.experiment_id, db._conn = path, "T0", conn
    with pytest.raises(ResultsDBError, match="cannot store a finished cell .*readonly"):
        db.add("k3", {"n": 3}, 7, {"value": 4.0}, wall_s=0.1, cpu_s=0.1, worker="local")
    db.close()
    assert _stored(path) == before


def test_repro_reports_a_corrupt_row_in_one_line_and_exit_1(tmp_path):
    """Through the command line: a first run stores its rows, one is corrupted, a rerun says so
    in one line on stderr and exits 1; every row is still in the database."""
    scripts = tmp_path / "paper_repro"
    write_tiny(scripts)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0", TINY_CELLS="2")
    first = subprocess.run([sys.executable, "-m", "optsched.cli", "repro", "--quick", "--jobs", "1", "--out", str(out)],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert first.returncode == 0, first.stderr[-1000:]
    db = runs_dir(out) / "K1-quick.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE cells SET row = '{broken' WHERE rowid = 1")
    conn.commit()
    conn.close()
    before = _stored(db)
    second = subprocess.run([sys.executable, "-m", "optsched.cli", "repro", "--quick", "--jobs", "1", "--out",
                             str(out)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert second.returncode == 1 and "Traceback" not in second.stderr, second.stderr[-2000:]
    failed = [line for line in second.stderr.splitlines() if line.startswith("K1: FAILED")]
    assert len(failed) == 1 and "is corrupt (unreadable JSON" in failed[0], second.stderr
    assert _stored(db) == before


def test_two_concurrent_runs_on_one_folder_both_succeed_with_identical_tables(tmp_path, monkeypatch):
    scripts = tmp_path / "paper_repro"
    write_tiny(scripts)
    out = tmp_path / "out"
    # each cell sleeps a little, so the two runs overlap (both compute, both report, both move)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0", TINY_CELLS="3", TINY_DELAY="0.5")
    cmd = [sys.executable, "-m", "optsched.cli", "repro", "--quick", "--jobs", "1", "--out", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
             for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err[-2000:]
    folder = artifacts_dir(out, True)
    index = (folder / "index.md").read_text()
    assert "FAILED" not in index
    assert not list(folder.glob(".staging-*"))
    rows = read_csv_without_timings(folder / "K1_rows.csv")
    assert len(rows) == 1 + 3  # header and the three cells
    # the same tables as one run alone
    alone = tmp_path / "alone"
    monkeypatch.setenv("TINY_CELLS", "3")
    assert run(RunOptions(quick=True, jobs=1, out=alone), scripts_dir=scripts) == 0
    for name in ("K1_rows.csv", "K1_summary.csv"):
        assert read_csv_without_timings(folder / name) == read_csv_without_timings(artifacts_dir(alone, True) / name)
