"""Every problem has a picture, declared in its own folder, and every picture is paper-ready.

The conformance check of a picture: drawn from the example its folder declares (``plot.EXAMPLE``),
it has a title on every panel, axis labels with units, and a legend where a panel shows more than
one series (:func:`optsched.plotting.figure_problems`), and it saves as PNG, SVG and PDF.
"""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.plot import example, pictures, plot, plot_module
from optsched.plotting import figure_problems, set_style, reset_style


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


SHIPPED = sorted(name for name, p in optsched.core.registry.problems().items()
                 if (p.package or "").startswith("optsched.problems."))


def test_every_problem_declares_a_picture_in_its_folder():
    assert len(SHIPPED) >= 22
    assert set(SHIPPED) <= set(pictures())
    for problem in SHIPPED:
        module = plot_module(problem)
        assert module.__name__ == f"{optsched.get_problem(problem).package}.plot"


def test_no_central_table_names_a_problem():
    """The shared modules find pictures; none lists a problem (its docstring example aside)."""
    import ast

    import optsched.gallery
    import optsched.plot
    import optsched.plotting.checks
    import optsched.plotting.crosscut
    import optsched.plotting.draw
    import optsched.plotting.style

    methods = {m for p in optsched.core.registry.problems().values() for m in p.methods}
    names = set(optsched.core.registry.problems()) - methods       # a problem's name may be a method's (its colour)
    for module in (optsched.plot, optsched.gallery, optsched.plotting.style, optsched.plotting.draw,
                   optsched.plotting.crosscut, optsched.plotting.checks):
        tree = ast.parse(open(module.__file__).read())
        doc = tree.body[0].value if isinstance(tree.body[0], ast.Expr) else None
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and n is not doc}
        assert not strings & names, module.__name__
        assert "optsched.problems" not in {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


@pytest.mark.parametrize("problem", SHIPPED)
def test_picture_is_paper_ready(problem, tmp_path):
    ex = example(problem)
    inst = optsched.generate(problem, seed=ex["seed"], preset=ex["preset"])
    res = optsched.solve(inst, ex["method"])
    assert res.solution is not None, res.status
    fig = plot(inst, res)
    assert figure_problems(fig) == []
    for suffix in (".png", ".svg", ".pdf"):
        path = tmp_path / f"fig{suffix}"
        plot(inst, res, path)
        assert path.stat().st_size > 1000
    import matplotlib.image as mpimg

    img = mpimg.imread(tmp_path / "fig.png")
    assert img.shape[0] > 100 and img.shape[1] > 100 and float(np.std(img[..., :3])) > 0.01  # not blank


def test_the_readiness_check_catches_missing_title_units_and_legend():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color="#4477aa")
    ax.plot([0, 1], [1, 0], color="#ee6677")
    ax.set_xlabel("time")
    found = figure_problems(fig)
    assert any("no title" in p for p in found)
    assert any("x label 'time' has no unit" in p for p in found)
    assert any("no y label" in p for p in found)
    assert any("2 series and no legend" in p for p in found)
    ax.set_title("t"), ax.set_xlabel("time (s)"), ax.set_ylabel("load (GB)"), ax.legend(["a", "b"])
    assert figure_problems(fig) == []


def _example(problem):
    ex = example(problem)
    inst = optsched.generate(problem, seed=ex["seed"], preset=ex["preset"])
    return inst, optsched.solve(inst, ex["method"])


def test_a_problem_without_a_picture_is_a_typed_error(monkeypatch):
    import optsched.plot as central
    from optsched.core.errors import InvalidOptionError

    inst, res = _example(SHIPPED[0])
    monkeypatch.setattr(central, "plot_module", lambda problem: None)
    with pytest.raises(InvalidOptionError, match="no picture"):
        plot(inst, res)


@pytest.mark.parametrize("problem", SHIPPED)
def test_vector_files_are_the_same_bytes_twice(problem, tmp_path):
    inst, res = _example(problem)
    plot(inst, res, tmp_path / "a.svg")
    plot(inst, res, tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


def test_style_is_overridable_per_figure_and_per_session():
    inst, res = _example(SHIPPED[0])
    default = plot(inst, res).axes[0].title.get_fontsize()
    assert plot(inst, res, style={"axes.titlesize": 14}).axes[0].title.get_fontsize() == 14 != default
    set_style(axes_titlesize=12)
    try:
        assert plot(inst, res).axes[0].title.get_fontsize() == 12
    finally:
        reset_style()
    assert plot(inst, res).axes[0].title.get_fontsize() == default


def test_plotting_layer_never_forces_a_backend(monkeypatch):
    import matplotlib

    inst, res = _example(SHIPPED[0])
    calls = []
    monkeypatch.setattr(matplotlib, "use", lambda *a, **k: calls.append(a))
    plot(inst, res)
    assert calls == []


def test_cli_plot_draws_every_problem(tmp_path):
    """``optsched plot`` from files, for every problem: generate, solve -o, plot -o (exit 0)."""
    from optsched.cli import main

    for problem in SHIPPED:
        ex = example(problem)
        inst, res, out = tmp_path / f"{problem}.json", tmp_path / f"{problem}-r.json", tmp_path / f"{problem}.pdf"
        assert main(["generate", problem, "--preset", ex["preset"], "--seed", str(ex["seed"]), "-o", str(inst)]) == 0
        assert main(["solve", problem, str(inst), "--method", ex["method"], "--quiet", "-o", str(res)]) == 0
        assert main(["plot", problem, str(inst), str(res), "-o", str(out)]) == 0, problem
        assert out.read_bytes().startswith(b"%PDF")
