"""The picture of online-knapsack's solutions keeps each method's colour."""

from __future__ import annotations

import optsched
from optsched.plot import plot
from optsched.plotting import method_color
from tests.picture_checks import close_figures  # noqa: F401 (autouse fixture)


def test_threshold_keeps_its_method_colour(tmp_path):
    """A method's colour is the method's, whatever the problem: the threshold policy's points are
    drawn in ``method_color("threshold")`` here as in every problem that has one."""
    from matplotlib.colors import to_hex

    inst = optsched.generate("online-knapsack", seed=2, preset="tiny")
    fig = plot(inst, optsched.solve(inst, "threshold"))
    faces = {to_hex(c) for c in fig.axes[0].collections[0].get_facecolors()}
    assert faces == {method_color("threshold")}
