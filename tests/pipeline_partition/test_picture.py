"""The picture of pipeline-partition's solutions: it renders, naming every stage."""

from __future__ import annotations

import optsched
from optsched.plot import plot
from tests.picture_checks import close_figures, renders_in_every_format  # noqa: F401 (autouse fixture)


def test_picture_renders_in_every_format(tmp_path):
    inst = optsched.generate("pipeline-partition", seed=1, preset="tiny")
    renders_in_every_format(inst, optsched.solve(inst, "dp"), tmp_path)


def test_partition_picture_names_every_stage():
    inst = optsched.generate("pipeline-partition", seed=2, preset="tiny")
    res = optsched.solve(inst, "dp")
    fig = plot(inst, res)
    assert fig.optsched["stages"] == len(res.solution["replicas"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("stage ") for t in texts) == len(res.solution["replicas"])
