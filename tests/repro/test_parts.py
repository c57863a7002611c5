"""A table declared in parts (one per problem folder): discovery joins them, each cell runs in its
own part's file, each part reports its own rows, and parts may share a figure."""

from __future__ import annotations

import csv

import pytest

from optsched.repro import RunOptions, run
from optsched.repro.discovery import discover, select
from optsched.repro.executors import execute_cell
from optsched.repro.runner import artifacts_dir

PART = '''
import os

from optsched.experiments import Experiment

NAME, ORDER = "@NAME@", @ORDER@


def cells(quick):
    return [{"part": NAME, "i": i} for i in range(2 if quick else 3)]


def run_cell(params, seed):
    # the file that runs the cell says so: a cell run by another part's run_cell would show it
    return {"part": params["part"], "i": params["i"], "ran_in": NAME, "pid": os.getpid()}


def report(rows, out):
    assert all(r["part"] == NAME for r in rows), rows           # only this part's rows
    out.table(NAME, [{"i": r["i"], "ran_in": r["ran_in"]} for r in rows])
    shared = out.shared.setdefault("seen", [])
    shared.append(NAME)
    if ORDER == 0:
        out.at_end.append(lambda: out.note("parts reported: " + ", ".join(out.shared["seen"])))


EXPERIMENT = Experiment(id="P1", part=NAME, order=ORDER, title="@TITLE@", paper="(test)", formulation="[ours]",
                        cells=cells, run_cell=run_cell, report=report, methods=@METHODS@)
'''


def _part(folder, file, name, order, title="", methods=()):
    folder.mkdir(parents=True, exist_ok=True)
    text = (PART.replace("@NAME@", name).replace("@ORDER@", str(order)).replace("@TITLE@", title)
            .replace("@METHODS@", repr(tuple(methods))))
    (folder / file).write_text(text)
    return folder / file


def test_parts_join_in_their_order_and_each_cell_runs_in_its_part(tmp_path):
    scripts = tmp_path / "paper_repro"
    # file-name order (a_ before b_) is the reverse of the parts' order: the join follows ``order``
    _part(scripts, "a_second.py", "second", 1, methods=("x/b", "x/a"))
    _part(scripts, "b_first.py", "first", 0, title="the header", methods=("x/a",))
    [script] = discover(scripts, problems=False)
    exp = script.experiment
    assert script.error is None and exp.id == "P1" and exp.title == "the header"
    assert script.origin == "paper_repro/b_first.py, paper_repro/a_second.py"
    assert [c["part"] for c in exp.cells(True)] == ["first", "first", "second", "second"]
    assert exp.methods == ("x/a", "x/b")                        # in order, each once
    assert [(p.name, d) for p, d in script.cell_sources(True)] == \
        [("b_first.py", "P1/first")] * 2 + [("a_second.py", "P1/second")] * 2
    # a worker finds the part's declaration by name in the part's file
    outcome = execute_cell("k", str(scripts / "a_second.py"), {"part": "second", "i": 0}, 0, "P1/second")
    assert outcome.error is None and outcome.row["ran_in"] == "second"
    missing = execute_cell("k", str(scripts / "a_second.py"), {"part": "second", "i": 0}, 0, "P1/first")
    assert missing.row is None and "declares no experiment 'P1/first'" in missing.error

    out = tmp_path / "results"
    assert run(RunOptions(quick=True, jobs=1, out=out), only=["P1"], scripts_dir=scripts) == 0
    folder = artifacts_dir(out, True)
    for name in ("first", "second"):
        with open(folder / f"P1_{name}.csv") as fh:
            rows = list(csv.DictReader(fh))
        assert [r["ran_in"] for r in rows] == [name, name]
    index = (folder / "index.md").read_text()
    assert "parts reported: first, second" in index              # at_end ran after both parts
    assert "paper_repro/b_first.py, paper_repro/a_second.py" in index


def test_parts_that_cannot_be_joined_are_reported(tmp_path):
    scripts = tmp_path / "paper_repro"
    _part(scripts, "a.py", "same", 0)
    _part(scripts, "b.py", "same", 1)
    [script] = discover(scripts, problems=False)
    assert script.experiment is None and "two parts are named alike" in script.error

    scripts = tmp_path / "other"
    _part(scripts, "a.py", "one", 1)
    _part(scripts, "b.py", "two", 2)
    [script] = discover(scripts, problems=False)
    assert script.experiment is None and "one of them 0" in script.error
    assert [s.id for s in select([script], ["p1"])] == ["P1"]   # still selectable by id


def test_a_whole_table_and_a_part_of_the_same_id_conflict(tmp_path):
    scripts = tmp_path / "paper_repro"
    _part(scripts, "b.py", "one", 0)
    (scripts / "a_whole.py").write_text(PART.replace("part=NAME, order=ORDER, ", "")
                                        .replace("@NAME@", "whole").replace("@ORDER@", "0")
                                        .replace("@TITLE@", "").replace("@METHODS@", "()"))
    scripts_found = discover(scripts, problems=False)
    assert [s.experiment is not None for s in scripts_found] == [True, False]
    assert "already declared by a_whole.py" in scripts_found[1].error


def test_every_problem_table_is_discovered_once():
    """The repository's tables: every id once, none failing to load, each part in a problem folder
    or a problem-free script."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    scripts = discover(root / "paper_repro")
    assert [s.error for s in scripts if s.error] == []
    ids = [s.id for s in scripts]
    assert len(ids) == len(set(ids))
    for s in scripts:
        for part in s.parts:
            assert part.path.name == "repro.py" or part.path.parent.name == "paper_repro", part.path


@pytest.mark.parametrize("quick", [True, False])
def test_cell_sources_match_the_cells(quick):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for s in discover(root / "paper_repro"):
        assert len(s.cell_sources(quick)) == len(s.experiment.cells(quick)), s.id
