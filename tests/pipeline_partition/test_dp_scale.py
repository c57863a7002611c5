"""The threshold-search ``dp`` (issue 21) against the original n x n matrix DP, brute force and
``milp``; its search primitives against direct enumeration; its memory stays linear in n."""

from __future__ import annotations

import dataclasses
import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optsched
from optsched.core.solving import objective_tolerance
from optsched.pipeline import costs
from optsched.pipeline.partition import bottleneck as bottleneck_module
from optsched.pipeline.partition.dp import bottleneck_dp, order_space
from optsched.problems.pipeline_partition.generate import chain_instance
from optsched.problems.pipeline_partition.instance import check
from optsched.pipeline.partition.spaces import BlockOrder, Clustered, UniformOrder
from optsched.pipeline.partition.stages import StageCosts, last_true

from ._matrix_dp import matrix_bottleneck_dp

TOPOLOGIES = {"nvlink:3": 3, "nvlink:5": 5, "two-level:2x2:25:1": 4, "random:4": 4, "random:5": 5, "flat:4:10": 4,
              "two-level:2x3:10:0.5": 6}


def _random_chain(seed: int, topology: str, memory_binds: bool = True):
    """A random chain where transfers, all-reduce and (usually) memory all matter: activations
    and parameters of GB size against 2-30 GB devices, some zero-work positions, a random stage
    count, replica limit and schedule."""
    rng = np.random.default_rng(seed)
    N = TOPOLOGIES[topology]
    n = int(rng.integers(1, 13))
    work = list(rng.uniform(0.1, 1, n) * (rng.random(n) < 0.8))
    kw = {}
    if rng.random() < 0.3:
        kw["stages"] = int(rng.integers(1, min(n, N) + 1))
    if rng.random() < 0.4:
        kw["max_replicas"] = int(rng.integers(1, 3))
    inst = chain_instance(work, topology=topology, activation=list(rng.uniform(0, 3e9, n)),
                          parameters=list(rng.uniform(0, 2e9, n)), microbatches=int(rng.integers(1, 7)),
                          memory_gb=float(rng.uniform(2, 30)) if memory_binds else 1e6, **kw)
    return dataclasses.replace(inst, schedule=["1f1b", "gpipe", "kfkb"][seed % 3], group_size=2)


@pytest.mark.parametrize("search", ["floats", "candidates"])
@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_same_optimum_as_the_matrix_dp(topology, search, monkeypatch):
    """Bit-identical optimum (the same float) on 15 random chains per graph, memory binding or
    not, fixed or free K, by either threshold search (over all floats, or over the enumerated
    candidate values of short chains); the returned plan passes the checker at that value."""
    if search == "floats":
        monkeypatch.setattr(bottleneck_module, "CANDIDATE_LIMIT", 0)
    feasible = 0
    for seed in range(10 if search == "floats" else 15):
        inst = _random_chain(seed, topology, memory_binds=seed % 5 != 0)
        space = order_space(inst)
        old_value, old_plan = matrix_bottleneck_dp(inst, space)
        value, plan = bottleneck_dp(inst, space)
        assert value == old_value, (seed, value, old_value)
        assert (plan is None) == (old_plan is None)
        if plan is not None:
            feasible += 1
            report = check(dataclasses.replace(inst, objective="bottleneck"), plan.solution())
            assert report.feasible, report.violations
            assert abs(report.objective - value) <= 1e-12 * max(1.0, value)
    assert feasible >= 3  # the comparison is not only about infeasible instances


def test_the_spaces_are_all_exercised():
    kinds = {type(order_space(_random_chain(s, t))) for s in range(3) for t in TOPOLOGIES}
    assert kinds == {UniformOrder, Clustered, BlockOrder}


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), topology=st.sampled_from(sorted(TOPOLOGIES)))
def test_property_same_optimum_as_the_matrix_dp(seed, topology):
    inst = _random_chain(seed, topology)
    space = order_space(inst)
    expected = matrix_bottleneck_dp(inst, space)[0]
    assert bottleneck_dp(inst, space)[0] == expected
    limit = bottleneck_module.CANDIDATE_LIMIT
    try:
        bottleneck_module.CANDIDATE_LIMIT = 0
        assert bottleneck_dp(inst, space)[0] == expected
    finally:
        bottleneck_module.CANDIDATE_LIMIT = limit


def _brute(inst) -> float:
    """Every cut set x every assignment of devices to stages, feasibility and value by the checker
    (an independent route: no prefix sums, no threshold)."""
    n, N = inst.num_positions, inst.num_devices
    best = float("inf")
    for K in inst.stage_counts():
        for cuts in itertools.combinations(range(1, n), K - 1):
            for labels in itertools.product(range(-1, K), repeat=N):
                groups = [[d for d in range(N) if labels[d] == k] for k in range(K)]
                if any(not g or len(g) > inst.replica_limit for g in groups):
                    continue
                rep = check(inst, {"cuts": list(cuts), "devices": groups})
                if rep.feasible:
                    best = min(best, rep.objective)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_dp_equals_brute_force_and_milp_when_memory_binds(seed):
    topology = ["nvlink:3", "two-level:2x2:25:1"][seed % 2]
    rng = np.random.default_rng(100 + seed)
    n = 5
    inst = chain_instance(list(rng.uniform(0.1, 1, n)), topology=topology, activation=list(rng.uniform(0, 3e9, n)),
                          parameters=list(rng.uniform(0.5e9, 2e9, n)), microbatches=3, memory_gb=12.0)
    truth = _brute(inst)
    d = optsched.solve(inst, "dp")
    if truth == float("inf"):
        assert d.status == "infeasible"
        return
    m = optsched.solve(inst, "milp")
    assert d.status == m.status == "optimal"
    assert abs(d.objective - truth) <= objective_tolerance(truth)
    assert abs(m.objective - truth) <= objective_tolerance(truth)


def test_memory_decides_the_plan():
    """A chain where the unconstrained optimum does not fit: the dp must move off it (catches a
    probe that ignores memory)."""
    inst = chain_instance([1, 1, 1, 1], topology="nvlink:2", parameters=[3e9, 0, 0, 0], max_replicas=1,
                          memory_gb=1e6)
    free = bottleneck_dp(inst, order_space(inst))
    tight = dataclasses.replace(inst, device_memory_bytes=(12.5e9, 12.5e9))  # 3e9 x 4 = 12 GB of state
    tight2 = dataclasses.replace(inst, device_memory_bytes=(12e9 * 0.999, 12e9 * 0.999))
    assert free[1].bounds == [(0, 2), (2, 4)]
    assert bottleneck_dp(tight, order_space(tight))[0] == free[0]
    assert bottleneck_dp(tight2, order_space(tight2)) == (float("inf"), None)


def test_transfers_decide_the_cut():
    """The cheapest cut by transfer is not the balanced one (catches a probe that ignores cuts)."""
    inst = chain_instance([1, 1, 1, 1], topology="flat:2:1", activation=[9e9, 1e9, 9e9, 0], max_replicas=1,
                          memory_gb=1e6)
    value, plan = bottleneck_dp(inst, order_space(inst))
    assert plan.bounds == [(0, 2), (2, 4)] and value == 2.0
    inst = dataclasses.replace(inst, activation_bytes=(9e9, 9e9, 1e9, 0))
    value, plan = bottleneck_dp(inst, order_space(inst))
    assert plan.bounds == [(0, 3), (3, 4)] and value == 3.0


@settings(max_examples=60)
@given(data=st.data())
def test_last_true_matches_a_scan(data):
    size = data.draw(st.integers(1, 6))
    lo = np.array(data.draw(st.lists(st.integers(-1, 40), min_size=size, max_size=size)))
    width = np.array(data.draw(st.lists(st.integers(0, 600), min_size=size, max_size=size)))
    hi = lo + width
    answer = lo + np.array([data.draw(st.integers(0, int(w))) for w in width])
    guess = data.draw(st.one_of(st.none(), st.just(answer + np.array(
        data.draw(st.lists(st.integers(-300, 300), min_size=size, max_size=size))))))
    seen = []

    def pred(sel, x):
        assert np.all(x > lo[sel]) and np.all(x <= hi[sel])  # never evaluates lo, stays in range
        seen.append(len(x))
        return x <= answer[sel]

    assert np.array_equal(last_true(pred, lo, hi, guess), answer)


def test_a_good_guess_saves_evaluations():
    lo, hi, answer = np.zeros(3, int), np.full(3, 10_000), np.array([17, 4000, 9999])
    calls = []

    def pred(sel, x):
        calls.append(1)
        return x <= answer[sel]

    last_true(pred, lo, hi, answer)
    assert len(calls) == 2
    calls.clear()
    last_true(pred, lo, hi)
    assert len(calls) >= 13


def test_stage_arithmetic_matches_the_checker():
    rng = np.random.default_rng(3)
    inst = chain_instance(list(rng.uniform(0.1, 1, 9)), topology="nvlink:4", activation=list(rng.uniform(0, 1e9, 9)),
                          parameters=list(rng.uniform(0, 1e9, 9)), microbatches=4, memory_gb=8.0)
    ch = StageCosts(inst)
    space = order_space(inst)
    for r in (1, 2, 3):
        g = space.group((4, r))
        i, j = np.meshgrid(np.arange(10), np.arange(10), indexing="ij")
        up = i < j
        t = ch.time(r, g.speed, g.bandwidth, i[up], j[up])
        tv = ch.time(np.full(up.sum(), r), g.speed, g.bandwidth, i[up], j[up])
        assert np.array_equal(t, tv)  # scalar and per-element replica counts give the same floats
        for (a, b), value in zip(zip(i[up], j[up]), t):
            st_ = costs.stage_times_of(inst, [(int(a), int(b))], [list(range(r))])
            by_model = st_.forward[0] + st_.backward[0] + st_.allreduce[0]
            assert abs(value - by_model) <= 1e-12 * max(1.0, by_model)
        # reach / first are the exact inverse of each other under a threshold
        T = float(np.median(t))
        e = ch.reach(g, 2, T, np.arange(9))
        f = ch.first(r, g.speed, g.bandwidth, g.memory, 2, T, np.arange(1, 10))
        for s in range(9):
            fits = [b for b in range(s + 1, 10) if ch.ok(r, g.speed, g.bandwidth, g.memory, 2, T, s, b)]
            assert e[s] == (max(fits) if fits else s)
        for b in range(1, 10):
            fits = [s for s in range(b) if ch.ok(r, g.speed, g.bandwidth, g.memory, 2, T, s, b)]
            assert f[b - 1] == (min(fits) if fits else b)


def test_prefix_bound_matches_the_matrix_version():
    rng = np.random.default_rng(5)
    inst = chain_instance(list(rng.uniform(0.1, 1, 11) * (rng.random(11) < 0.8)), topology="nvlink:4",
                          objective="sync-estimate")
    ch = StageCosts(inst)
    n, N, R = ch.n, inst.num_devices, inst.replica_limit
    work = (ch.work[None, :] - ch.work[:, None]) / ch.max_speed
    upper = np.triu(np.ones((n + 1, n + 1), bool), 1)
    G = np.full((N + 1, n + 1), np.inf)
    G[0, 0] = 0.0
    for p in range(1, N + 1):
        best = G[p - 1].copy()
        for r in range(1, min(p, R) + 1):
            best = np.minimum(best, np.where(upper, np.maximum(G[p - r][:, None], work / r), np.inf).min(axis=0))
        G[p] = best
    assert np.array_equal(ch.prefix_minmax, G)


def test_memory_is_linear_in_the_chain():
    """2,000 positions, 4 devices, 3 stages (the reachability probe): one (n+1)^2 float matrix
    alone would take 32 MB; the probe keeps a few vectors of n per key."""
    rng = np.random.default_rng(0)
    n = 2000
    inst = chain_instance(list(rng.uniform(1e-3, 1e-2, n)), topology="nvlink:4",
                          activation=list(rng.uniform(1e5, 1e7, n)), parameters=list(rng.uniform(0, 1e6, n)),
                          stages=3)
    tracemalloc.start()
    try:
        value, plan = bottleneck_dp(inst, order_space(inst))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert plan is not None and len(plan.bounds) == 3
    assert peak < 8e6, peak


@pytest.mark.parametrize("topology", ["flat:4:1", "two-level:2x2:1:1.5"])
def test_fixed_stage_count_pays_every_cut(topology):
    """K = 4 is fixed, the cut after position 0 is free and the others cost a 10 s transfer: no
    empty stage may reuse the free cut to dodge the expensive ones."""
    inst = chain_instance([1, 1, 1, 1], stages=4, topology=topology, activation=[0, 10e9, 10e9, 0],
                          max_replicas=1, memory_gb=1e6)
    value, plan = bottleneck_dp(inst, order_space(inst))
    bw = float(inst.widest[0, 1])
    assert len(plan.bounds) == 4 and value == max(10e9 / bw, 1.0)


def test_in_flight_count_grows_along_the_suffix():
    """1F1B, M = 4: the first of 3 stages keeps 3 microbatches in flight, the last one 1. Memory
    admits the heavy stash only at the end of the pipeline (catches a probe that charges every
    stage the largest in-flight count)."""
    inst = chain_instance([1, 1, 1], topology="nvlink:3", activation=[0, 0, 3e9], max_replicas=1,
                          microbatches=4, memory_gb=4.0)
    value, plan = bottleneck_dp(inst, order_space(inst))
    assert value == 1.0 and plan.bounds == [(0, 1), (1, 2), (2, 3)]
    assert value == matrix_bottleneck_dp(inst, order_space(inst))[0]
