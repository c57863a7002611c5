"""Results and sweeps as pandas data frames."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.repro import RunOptions, run

from .tiny import tiny_problem, write_tiny


def test_results_frame_from_records_files_and_folders(tmp_path):
    inst = optsched.generate(tiny_problem(), seed=2, preset="tiny")
    results = [optsched.solve(inst, "milp"), optsched.solve(inst, "greedy")]
    for k, r in enumerate(results):
        r.save(tmp_path / f"r{k}.json")
    frame = optsched.results_frame(tmp_path)
    assert list(frame["method"]) == ["milp", "greedy"]
    assert frame.loc[0, "status"] == "optimal" and frame.loc[0, "objective"] == results[0].objective
    assert "solution" not in frame.columns and "setting.time_limit" in frame.columns
    one = results[1].to_frame()
    assert one.shape[0] == 1 and one.loc[0, "objective"] == results[1].objective


def test_repro_load_reads_the_sweep_database(tmp_path, monkeypatch):
    monkeypatch.setenv("TINY_CELLS", "3")
    write_tiny(tmp_path / "paper_repro")
    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=1, out=out), scripts_dir=tmp_path / "paper_repro") == 0
    frame = optsched.repro.load("K1", out, quick=True)
    assert sorted(frame["instance"]) == [0, 1, 2]
    expected_columns = {"milp", "greedy", "cell_key", "cell_seed", "cell_wall_s"}
    assert expected_columns <= set(frame.columns)
    sign = 1 if optsched.get_problem(tiny_problem()).sense == "max" else -1   # greedy never beats the optimum
    assert (sign * frame["greedy"] <= sign * frame["milp"] * (1 + 1e-9)).all()
    with pytest.raises(InvalidOptionError, match="no results database"):
        optsched.repro.load("K1", out, quick=False)
