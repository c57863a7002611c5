"""Benchmarks of the repro runner's own overhead (optsched.repro), not of any table.

* Results database: storing 1000 finished cells, each in its own committed transaction (what the
  driver does as cells finish; ``synchronous = FULL``, so this measures the disk's fsync).
* Sweep overhead: 40 cells whose ``run_cell`` does nothing, on the local executor with 2 worker
  processes (start-up of the spawned workers, task round trips, database writes, report).
  Reported per cell; compare it with the cells of a real table (seconds each) to see that the
  runner's share is negligible. No wall-time assertion.
"""

from __future__ import annotations

import pytest

from optsched.repro import ResultsDB, RunOptions, run

NOOP = '''
from optsched.repro import Experiment

def cells(quick):
    return [{"i": i} for i in range(40)]

def run_cell(params, seed):
    return {"i": params["i"], "seed": seed}

def report(rows, out):
    out.table("rows", rows)

EXPERIMENT = Experiment(id="B1", title="no-op cells", paper="(benchmark)", formulation="[ours]",
                        cells=cells, run_cell=run_cell, report=report)
'''


@pytest.mark.slow
def test_bench_results_db_commits(benchmark, tmp_path):
    counter = iter(range(10 ** 9))

    def store_1000():
        with ResultsDB(tmp_path / f"B{next(counter)}.sqlite", "B0") as db:
            for i in range(1000):
                db.add(f"k{i}", {"i": i}, i, {"value": float(i)}, wall_s=0.0, cpu_s=0.0, worker="bench")
        return db

    benchmark.pedantic(store_1000, rounds=3, iterations=1)


@pytest.mark.slow
def test_bench_sweep_overhead(benchmark, tmp_path):
    scripts = tmp_path / "paper_repro"
    scripts.mkdir()
    (scripts / "b1_noop.py").write_text(NOOP)
    counter = iter(range(10 ** 9))

    def sweep():
        return run(RunOptions(quick=True, jobs=2, out=tmp_path / f"out{next(counter)}"), scripts_dir=scripts)

    assert benchmark.pedantic(sweep, rounds=2, iterations=1) == 0
    benchmark.extra_info["seconds_per_cell"] = benchmark.stats.stats.mean / 40
