"""The shared chain-partition layer against enumeration (brute force computes loads from the raw
weights, with no prefix sums and no probe)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optsched.chain import brute_min_max, min_max_dp, min_max_partition, min_sum_partition, probe
from optsched.chain.partition import prefix_sums, segment_loads

weights_st = st.lists(st.integers(0, 9), min_size=1, max_size=8)
speeds_st = st.lists(st.sampled_from([1.0, 2.0, 3.0, 0.5]), min_size=1, max_size=4)


def _loads_ok(w, s, part, cost=None):
    """The bounds are a valid partition and attain the reported value."""
    b = part.bounds
    assert b[0] == 0 and b[-1] == len(w) and np.all(np.diff(b) >= 0) and len(b) == len(s) + 1
    value = max(sum(w[b[k]:b[k + 1]]) / s[k] for k in range(len(s)))
    if cost is not None:
        for x in set(b[1:-1].tolist()):
            if 0 < x < len(w):
                value = max(value, cost[x])
    assert value == pytest.approx(part.value, rel=1e-12, abs=1e-12)


@given(weights_st, speeds_st)
def test_min_max_methods_equal_brute_force(w, s):
    ref = brute_min_max(w, s)
    for method in ("bisect", "nicol"):
        part = min_max_partition(w, s, method=method)
        _loads_ok(w, s, part)
        assert part.value == pytest.approx(ref.value, rel=1e-12, abs=1e-12), method
    dp = min_max_dp(w, s)
    _loads_ok(w, s, dp)
    assert dp.value == pytest.approx(ref.value, rel=1e-12, abs=1e-12)


@given(weights_st, speeds_st, st.lists(st.sampled_from([0.0, 1.0, 2.5, 4.0, np.inf]), min_size=9, max_size=9))
def test_min_max_with_cut_costs_equals_brute_force(w, s, costs):
    cost = np.asarray(costs[:len(w) + 1])
    ref = brute_min_max(w, s, cost)
    part = min_max_partition(w, s, cut_cost=cost)
    _loads_ok(w, s, part, cost)
    assert part.value == pytest.approx(ref.value, rel=1e-12)
    dp = min_max_dp(w, s, cut_cost=cost)
    assert dp.value == pytest.approx(ref.value, rel=1e-12)


def test_heterogeneous_speed_order_matters():
    # the fast processor first takes the heavy head; reversed, the slow one must take less
    w = [6, 1, 1, 1, 1, 1, 1]
    assert min_max_partition(w, [3, 1]).value == pytest.approx(brute_min_max(w, [3, 1]).value)
    assert min_max_partition(w, [3, 1]).value == 3.0  # 9/3 and 3/1
    assert min_max_partition(w, [1, 3]).value == 4.0  # the slow one idles: 12/3


def test_nicol_equals_enumeration_on_every_small_chain():
    # exhaustive over 4^5 weight vectors and three speed orders (the hypothesis test samples)
    for w in itertools.product(range(4), repeat=5):
        for s in ([1.0, 2.0, 1.0], [2.0, 1.0, 1.0], [1.0, 1.0, 3.0]):
            assert min_max_partition(w, s, method="nicol").value == pytest.approx(brute_min_max(w, s).value), (w, s)


def test_probe_is_monotone_and_exact_at_the_optimum():
    rng = np.random.default_rng(3)
    for _ in range(30):
        w = rng.integers(0, 10, size=12)
        s = rng.choice([1.0, 2.0], size=3)
        opt = min_max_partition(w, s).value
        P = prefix_sums(w)
        assert probe(P, s, opt) is not None
        assert probe(P, s, opt * (1 - 1e-9) - 1e-12) is None
        b = probe(P, s, opt * 2)
        assert b is not None and segment_loads(P, s, b).max() <= opt * 2


def test_large_chain_methods_agree():
    rng = np.random.default_rng(0)
    w = rng.pareto(1.5, size=20_000)
    s = rng.choice([1.0, 2.5, 4.0], size=16)
    a = min_max_partition(w, s, method="bisect")
    b = min_max_partition(w, s, method="nicol")
    c = min_max_dp(w, s)
    assert a.value == b.value == pytest.approx(c.value, rel=1e-12)


@given(weights_st, st.integers(1, 3))
def test_min_sum_equals_enumeration(w, K):
    n = len(w)
    P = prefix_sums(w)
    speeds = [1.0, 2.0, 3.0][:K]

    def cost(k, a, b):
        return ((P[b] - P[a]) / speeds[k]) ** 2 + 0.5 * (b > a)  # squared loads plus a fixed cost per used part

    part = min_sum_partition(n, K, cost)
    best = min(sum(cost(k, np.array(b[k]), np.array(b[k + 1])) for k in range(K))
               for inner in itertools.combinations_with_replacement(range(n + 1), K - 1)
               for b in [(0, *inner, n)])
    assert part.value == pytest.approx(float(best))


def test_min_sum_nonempty():
    part = min_sum_partition(3, 3, lambda k, a, b: (b - a) * 0.0, nonempty=True)
    assert part.bounds.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        min_sum_partition(2, 3, lambda k, a, b: a * 0.0, nonempty=True)


def test_invalid_inputs():
    with pytest.raises(ValueError, match="weights"):
        min_max_partition([1, -1], num_parts=2)
    with pytest.raises(ValueError, match="speeds"):
        min_max_partition([1, 1], speeds=[1, 0])
    with pytest.raises(ValueError, match="cut_cost"):
        min_max_partition([1, 1], num_parts=2, cut_cost=[0, 1])
    with pytest.raises(ValueError, match="nicol"):
        min_max_partition([1, 1], num_parts=2, cut_cost=[0, 1, 0], method="nicol")


@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_blocked_dps_equal_brute_force(monkeypatch, block):
    """The DPs that scan every start run over blocks of ends (no n x n matrix); every block size,
    down to one end at a time, gives the enumerated optimum."""
    from optsched.chain import partition
    monkeypatch.setattr(partition, "_block", lambda n: block)
    rng = np.random.default_rng(block)
    for _ in range(20):
        n, K = int(rng.integers(1, 8)), int(rng.integers(1, 4))
        w = list(rng.integers(0, 9, n).astype(float))
        s = list(rng.choice([0.5, 1.0, 2.0], K))
        cost = np.concatenate([[0.0], rng.choice([0.0, 1.0, 2.5, np.inf], n - 1), [0.0]])
        assert min_max_dp(w, s, cut_cost=cost).value == pytest.approx(brute_min_max(w, s, cost).value, rel=1e-12)
        P = prefix_sums(w)
        part = min_sum_partition(n, K, lambda k, a, b: (P[b] - P[a]) ** 2 / s[k])
        best = min(sum((P[b[k + 1]] - P[b[k]]) ** 2 / s[k] for k in range(K))
                   for inner in itertools.combinations_with_replacement(range(n + 1), K - 1)
                   for b in [(0, *inner, n)])
        assert part.value == pytest.approx(best, rel=1e-12)
