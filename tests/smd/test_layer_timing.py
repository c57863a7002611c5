"""The layer-wise iteration time: hand-computed cases, and the envelope against the recursion."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optsched.workloads.layer_timing import (LayerTiming, iteration_time, iteration_time_recursive,
                                             sync_seconds_per_byte)


def test_sync_seconds_per_byte_hand_computed():
    # worker NIC bound: w / s = 1/2 < B_ps / B_wk = 1 -> 2 / B_wk
    assert sync_seconds_per_byte(1, 2, 1.0, 1.0) == 2.0
    # PS side bound: 2 * w / (s B_ps) = 2 * 4 / (2 * 1) = 4
    assert sync_seconds_per_byte(4, 2, 1.0, 1.0) == 4.0
    # a faster PS NIC moves the bottleneck back to the worker: 2 * max(1/1, 4 / (2 * 4)) = 2
    assert sync_seconds_per_byte(4, 2, 1.0, 4.0) == 2.0


@pytest.mark.parametrize("forward,backward,params,k,expected", [
    # one layer: forward 1, backward 2, transfer 10 * 0.1 = 1 after the gradient: 1 + 2 + 1
    ([1.0], [2.0], [10.0], 0.1, 4.0),
    # compute bound (k = 0): forward + backward
    ([0.5, 0.25], [1.0, 2.0], [3.0, 5.0], 0.0, 3.75),
    # communication bound: G = (2, 1); Q2 = 1 + 4 = 5; Q1 = max(2, 5) + 4 = 9
    ([0.0, 0.0], [1.0, 1.0], [1.0, 1.0], 4.0, 9.0),
    # overlap hides layer 2's transfer: G = (3, 1); Q2 = 1 + 0.5 = 1.5; Q1 = max(3, 1.5) + 0.5 = 3.5
    ([1.0, 1.0], [2.0, 1.0], [1.0, 1.0], 0.5, 5.5),
    # three layers, chain from the last layer dominates: G = (3, 2, 1), k m = (1, 1, 3);
    # Q3 = 1 + 3 = 4, Q2 = max(2, 4) + 1 = 5, Q1 = max(3, 5) + 1 = 6; + forward 0.3
    ([0.1, 0.1, 0.1], [1.0, 1.0, 1.0], [1.0, 1.0, 3.0], 1.0, 6.3),
])
def test_hand_computed_cases(forward, backward, params, k, expected):
    # exact binary fractions or sums of a few of them: equality up to one rounding of 1e-12
    assert iteration_time_recursive(forward, backward, params, k) == pytest.approx(expected, abs=1e-12)
    assert LayerTiming(forward, backward, params)(k) == pytest.approx(expected, abs=1e-12)


def test_iteration_time_by_configuration():
    # k(2, 1) = 2 * 2 / (1 * 1e9) = 4e-9 s/B; transfers 0.004 and 0.012 s; G = (0.06, 0.04);
    # Q2 = 0.052, Q1 = max(0.06, 0.052) + 0.004 = 0.064; + forward 0.03
    tau = iteration_time([0.01, 0.02], [0.02, 0.04], [1e6, 3e6], workers=2, parameter_servers=1,
                         worker_bandwidth=1e9, ps_bandwidth=1e9)
    assert float(tau) == pytest.approx(0.094, rel=1e-12)
    taus = iteration_time([0.01, 0.02], [0.02, 0.04], [1e6, 3e6], workers=[1, 2, 2], parameter_servers=[1, 1, 2],
                          worker_bandwidth=1e9, ps_bandwidth=1e9)
    assert taus.shape == (3,)
    assert taus[1] == pytest.approx(0.094, rel=1e-12)
    assert taus[0] == pytest.approx(taus[2], rel=1e-12)  # same k = 2e-9 for (1, 1) and (2, 2)


layers = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 1), min_size=n, max_size=n),
    st.lists(st.floats(0, 1), min_size=n, max_size=n),
    st.lists(st.floats(0, 1e3), min_size=n, max_size=n)))


@given(layers, st.lists(st.floats(0, 1e-2), min_size=1, max_size=20))
def test_envelope_matches_recursion(profile, ks):
    f, b, m = profile
    k = np.array(ks)
    expected = iteration_time_recursive(f, b, m, k)
    got = LayerTiming(f, b, m)(k)
    # both sum the same nonnegative terms in different orders: a few ulps of the total
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # tau >= forward + backward, nondecreasing in k
    assert np.all(got >= sum(f) + sum(b) - 1e-12)
    order = np.argsort(k)
    assert np.all(np.diff(got[order]) >= -1e-12)


def test_invalid_inputs_raise_value_error():
    with pytest.raises(ValueError, match="same positive length"):
        LayerTiming([1.0], [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="parameter_bytes"):
        LayerTiming([1.0], [1.0], [-1.0])
    with pytest.raises(ValueError, match="bandwidths"):
        sync_seconds_per_byte(1, 1, 0.0, 1.0)
    with pytest.raises(ValueError, match=">= 1"):
        sync_seconds_per_byte(0, 1, 1.0, 1.0)
