"""``optsched.compare``, problem-free: one problem per call, and the cross-cutting plots on frames
built by hand. Its ratios, columns, seeds, progress, plots, file output and references on real
problems are checked in their tests' ``test_compare.py``."""

from __future__ import annotations

import pandas as pd
import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.plotting import figure_problems


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_instances_of_two_problems_are_refused():
    first, second = [name for name, p in optsched.core.registry.problems().items() if "tiny" in p.presets][:2]
    one, other = optsched.generate(first, seed=1, preset="tiny"), optsched.generate(second, seed=1, preset="tiny")
    method = optsched.get_problem(first).default_method
    with pytest.raises(InvalidOptionError, match="one problem"):
        optsched.compare([one, other], [method])


def test_cross_cutting_plots_are_paper_ready():
    """Ratio against time (one compare per budget, concatenated) and competitive ratio against
    U/L (a column the caller adds), on frames built by hand so the drawn values are known."""
    from optsched.plotting import plot_anytime, plot_competitive

    rows = [{"problem": "p", "instance": "a", "method": m, "ratio": r, "time_limit": t}
            for m, series in (("milp", (1.5, 1.1, 1.0)), ("greedy", (1.3, 1.3, 1.3)))
            for t, r in zip((0.01, 0.1, 10.0), series)]
    fig = plot_anytime(pd.DataFrame(rows))
    assert figure_problems(fig) == [] and fig.axes[0].get_xscale() == "log"      # 0.01 .. 10 s
    assert [list(line.get_ydata()) for line in fig.axes[0].get_lines()[:2]] == [[1.5, 1.1, 1.0], [1.3, 1.3, 1.3]]
    import math

    rows = [{"method": m, "U/L": x, "ratio": r} for m, k in (("threshold", 1.0), ("greedy", 3.0))
            for x in (4.0, 16.0, 64.0) for r in (k * (1 + math.log(x)), 1.0)]
    fig = plot_competitive(pd.DataFrame(rows), theory=lambda x: 1 + math.log(x))
    assert figure_problems(fig) == [] and fig.axes[0].get_xscale() == "log"
    worst = list(fig.axes[0].get_lines()[0].get_ydata())
    assert worst == pytest.approx([1 + math.log(x) for x in (4.0, 16.0, 64.0)])   # max over instances
