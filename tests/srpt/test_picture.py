"""The picture of srpt's solutions: it renders, with a bar per segment and GPU."""

from __future__ import annotations

import optsched
from optsched.plot import plot
from tests.picture_checks import close_figures, renders_in_every_format  # noqa: F401 (autouse fixture)


def test_picture_renders_in_every_format(tmp_path):
    inst = optsched.generate("srpt", seed=1, preset="tiny")
    renders_in_every_format(inst, optsched.solve(inst, "a-srpt"), tmp_path)


def test_cluster_gantt_has_a_bar_per_segment_and_gpu():
    inst = optsched.generate("srpt", seed=2, preset="tiny")
    res = optsched.solve(inst, "a-srpt")
    expected = sum(len(seg["servers"]) for job in res.solution["jobs"] for seg in job["segments"])  # GPUs
    assert plot(inst, res).optsched["bars"] == expected
