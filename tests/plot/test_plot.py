"""The plotting layer's typed errors and the ``plot`` verb, on the example drawings two problems
declare (``plot.EXAMPLE``; the first two by name). Each problem's picture is checked in its own tests'
folder and, for every problem, by ``tests/plot/test_pictures.py``."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.plot import example, pictures, plot


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _example(problem):
    ex = example(problem)
    inst = optsched.generate(problem, seed=ex["seed"], preset=ex["preset"])
    return ex, inst, optsched.solve(inst, ex["method"])


def test_errors_are_typed():
    first, second = pictures()[:2]
    _, inst, res = _example(first)
    _, _, other = _example(second)
    with pytest.raises(InvalidInstanceError, match=f"result of '{second}'"):
        plot(inst, other)
    with pytest.raises(InvalidOptionError, match="-o"):
        plot(inst, res, "out.jpg")


def test_cli_plot_verb(tmp_path):
    from optsched.cli import main

    first, second = pictures()[:2]
    ex = example(first)
    inst, res, out = tmp_path / "i.json", tmp_path / "r.json", tmp_path / "g.svg"
    assert main(["generate", first, "--preset", ex["preset"], "--seed", str(ex["seed"]), "-o", str(inst)]) == 0
    assert main(["solve", first, str(inst), "--method", ex["method"], "--quiet", "-o", str(res)]) == 0
    assert main(["plot", first, str(inst), str(res), "-o", str(out)]) == 0
    assert out.stat().st_size > 1000 and out.read_text().lstrip().startswith("<?xml")
    assert main(["plot", first, str(inst), str(inst), "-o", str(out)]) == 2   # not a result
    assert main(["plot", second, str(inst), str(res), "-o", str(out)]) == 2   # another problem's files
