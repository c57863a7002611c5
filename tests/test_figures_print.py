"""Figures at print quality: one colour per method across figures, log axes where values span
decades, titles on every panel, SVG beside PNG (a problem's table figure as the worked case is in
that problem's tests)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

import optsched  # noqa: E402
from optsched.plot import METHOD_COLORS, log_scale_if_wide, method_color, save_figure  # noqa: E402
from optsched.repro.experiment import Experiment  # noqa: E402
from optsched.repro.report import ArtifactWriter  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_method_colours_are_fixed_and_shared_across_problems():
    # a method named with its problem (any problem that has a method of that name) has the shared colour
    owner = next(name for name, prob in optsched.core.registry.problems().items() if "threshold" in prob.methods)
    assert method_color("threshold") == method_color(f"{owner}/threshold") == METHOD_COLORS["threshold"]
    t8 = [method_color(m) for m in ("threshold", "fixed-price", "greedy")]
    assert len(set(t8)) == 3 and "#000000" not in t8  # black is OPT's
    assert method_color("a-new-method") == method_color("x/a-new-method")


def test_log_axis_only_when_values_span_decades():
    fig, (a, b, c) = plt.subplots(1, 3)
    assert log_scale_if_wide(a, [2.0, 5.0, 607.0]) and a.get_yscale() == "log"
    assert not log_scale_if_wide(b, [2.0, 5.0, 9.5]) and b.get_yscale() == "linear"
    assert not log_scale_if_wide(c, [0.0, None, float("inf"), 3.0])  # one usable value only
    plt.close(fig)


def writer(tmp_path):
    exp = Experiment(id="T99", title="t", paper="p", formulation="[ours]", cells=lambda q: [],
                     run_cell=lambda p, s: {}, report=lambda rows, out: None)
    return ArtifactWriter(tmp_path, exp, quick=True, command="optsched repro --only T99")


def test_save_figure_writes_svg_beside_png_reproducibly(tmp_path):
    out = writer(tmp_path)
    texts = []
    for _ in range(2):
        fig, ax = plt.subplots()
        ax.plot([1, 2], [3, 4])
        ax.set_title("panel")
        assert save_figure(out, "fig", fig, caption="c", vector=(".svg", ".pdf")) == ["T99_fig.svg", "T99_fig.pdf"]
        texts.append((tmp_path / "T99_fig.svg").read_bytes())
    assert (tmp_path / "T99_fig.png").stat().st_size > 0 and (tmp_path / "T99_fig.pdf").stat().st_size > 0
    assert texts[0] == texts[1] and b"<svg" in texts[0]
    assert [name for name, _ in out.artifacts[:3]] == ["T99_fig.png", "T99_fig.svg", "T99_fig.pdf"]


@pytest.mark.parametrize("values, log", [([1.0, 10.5], True), ([1.0, 9.9], False)])
def test_the_decade_threshold(values, log):
    fig, ax = plt.subplots()
    assert log_scale_if_wide(ax, values) is log
    plt.close(fig)
