"""The intra-op picture's memory axis names its unit (bytes for the generated operator graphs, as
the problem's README says), not "instance units"."""

from __future__ import annotations

import optsched
from optsched.plot import example, plot
from tests.picture_checks import close_figures  # noqa: F401 (autouse fixture)


def test_the_memory_axis_names_its_unit():
    ex = example("intra-op")
    inst = optsched.generate("intra-op", seed=ex["seed"], preset=ex["preset"])
    fig = plot(inst, optsched.solve(inst, ex["method"]))
    label = fig.axes[0].get_ylabel()
    assert "bytes" in label and "instance units" not in label
