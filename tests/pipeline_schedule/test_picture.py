"""The picture of pipeline-schedule's solutions: it renders, and its Gantt chart draws one bar per operation and the bound."""

from __future__ import annotations

import pytest

import optsched
from optsched.plot import plot
from tests.picture_checks import close_figures, renders_in_every_format  # noqa: F401 (autouse fixture)


def test_picture_renders_in_every_format(tmp_path):
    inst = optsched.generate("pipeline-schedule", seed=1, preset="hetero-small")
    renders_in_every_format(inst, optsched.solve(inst, "1f1b"), tmp_path)


def test_pipeline_gantt_draws_one_bar_per_operation_and_the_bound():
    inst = optsched.generate("pipeline-schedule", seed=3, preset="hetero-small")
    res = optsched.solve(inst, "list")
    fig = plot(inst, res)
    assert fig.optsched["bars"] == 2 * inst.stages * inst.microbatches
    assert fig.optsched["makespan"] == pytest.approx(res.objective)
    assert fig.optsched["lower_bound"] <= res.objective
    drawn = [p for p in fig.axes[0].patches if p.get_height() == pytest.approx(0.8)]
    assert len(drawn) == 2 * inst.stages * inst.microbatches
