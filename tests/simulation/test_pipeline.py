"""The event simulator: closed forms, an independent check of every simulated schedule, the two
engines against each other, the lower bound, memory counts and invalid input."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optsched.core.errors import InvalidInstanceError, InvalidOptionError, NotApplicable
from optsched.simulation.pipeline import (BACKWARD, FORWARD, PrecedenceCycleError, lower_bound, named_order,
                                            order_from_json, simulate, simulate_order)

# Makespans are sums and maxima of at most a few hundred positive floats; two computations of
# the same quantity in different association orders differ by a few ulps per term, so 1e-9
# relative is ample and still catches any real discrepancy (durations are >= 0.1).
REL = 1e-9


def times(forward, backward, transfer=None, allreduce=None):
    K = len(forward)
    return SimpleNamespace(forward=tuple(forward), backward=tuple(backward),
                           transfer=tuple(transfer if transfer is not None else (0.0,) * (K - 1)),
                           allreduce=tuple(allreduce if allreduce is not None else (0.0,) * K))


@st.composite
def pipelines(draw, max_stages=6, max_microbatches=8):
    K = draw(st.integers(1, max_stages))
    M = draw(st.integers(1, max_microbatches))
    dur = st.floats(0.1, 5.0, allow_nan=False)
    t = times([draw(dur) for _ in range(K)], [draw(dur) for _ in range(K)],
              [draw(st.floats(0.0, 3.0)) for _ in range(K - 1)],
              [draw(st.sampled_from([0.0, 0.0, draw(st.floats(0.0, 20.0))])) for _ in range(K)])
    return t, M


@st.composite
def random_orders(draw, K, M):
    """A random deadlock-free order: repeatedly run a random stage's random available task."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    done_f = np.zeros((K, M), bool)
    done_b = np.zeros((K, M), bool)
    order = [[] for _ in range(K)]
    while len(order[0]) < 2 * M or any(len(o) < 2 * M for o in order):
        avail = []
        for k in range(K):
            for m in range(M):
                if not done_f[k, m] and (k == 0 or done_f[k - 1, m]):
                    avail.append((k, FORWARD, m))
                if done_f[k, m] and not done_b[k, m] and (k == K - 1 or done_b[k + 1, m]):
                    avail.append((k, BACKWARD, m))
        k, t, m = avail[rng.integers(len(avail))]
        (done_f if t == FORWARD else done_b)[k, m] = True
        order[k].append(["FB"[t], m])
    return order


def verify_schedule(t, M, kind, mb, sim):
    """Independent of the engines: the start times respect every precedence and each stage runs
    one task at a time in the given order, and every task starts at a tight constraint (so the
    schedule is the earliest one of the order)."""
    K = len(t.forward)
    S = sim.task_start
    dur = np.stack([np.asarray(t.forward), np.asarray(t.backward)], 1)
    eps = 1e-9 * max(1.0, sim.makespan)
    for k in range(K):
        prev_end = 0.0
        for i in range(2 * M):
            ty, m = int(kind[k, i]), int(mb[k, i])
            s = S[k, ty, m]
            deps = [prev_end]
            if ty == FORWARD and k > 0:
                deps.append(S[k - 1, 0, m] + t.forward[k - 1] + t.transfer[k - 1])
            if ty == BACKWARD:
                deps.append(S[k + 1, 1, m] + t.backward[k + 1] + t.transfer[k] if k < K - 1
                            else S[k, 0, m] + t.forward[k])
            assert s >= max(deps) - eps, (k, i)
            assert s <= max(deps) + eps, f"task {i} of stage {k} starts later than needed"
            prev_end = s + dur[k, ty]
        assert sim.stage_end[k] == pytest.approx(prev_end, rel=REL)
    expect = max(sim.stage_end[k] + t.allreduce[k] for k in range(K))
    assert sim.makespan == pytest.approx(expect, rel=REL)


@given(st.integers(1, 10), st.integers(1, 24), st.floats(0.1, 10), st.floats(0.1, 10))
def test_identical_stages_closed_form(K, M, F, B):
    """(M + K - 1)(F + B) for GPipe and 1F1B: identical stages, no transfers, no cap."""
    t = times([F] * K, [B] * K)
    for schedule in ("gpipe", "1f1b"):
        for engine in ("plain", "vectorized"):
            sim = simulate(t, M, schedule, engine=engine)
            assert sim.makespan == pytest.approx((M + K - 1) * (F + B), rel=REL), (schedule, engine)
    assert lower_bound(t, M) == pytest.approx((M + K - 1) * (F + B), rel=REL)


@given(pipelines(), st.data())
def test_schedules_are_valid_earliest_and_above_lower_bound(pipe, data):
    t, M = pipe
    K = len(t.forward)
    orders = [named_order(s, K, M, g) for s, g in (("gpipe", 1), ("1f1b", 1), ("kfkb", 2), ("kfkb", 3))]
    orders.append(order_from_json(data.draw(random_orders(K, M)), K, M))
    lb = lower_bound(t, M)
    for kind, mb in orders:
        plain = simulate_order(t, M, kind, mb, engine="plain")
        vec = simulate_order(t, M, kind, mb, engine="vectorized")
        # same float operations in the same order: the engines agree exactly
        assert plain.makespan == vec.makespan
        assert np.array_equal(plain.task_start, vec.task_start)
        verify_schedule(t, M, kind, mb, plain)
        assert plain.makespan >= lb * (1 - REL)
        assert np.allclose(plain.idle, plain.makespan - M * (np.asarray(t.forward) + np.asarray(t.backward)))


@given(st.integers(1, 8), st.integers(1, 20), st.integers(1, 6))
def test_peak_inflight_of_public_schedules(K, M, g):
    t = times([1.0] * K, [2.0] * K)
    k = np.arange(K)
    assert simulate(t, M, "gpipe").peak_inflight.tolist() == [M] * K
    assert simulate(t, M, "1f1b").peak_inflight.tolist() == np.minimum(M, K - k).tolist()
    peak = simulate(t, M, "kfkb", g).peak_inflight
    assert np.all(peak <= np.minimum(M, g * (K - k)))
    if M % g == 0:
        assert peak.tolist() == np.minimum(M, g * (K - k)).tolist()


def test_allreduce_tail_and_transfers_by_hand():
    # 2 stages, 1 microbatch: F0 [0,1], x 0.5, F1 [1.5,2.5], B1 [2.5,4.5], x 0.5, B0 [5,6];
    # stage 1's all-reduce 4 s after 4.5 -> 8.5; stage 0's 1 s after 6 -> 7
    t = times([1.0, 1.0], [1.0, 2.0], [0.5], [1.0, 4.0])
    sim = simulate(t, 1, "1f1b")
    assert sim.stage_end.tolist() == [6.0, 4.5]
    assert sim.makespan == 8.5
    # LB: k=0: 0 + 2 + max(0, 1) = 3; k=1: 1.5 + 3 + max(1.5, 4) = 8.5
    assert lower_bound(t, 1) == 8.5


def test_precedence_cycle_is_a_typed_error():
    t = times([1.0, 1.0], [1.0, 1.0], [0.0])
    overtaking = [[["F", 0], ["F", 1], ["B", 1], ["B", 0]],
                  [["F", 1], ["F", 0], ["B", 0], ["B", 1]]]  # microbatches overtake: valid, no cycle
    kind, mb = order_from_json(overtaking, 2, 2)
    assert simulate_order(t, 2, kind, mb).makespan > 0
    deadlock = [[["F", 0], ["B", 0], ["F", 1], ["B", 1]],
                [["F", 1], ["F", 0], ["B", 0], ["B", 1]]]  # stage 0 waits for B(1,0), stage 1 for F(0,1)
    kind, mb = order_from_json(deadlock, 2, 2)
    for engine in ("plain", "vectorized"):
        with pytest.raises(PrecedenceCycleError) as err:
            simulate_order(t, 2, kind, mb, engine=engine)
        assert err.value.field == "order"
        assert "precedence cycle" in str(err.value)
        assert isinstance(err.value, InvalidInstanceError) and err.value.exit_status == 2


@pytest.mark.parametrize("field,bad", [("forward", [1.0, -1.0]), ("backward", [1.0, float("nan")]),
                                       ("transfer", [-0.5]), ("allreduce", [0.0, -2.0])])
def test_negative_or_nan_durations_name_the_field(field, bad):
    t = times([1.0, 1.0], [1.0, 1.0])
    setattr(t, field, tuple(bad))
    with pytest.raises(InvalidInstanceError) as err:
        simulate(t, 2)
    assert err.value.field.startswith(field + "[")


def test_wrong_lengths_and_counts():
    with pytest.raises(InvalidInstanceError, match="transfer"):
        simulate(SimpleNamespace(forward=(1, 1), backward=(1, 1), transfer=(), allreduce=(0, 0)), 2)
    with pytest.raises(InvalidInstanceError, match="microbatches"):
        simulate(times([1.0], [1.0]), 0)
    with pytest.raises(InvalidOptionError, match="group_size"):
        simulate(times([1.0], [1.0]), 2, "kfkb", group_size=0)
    with pytest.raises(InvalidOptionError, match="schedule"):
        simulate(times([1.0], [1.0]), 2, "zb-h1")


def test_cap_below_need_and_below_one():
    t = times([1.0] * 3, [2.0] * 3)
    simulate(t, 4, "1f1b", inflight_cap=(3, 2, 1))  # exactly what 1F1B needs
    with pytest.raises(NotApplicable, match="stage 0"):  # the schedule, not the instance
        simulate(t, 4, "1f1b", inflight_cap=(2, 2, 1))
    with pytest.raises(InvalidInstanceError, match="inflight_cap"):
        simulate(t, 4, "1f1b", inflight_cap=(3, 0, 1))


def test_malformed_orders_name_the_entry():
    with pytest.raises(InvalidInstanceError) as err:
        order_from_json([[["F", 0], ["F", 0]]], 1, 1)
    assert err.value.field == "order[0][1]"
    with pytest.raises(InvalidInstanceError) as err:
        order_from_json([[["X", 0], ["B", 0]]], 1, 1)
    assert err.value.field == "order[0][0]"
    with pytest.raises(InvalidInstanceError) as err:
        order_from_json([[["F", 0]]], 1, 1)
    assert err.value.field == "order[0]"
