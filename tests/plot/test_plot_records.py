"""``plot`` draws only a record of this instance whose claims hold and whose solution the
problem's checker accepts: a malformed solution (a string where a list belongs, an empty object,
a list of text), another instance's record or a self-contradictory one is a typed error (CLI exit
2, one line), never a ``TypeError`` from deep in the drawing code, and no file is written."""

from __future__ import annotations

import math

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.core.result import Result
from optsched.plot import example, pictures, plot

pytest.importorskip("matplotlib")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _first_list(solution):
    """The path of the first list in a solution (a dict of fields or a list)."""
    if isinstance(solution, list):
        return ()
    for key, value in solution.items():
        if isinstance(value, list):
            return (key,)
    return None


def _malformed(solution) -> dict:
    out = {"text instead of a solution": "x", "an empty object": {}, "a list of text": ["a", "b"]}
    path = _first_list(solution)
    if path:
        out["text in the first list"] = {**solution, path[0]: ["x"] * max(1, len(solution[path[0]]))}
        out["null for the first list"] = {**solution, path[0]: None}
    return out


@pytest.mark.parametrize("name", pictures())
def test_a_malformed_solution_is_a_typed_error_not_a_crash(name, tmp_path, capsys):
    from optsched.cli import main

    ex = example(name)
    inst = optsched.generate(name, seed=ex["seed"], preset=ex["preset"])
    res = optsched.solve(inst, ex["method"])
    (tmp_path / "i.json").write_text(inst.dumps())
    for case, bad in _malformed(res.solution).items():
        forged = Result(**{**res.__dict__, "solution": bad, "objective": None, "bound": None, "gap": None,
                           "status": "feasible"})
        with pytest.raises(InvalidInstanceError) as info:
            plot(inst, forged)
        assert info.value.field in ("solution", "result"), (case, str(info.value))
        forged.save(tmp_path / "r.json")
        code = main(["plot", name, str(tmp_path / "i.json"), str(tmp_path / "r.json"), "-o", str(tmp_path / "p.png")])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (case, err)
        assert not (tmp_path / "p.png").exists()


def test_a_self_contradictory_record_is_not_drawn():
    name = pictures()[0]
    ex = example(name)
    inst = optsched.generate(name, seed=ex["seed"], preset=ex["preset"])
    res = optsched.solve(inst, ex["method"])
    prob = optsched.get_problem(name)
    forged = Result(**{**res.__dict__, "status": "optimal", "gap": 0.0,
                       "bound": -math.inf if prob.sense == "min" else math.inf})
    with pytest.raises(InvalidInstanceError, match="contradicts itself: bound"):
        plot(inst, forged)
