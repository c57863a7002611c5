"""feature-cache: MIN against exact DP and every policy (no policy beats MIN), the checker, sampling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.graphs import Graph
from optsched.problems.feature_cache import (FeatureCacheInstance, access_sequence, belady_min, exact_dp, fifo,
                                             import_planetoid_cache, lru, static_degree)
from optsched.problems.feature_cache.algorithms import misses_of
from tests.conftest import require_data

reads_st = st.lists(st.integers(0, 5), min_size=1, max_size=12)


@given(reads_st, st.integers(1, 3))
def test_min_equals_exact_dp_and_no_policy_beats_it(reads, capacity):
    best = misses_of(reads, belady_min(reads, capacity), capacity)
    assert best == exact_dp(reads, capacity)
    priority = [float((7 * v) % 5) for v in range(6)]
    for evict in (fifo(reads, capacity), lru(reads, capacity), static_degree(reads, capacity, priority)):
        assert misses_of(reads, evict, capacity) >= best


@given(st.lists(st.integers(0, 30), min_size=1, max_size=300), st.integers(1, 8))
def test_no_policy_beats_min_through_the_checker(reads, capacity):
    inst = FeatureCacheInstance(num_nodes=31, accesses=tuple(reads), capacity=capacity,
                                priority=tuple(float(v % 7) for v in range(31)))
    opt = optsched.solve(inst, "min")
    assert opt.status == "optimal"
    for m in ("fifo", "lru", "static"):
        r = optsched.solve(inst, m)
        assert r.status == "feasible" and r.objective >= opt.objective
    assert opt.objective >= inst.compulsory_misses


def test_policies_by_hand():
    reads = [0, 1, 2, 0, 1, 3, 0]
    assert misses_of(reads, belady_min(reads, 2), 2) == 4  # 0 1 2(bypass) 3(bypass)
    assert misses_of(reads, fifo(reads, 2), 2) == 7  # FIFO thrashes on this loop
    assert misses_of(reads, lru(reads, 2), 2) == 7
    # LRU and FIFO differ once a hit refreshes recency
    reads = [0, 1, 0, 2, 0]
    assert misses_of(reads, lru(reads, 2), 2) == 3 < misses_of(reads, fifo(reads, 2), 2) == 4
    # the static cache keeps the high-priority node 3 although it is read once before others
    assert static_degree([3, 1, 2, 3], 1, [0, 0, 0, 9]) == [-1, 1, 2, -1]


def test_bypass_matters_for_min():
    # reading a node never read again must not evict one read soon
    reads = [0, 1, 9, 0, 1]
    assert misses_of(reads, belady_min(reads, 2), 2) == 3


def test_checker_rejects_bad_evictions():
    inst = FeatureCacheInstance(num_nodes=3, accesses=(0, 1, 2, 0), capacity=2)
    assert optsched.check(inst, {"evict": [-1, -1, 0, -1]}).objective == 4
    assert not optsched.check(inst, {"evict": [-1, -1, -1, -1]}).feasible  # full cache must evict
    assert not optsched.check(inst, {"evict": [-1, -1, 7, -1]}).feasible
    assert not optsched.check(inst, {"evict": [-1, -1, 1, 2]}).feasible  # read 3 (node 0, kept) is a hit: no eviction allowed
    rep = optsched.check(inst, {"evict": [-1, -1, 1, -1]})
    assert rep.feasible and rep.objective == 3 and rep.details["hit_ratio"] == 0.25


@pytest.mark.parametrize("change", [{"capacity": 0}, {"accesses": (0, 5)}, {"priority": (1.0,)}, {"accesses": ()}])
def test_invalid_instances(change):
    base = dict(num_nodes=3, accesses=(0, 1), capacity=1)
    with pytest.raises(InvalidInstanceError):
        FeatureCacheInstance(**{**base, **change})


def test_access_sequence_reads_each_batch_neighbourhood_once():
    g = Graph.from_edges(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    reads = access_sequence(g, [0, 5], 1, (1,), "proximity", np.random.default_rng(0))
    # two batches of one seed each, one hop with fan-out 1 on a path end: seed + its only neighbour
    assert sorted(reads.tolist()) == [0, 1, 4, 5]


def test_proximity_order_changes_the_sequence():
    from optsched.problems.feature_cache import generate

    a = generate(0, nodes=300, order="random")
    b = generate(0, nodes=300, order="proximity")
    assert a.accesses != b.accesses


def test_real_cora_reads():
    path = require_data("graphs/planetoid/ind.cora.graph")
    inst = import_planetoid_cache(path)
    opt = optsched.solve(inst, "min")
    for m in ("fifo", "lru", "static"):
        assert optsched.solve(inst, m).objective >= opt.objective
