"""The pipeline-partition picture draws its bars in the objective's unit: per microbatch (the
profile's times scaled by ``microbatch_size / profile_batch``), not per profiled batch, and its
title names the objective and that unit."""

from __future__ import annotations

import numpy as np

import optsched
from optsched.plot import plot
from tests.picture_checks import close_figures  # noqa: F401 (autouse fixture)


def test_bars_are_per_microbatch_like_the_objective():
    inst = optsched.generate("pipeline-partition", seed=0, preset="small")
    assert inst.microbatch_size != inst.profile_batch  # else per batch and per microbatch coincide
    res = optsched.solve(inst, "dp")
    fig = plot(inst, res)
    top = fig.axes[0]
    heights = np.array([p.get_height() for p in top.patches])
    per_microbatch = (np.asarray(inst.forward_s) + np.asarray(inst.backward_s)) * inst.microbatch_size / inst.profile_batch
    assert heights.shape == per_microbatch.shape
    np.testing.assert_allclose(heights, per_microbatch, rtol=1e-12)  # the same products: only rounding
    assert "per microbatch" in top.get_ylabel()
    assert inst.objective in top.get_title() and ("per microbatch" if inst.objective == "bottleneck"
                                                  else "per iteration") in top.get_title()
