"""A new problem gets its picture from its own folder: a package with a ``plot.py`` beside its
instance type is drawn by ``optsched.plot``, listed by ``pictures()``, passes the readiness check,
and no shared file changes."""

from __future__ import annotations

import sys
import textwrap

import pytest

import optsched
from optsched.core.registry import unregister_problem
from optsched.plot import pictures, plot, plot_module
from optsched.plotting import figure_problems

PACKAGE = {
    "__init__.py": '''
        from .problem import PROBLEM
    ''',
    "instance.py": '''
        from dataclasses import dataclass
        from optsched.core.instance import Instance
        from optsched.core.registry import CheckReport

        @dataclass(frozen=True)
        class Loads(Instance):
            problem = "toy-picture"
            sizes: tuple[float, ...]

            def validate(self):
                self.require(len(self.sizes) >= 1, "sizes", "must list a job")

        def check(instance, solution):
            return CheckReport.from_violations([], float(sum(instance.sizes)))
    ''',
    "problem.py": '''
        from optsched.core.registry import Outcome, Problem, register_problem
        from .instance import Loads, check

        PROBLEM = register_problem(Problem(name="toy-picture", title="toy", sense="min", instance_type=Loads,
                                           check=check, objective="sum", solution_schema="{}", spec="(test)",
                                           generate=lambda seed, **k: Loads(sizes=(1.0, 2.0, 3.0)),
                                           presets={"tiny": {}}, reference_method=None))

        @PROBLEM.method("all", kind="heuristic", fidelity="ours", summary="take all")
        def take_all(instance, ctx):
            return Outcome(solution={}, objective=float(sum(instance.sizes)))
    ''',
    "plot.py": '''
        from optsched.plotting.style import new_figure

        EXAMPLE = {"seed": 0, "preset": "tiny", "method": "all"}

        def draw(instance, result):
            fig, ax = new_figure()
            ax.bar(range(len(instance.sizes)), instance.sizes, color="#4477aa")
            ax.set_xlabel("job (index)")
            ax.set_ylabel("size (s)")
            ax.set_title(f"{result.method}: {result.objective:g}")
            fig.optsched = {"bars": len(instance.sizes)}
            return fig
    ''',
}


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    pkg = tmp_path / "toy_picture_pkg"
    pkg.mkdir()
    for name, text in PACKAGE.items():
        (pkg / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("toy_picture_pkg")
    yield pkg
    unregister_problem("toy-picture")
    for mod in [m for m in sys.modules if m.startswith("toy_picture_pkg")]:
        del sys.modules[mod]
    import matplotlib.pyplot as plt

    plt.close("all")


def test_a_new_folder_with_plot_py_has_a_picture(toy_package, tmp_path):
    assert "toy-picture" in pictures() and plot_module("toy-picture").__name__ == "toy_picture_pkg.plot"
    inst = optsched.generate("toy-picture", preset="tiny")
    fig = plot(inst, optsched.solve(inst, "all"), tmp_path / "toy.svg")
    assert fig.optsched == {"bars": 3} and figure_problems(fig) == [] and (tmp_path / "toy.svg").stat().st_size > 500


def test_a_folder_without_plot_py_has_none(toy_package):
    (toy_package / "plot.py").unlink()
    sys.modules.pop("toy_picture_pkg.plot", None)
    assert plot_module("toy-picture") is None and "toy-picture" not in pictures()
