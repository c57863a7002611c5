"""The cross-cutting ratio plot on frames built by hand, where the drawn facts are known: a method
with no ratio on any instance (``not_applicable`` everywhere) is left out with a note instead of
crashing; against an exact reference the confidence band stops at the ratio's floor 1.0;
legends sit outside the data. And whole-number axes (counts, indices) get whole-number ticks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.plotting import figure_problems, plot_anytime, plot_competitive, plot_ratios
from tests.picture_checks import close_figures  # noqa: F401 (autouse fixture)

pytest.importorskip("matplotlib")


def _rows(method, ratios, kind="optimum", status="optimal"):
    return [{"problem": "p", "instance": f"i{k}", "method": method, "status": status, "ratio": r,
             "reference": 10.0, "reference_kind": kind} for k, r in enumerate(ratios)]


def _frame(rows):
    from optsched.compare import CompareFrame

    frame = CompareFrame(rows)  # what compare() returns: its .plot() draws the ratios
    frame.results, frame.traces = {}, {}
    return frame


def test_a_method_not_applicable_everywhere_is_skipped_with_a_note(tmp_path):
    rows = _rows("a", [1.0, 1.2]) + _rows("b", [None, None], status="not_applicable")
    frame = _frame(rows)
    fig = frame.plot(path=tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000
    assert fig.optsched["skipped"] == ["p/b"]
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a"]
    assert any("b" in t.get_text() and "not applicable" in t.get_text() for t in ax.texts)
    assert figure_problems(fig) == []


def test_no_method_with_a_ratio_at_all_still_draws():
    fig = plot_ratios(_frame(_rows("b", [None, math.nan], status="not_applicable")))
    assert fig.optsched["skipped"] == ["p/b"]


def _band(ax):
    """(lowest, highest) end of the bars' error bars."""
    ends = []
    for container in ax.containers:
        err = getattr(container, "errorbar", None)
        if err is None:
            continue
        for coll in err.lines[2]:
            for seg in coll.get_segments():
                ends += [float(seg[0][1]), float(seg[1][1])]
    return min(ends), max(ends)


def test_the_band_stops_at_one_against_an_optimum_only():
    ratios = [1.0, 1.0, 1.0, 1.3]  # mean 1.075; a t interval of 4 values reaches far below 1
    low, high = _band(plot_ratios(pd.DataFrame(_rows("a", ratios))).axes[0])
    assert low == pytest.approx(1.0) and high > 1.3
    low, _ = _band(plot_ratios(pd.DataFrame(_rows("a", ratios, kind="bound"))).axes[0])
    assert low < 1.0  # to a bound (or a given value) the ratio may be below 1: drawn as computed


def _legend_right_of_axes(fig):
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    return legend.get_window_extent().x0 >= ax.get_window_extent().x1 - 1.0


def test_legends_sit_outside_the_data():
    frame = pd.DataFrame(_rows("a", [1.0, 1.1]) + _rows("b", [1.2, 1.4]))
    assert _legend_right_of_axes(plot_ratios(frame))
    timed = pd.DataFrame([{**r, "time_limit": t} for t in (0.1, 1.0) for r in _rows("a", [1.0, 1.1])])
    assert _legend_right_of_axes(plot_anytime(timed))
    comp = pd.DataFrame([{**r, "U/L": u} for u in (2.0, 8.0) for r in _rows("a", [1.0, 1.1])])
    assert _legend_right_of_axes(plot_competitive(comp, theory=lambda x: 1 + math.log(x)))


def test_count_and_index_axes_get_whole_number_ticks():
    import matplotlib.pyplot as plt

    from optsched.plotting.style import integer_ticks

    fig, ax = plt.subplots()
    ax.bar([0, 1, 2], [1, 3, 2])
    ax.set_xlabel("stage (index)")
    ax.set_ylabel("tasks (count)")
    ax.set_title("t")
    fig.canvas.draw()
    assert any("fractional ticks" in p for p in figure_problems(fig))  # matplotlib's default: 0.5 steps
    assert integer_ticks(fig) == 2
    fig.canvas.draw()
    assert all(float(t).is_integer() for t in np.concatenate([ax.get_xticks(), ax.get_yticks()]))
    assert figure_problems(fig) == []
