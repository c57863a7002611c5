"""The shared learned pricing game on online-packing: the LP optimum of the multi-resource streams, and
(slow) regeneration of the bundled weights."""

import json

import numpy as np
import pytest

import optsched
from optsched.online.learned import fractional_opt
from optsched.problems.online_packing import OnlinePackingInstance


def _streams(seed, b=5, t=8, m=1, eps=0.25, upper=16.0):
    rng = np.random.default_rng(seed)
    return upper ** rng.random((b, t)), eps * rng.uniform(0.05, 1.0, (b, t, m))


def test_fractional_opt_is_the_lp_relaxation():
    values, demands = _streams(1, m=2)
    ours = fractional_opt(values, demands)
    for k in range(values.shape[0]):
        inst = OnlinePackingInstance(resources=2, lower=1.0, upper=16.0, eps=0.25, demands=demands[k].tolist(),
                                     values=values[k].tolist())
        assert ours[k] == pytest.approx(optsched.solve(inst, "lp").objective, rel=1e-7)


@pytest.mark.slow
def test_bundled_weights_are_regenerated_by_the_script(tmp_path):
    pytest.importorskip("jax", reason="the learn extra (jax) is not installed")
    from optsched.problems.online_packing import learned as pk

    pk.regenerate(path=tmp_path / "packing.json")
    ours = json.loads((tmp_path / "packing.json").read_text())
    bundled = json.loads(pk.WEIGHTS_PATH.read_text())
    for x, y in zip(ours["weights"], bundled["weights"]):
        assert np.allclose(x, y, rtol=0, atol=1e-9)
