"""T8's adversary figure at print quality: titles on both panels, a log axis where the values span
decades, the shared method colours, SVG beside PNG."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from optsched.plot import method_color  # noqa: E402
from optsched.repro.experiment import Experiment  # noqa: E402
from optsched.repro.report import ArtifactWriter  # noqa: E402
from tests.repro_support import load_problem_script  # noqa: E402


def load_t8():
    return load_problem_script("online_knapsack", "repro_t8")


def writer(tmp_path):
    exp = Experiment(id="T99", title="t", paper="p", formulation="[ours]", cells=lambda q: [],
                     run_cell=lambda p, s: {}, report=lambda rows, out: None)
    return ArtifactWriter(tmp_path, exp, quick=True, command="optsched repro --only T99")


def rows():
    out = []
    for method, worst in (("threshold", (2.4, 3.8, 5.1)), ("fixed-price", (600.0, 200.0, 390.0)),
                          ("greedy", (2.9, 7.3, 18.0))):
        for ratio, w in zip((4.0, 16.0, 64.0), worst):
            for family in ("staircase", "increasing"):
                out.append({"part": "adversary", "method": method, "ratio": ratio, "eps": 0.05, "family": family,
                            "worst_ratio": w if family == "staircase" else w / 2})
    return out


def test_t8_adversary_figure_titles_log_axis_colours_and_svg(tmp_path, monkeypatch):
    t8 = load_t8()
    out = writer(tmp_path)
    figures = []
    monkeypatch.setattr(plt, "close", lambda fig=None: figures.append(fig))
    t8._figure(rows(), out)
    fig = next(f for f in figures if f is not None)
    left, right = fig.axes
    assert left.get_title() and right.get_title()
    assert left.get_yscale() == "log"          # 2.4 .. 600: decades apart
    assert right.get_yscale() == "linear"      # threshold alone: 1.2 .. 8.6
    colours = {line.get_label().split(":")[0]: to_hex(line.get_color()) for line in left.get_lines()}
    for method in ("threshold", "fixed-price", "greedy"):
        assert colours[method] == method_color(method)
    assert (tmp_path / "T99_adversary.svg").exists() and (tmp_path / "T99_adversary.png").exists()
