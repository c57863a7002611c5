"""The Gavel interference loader (on a fixture written here and on the real file) and the model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.workloads.interference import (InterferenceModel, held_out_error, job_features,
                                             load_gavel_interference)

from tests.conftest import require_data


def _fixture(tmp_path):
    a, b, c = "('A (batch size 8)', 1)", "('B (batch size 16)', 1)", "('C (batch size 8)', 1)"
    data = {"v100": {
        a: {"null": 10.0, a: [5.0, 5.0], b: [8.0, 4.0], c: [0.0, 0.0]},
        b: {"null": 5.0, a: [4.0, 8.0], b: [2.5, 2.5]},
        c: {"null": 4.0, a: [0.0, 0.0], c: [4.4, 4.4]},
        "('A (batch size 8)', 2)": {"null": 18.0, a: [0.0, 0.0]},
    }}
    path = tmp_path / "thr.json"
    path.write_text(json.dumps(data))
    return path


def test_loader_on_a_fixture(tmp_path):
    t = load_gavel_interference(_fixture(tmp_path))
    assert t.names == ("A (batch size 8)", "B (batch size 16)", "C (batch size 8)")
    assert t.beta[0][1] == pytest.approx(10 / 8 - 1) and t.beta[1][0] == pytest.approx(5 / 4 - 1)
    assert t.forbidden[0][2] and t.forbidden[2][0] and not t.forbidden[0][1]
    assert math.isnan(t.beta[1][2])          # never measured: to be predicted
    assert t.beta[2][2] == 0.0 and t.floored == 1  # 4.4 > 4.0 alone: floored, counted
    assert t.throughput("A (batch size 8)", 2) == 18.0 and t.throughput("B (batch size 16)", 4) == 5.0


def test_loader_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"v100": {"('A', 1)": {"null": -1.0}}}))
    with pytest.raises(InvalidInstanceError):
        load_gavel_interference(bad)
    with pytest.raises(InvalidInstanceError):
        load_gavel_interference(_fixture(tmp_path), accelerator="h100")


def test_model_predicts_and_completes(tmp_path):
    t = load_gavel_interference(_fixture(tmp_path))
    assert job_features(t).shape == (3, 3 + 2)  # families A, B, C one-hot, log2 batch, log throughput
    model = InterferenceModel(seed=0, n_estimators=20).fit(t)
    full = model.complete(t)
    assert not np.isnan(full).any() and full[1][2] >= 0
    assert full[0][1] == t.beta[0][1]  # measured values are kept


@pytest.mark.slow
def test_held_out_error_on_gavel():
    t = load_gavel_interference(require_data("throughputs/gavel/simulation_throughputs.json"))
    assert len(t.names) == 26 and t.floored == 0
    err = held_out_error(t, seed=0)
    # the model must beat predicting the training mean on unseen pairs (measured 0.31 vs 0.82)
    assert err["unseen_pairs"]["mae_slowdown"] < err["unseen_pairs"]["mae_baseline_mean"]
