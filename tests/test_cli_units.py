"""``optsched solve`` and ``check`` print the objective with its unit (declared beside each
problem's ``OBJECTIVE``); the JSON records stay numbers only."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched import cli
from optsched.core.registry import Problem, problems


@pytest.mark.parametrize("name", sorted(problems()))
def test_every_problem_declares_its_objective_unit(name):
    unit = optsched.get_problem(name).objective_unit
    assert isinstance(unit, (str, dict)) and unit, f"{name}: no OBJECTIVE_UNIT beside OBJECTIVE in instance.py"
    if isinstance(unit, dict):   # one unit per value of the instance's objective field
        assert all(isinstance(u, str) and u for u in unit.values())


def _pick() -> Problem:
    """A problem with a tiny preset whose default method solves it (by what it declares)."""
    return next(p for _, p in sorted(problems().items()) if "tiny" in p.presets and isinstance(p.objective_unit, str))


def test_solve_and_check_print_the_unit_and_json_stays_numbers(tmp_path, capsys):
    p = _pick()
    inst, res = tmp_path / "i.json", tmp_path / "r.json"
    assert cli.main(["generate", p.name, "--preset", "tiny", "-o", str(inst)]) == 0
    capsys.readouterr()
    assert cli.main(["solve", p.name, str(inst), "-o", str(res), "--quiet"]) == 0
    line = capsys.readouterr().out
    record = json.loads(res.read_text())
    value = p.format_objective(record["objective"])
    assert value.endswith(" " + p.objective_unit) and f"objective={value} " in line
    assert isinstance(record["objective"], (int, float)) and "unit" not in record   # the record is unchanged
    assert cli.main(["check", p.name, str(inst), str(res)]) == 0
    assert f"feasible: objective={value}" in capsys.readouterr().out
    assert cli.main(["solve", p.name, str(inst), "--json", "--quiet"]) == 0
    assert isinstance(json.loads(capsys.readouterr().out)["objective"], (int, float))


def test_a_unit_that_depends_on_the_instances_objective():
    p = Problem("p", "t", "min", object, None, "", "", "", objective_unit={"cut": "bytes", "time": "s"})

    class Inst:
        objective = "cut"

    assert p.format_objective(2.5, Inst()) == "2.5 bytes" and p.format_objective(2.5) == "2.5"
    assert p.format_objective(None, Inst()) == "-"
