"""A sweep on a real dask cluster that loses a worker mid-sweep.

A ``dask scheduler`` and two ``dask worker`` processes are started on 127.0.0.1 (loopback only,
no dashboard); ``optsched repro --executor dask --scheduler tcp://127.0.0.1:PORT`` runs the tiny
experiment; once worker A has started a cell and at least one row is stored, worker A (and its
nanny) is killed with SIGKILL. The scheduler reschedules the lost cell on worker B; the test
checks that the sweep still finishes, that every cell is stored exactly once, and that the rows
equal those of the local executor. Every wait is bounded; the processes are killed at the end
whatever happens.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from optsched.repro import RunOptions, run
from optsched.repro.runner import artifacts_dir, runs_dir

from .tiny import read_csv_without_timings, write_tiny

CELLS = 6
DEADLINE_S = 150


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    with open(log, "w") as err:
        return subprocess.Popen(argv, env=env, cwd=log.parent, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=err)


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


def _wait_for(predicate, deadline: float, what: str, logs: Path) -> None:
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    tails = "\n".join(f"--- {log.name}:\n" + "\n".join(log.read_text().splitlines()[-6:])
                      for log in sorted(logs.glob("*.log")))
    raise AssertionError(f"timed out waiting for {what}\n{tails}")


def _stored(db: Path) -> list[int]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return [int(p.split(":")[1].strip(" }")) for (p,) in conn.execute("SELECT params FROM cells")]
    except sqlite3.OperationalError:
        return []


def test_sweep_survives_a_killed_worker_and_stores_every_cell_once(tmp_path):
    start = time.monotonic()
    deadline = start + DEADLINE_S
    write_tiny(tmp_path / "paper_repro")
    dask_cli = str(Path(sys.executable).with_name("dask"))
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    side = tmp_path / "side.txt"
    base_env = {**os.environ, "TINY_CELLS": str(CELLS), "TINY_DELAY": "0.8", "TINY_SIDE_FILE": str(side),
                "DASK_DISTRIBUTED__WORKER__DAEMON": "False", "OMP_NUM_THREADS": "1"}
    procs: list[subprocess.Popen] = []

    def _started_on(worker: str) -> set[int]:
        lines = side.read_text().splitlines() if side.exists() else []
        return {int(line.split()[1]) for line in lines if line.startswith(worker + " ")}

    try:
        procs.append(_start([dask_cli, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                            base_env, tmp_path / "scheduler.log"))
        workers = {}
        for name in ("A", "B"):
            workers[name] = _start([dask_cli, "worker", address, "--nthreads", "1", "--nworkers", "1",
                                    "--no-dashboard", "--host", "127.0.0.1", "--name", f"worker-{name}"],
                                   {**base_env, "TINY_PHASE": name}, tmp_path / f"worker-{name}.log")
            procs.append(workers[name])
        out = tmp_path / "results"
        sweep = _start([sys.executable, "-m", "optsched.cli", "repro", "--quick", "--only", "k1", "--executor",
                        "dask", "--scheduler", address, "--out", str(out)],
                       {**base_env, "TINY_PHASE": "driver"}, tmp_path / "sweep.log")
        procs.append(sweep)
        db = runs_dir(out) / "K1-quick.sqlite"

        def a_is_working_and_a_row_is_stored() -> bool:
            assert sweep.poll() is None or len(_stored(db)) == CELLS, \
                "the sweep ended early: " + (tmp_path / "sweep.log").read_text()[-2000:]
            stored = set(_stored(db))
            return bool(stored) and bool(_started_on("A") - stored)

        _wait_for(a_is_working_and_a_row_is_stored, deadline, "worker A to be mid-cell", tmp_path)
        _kill(workers["A"])
        lost = _started_on("A") - set(_stored(db))     # cells A was running when it died
        killed_at = len(_stored(db))
        _wait_for(lambda: sweep.poll() is not None, deadline, "the sweep to finish", tmp_path)
        assert sweep.returncode == 0, (tmp_path / "sweep.log").read_text()[-2000:]
    finally:
        for proc in reversed(procs):
            _kill(proc)

    stored = _stored(db)
    assert sorted(stored) == list(range(CELLS)), f"cells stored: {sorted(stored)}"   # each exactly once
    assert lost and lost <= _started_on("B"), f"the cells lost with worker A ({lost}) were not rerun on B"
    assert killed_at < CELLS

    local_out = tmp_path / "local"
    env_backup = {k: os.environ.get(k) for k in ("TINY_CELLS", "TINY_SIDE_FILE", "TINY_DELAY")}
    os.environ["TINY_CELLS"] = str(CELLS)
    os.environ.pop("TINY_SIDE_FILE", None)
    os.environ.pop("TINY_DELAY", None)
    try:
        assert run(RunOptions(quick=True, jobs=2, out=local_out), scripts_dir=tmp_path / "paper_repro") == 0
    finally:
        for k, v in env_backup.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert read_csv_without_timings(artifacts_dir(out, True) / "K1_rows.csv") == \
        read_csv_without_timings(artifacts_dir(local_out, True) / "K1_rows.csv")
    print(f"\nkilled-worker dask sweep: {time.monotonic() - start:.1f} s wall; "
          f"{killed_at} of {CELLS} cells were stored when worker A was killed")
