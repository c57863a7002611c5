"""The shared partition, refinement and placement primitives (optsched.graphs)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optsched.core.backends import SolverSettings, get_backend
from optsched.graphs import (Graph, balance_capacities, decode_assignment, edge_cut, fill_in_order, fm_refine,
                             hash_partition, is_balanced, metis_partition, min_cut_model, pairwise_kl_refine,
                             part_loads, random_partition, rebalance, shuffled_fill)


def _random_graph(n, p, seed, weighted=True):
    rng = np.random.default_rng(seed)
    edges = [(u, v, float(rng.integers(1, 6)) if weighted else 1.0)
             for u in range(n) for v in range(u + 1, n) if rng.random() < p]
    return Graph.from_edges(n, edges)


def _two_cliques(size=5):
    edges = [(u, v) for u in range(size) for v in range(u + 1, size)]
    edges += [(u + size, v + size) for u, v in edges] + [(0, size)]
    return Graph.from_edges(2 * size, edges)


def _brute_cut(graph, k, node_weights, caps, fixed=None):
    """Every assignment in k^n; capacities tested directly on sums of weights."""
    best = np.inf
    for parts in itertools.product(range(k), repeat=graph.num_nodes):
        if fixed and any(parts[v] != p for v, p in fixed.items()):
            continue
        ok = all(sum(node_weights[c][v] for v in range(graph.num_nodes) if parts[v] == p) <= caps[c][p] + 1e-9
                 for c in range(len(caps)) for p in range(k))
        if ok:
            best = min(best, sum(w for u, v, w in zip(graph.src, graph.dst, graph.weight) if parts[u] != parts[v]))
    return best


def test_loads_and_capacities():
    w = np.array([[1, 1, 1, 1], [1, 0, 0, 1]], float)
    assert part_loads([0, 0, 1, 1], 2, w).tolist() == [[2, 2], [1, 1]]
    caps = balance_capacities(w, 2, [0.0, 0.5])
    assert caps.tolist() == [[2, 2], [1.5, 1.5]]
    assert is_balanced([0, 1, 0, 1], w, caps)
    assert not is_balanced([0, 0, 0, 1], w, caps)
    with pytest.raises(ValueError):
        part_loads([0, 2], 2)


def test_metis_finds_the_bridge_and_balances_two_constraints():
    g = _two_cliques()
    parts = metis_partition(g, 2, seed=1)
    assert edge_cut(g, parts) == 1.0
    w = np.vstack([np.ones(10), (np.arange(10) % 3 == 0).astype(float)])
    parts = metis_partition(g, 2, w, eps=0.05)
    assert part_loads(parts, 2, w)[0].tolist() == [5, 5]


def test_metis_uses_edge_weights():
    # a 4-cycle with two heavy opposite edges: the cut must keep both heavy edges inside
    g = Graph.from_edges(4, [(0, 1, 100), (1, 2, 1), (2, 3, 100), (3, 0, 1)])
    parts = metis_partition(g, 2)
    assert edge_cut(g, parts) == 2.0


def test_hash_and_random_partitions_are_balanced():
    assert hash_partition(5, 2).tolist() == [0, 1, 0, 1, 0]
    parts = random_partition(11, 3, np.random.default_rng(0))
    assert sorted(np.bincount(parts).tolist()) == [3, 4, 4]


@given(st.integers(6, 14), st.integers(0, 10_000), st.integers(2, 3))
def test_fm_never_worse_and_keeps_balance(n, seed, k):
    g = _random_graph(n, 0.4, seed)
    w = np.ones((1, n))
    caps = np.full((1, k), float(-(-n // k) + 1))  # one node of slack over the balanced start
    start = random_partition(n, k, np.random.default_rng(seed))
    assert is_balanced(start, w, caps)
    out = fm_refine(g, start, k, w, caps)
    assert g.cut_weight(out) <= g.cut_weight(start) + 1e-9
    assert is_balanced(out, w, caps)


def test_fm_improves_a_bad_split():
    g = _two_cliques()
    start = np.array([0, 1] * 5)
    out = fm_refine(g, start, 2, np.ones((1, 10)), np.full((1, 2), 6.0))
    assert g.cut_weight(out) == 1.0 < g.cut_weight(start)


def test_fm_hill_climbs_through_a_negative_move():
    # a 10-node graph (found by a seeded search) on which stopping at the first non-improving
    # move (patience 1, no hill climbing) keeps cut 4, while the full pass reaches 3
    edges = [(0, 3), (1, 2), (1, 9), (2, 4), (2, 5), (2, 7), (3, 7), (3, 8), (4, 6), (5, 7), (6, 7), (7, 9)]
    g = Graph.from_edges(10, edges)
    start = np.array([1, 0, 1, 1, 1, 0, 0, 0, 0, 1])
    caps = np.full((1, 2), 6.0)
    greedy = fm_refine(g, start, 2, np.ones((1, 10)), caps, patience=1)
    full = fm_refine(g, start, 2, np.ones((1, 10)), caps)
    assert g.cut_weight(full) == 3.0 < g.cut_weight(greedy) == 4.0


def test_fm_respects_fixed_nodes():
    g = _two_cliques()
    start = np.array([0] * 5 + [1] * 5)
    start[0] = 1
    out = fm_refine(g, start, 2, np.ones((1, 10)), np.full((1, 2), 6.0), fixed=[0])
    assert out[0] == 1


def test_rebalance_repairs_and_is_a_no_op_when_balanced():
    g = _two_cliques()
    over = np.array([0] * 8 + [1] * 2)
    caps = np.full((1, 2), 5.0)
    fixed = rebalance(g, over, 2, np.ones((1, 10)), caps)
    assert is_balanced(fixed, np.ones((1, 10)), caps)
    good = np.array([0] * 5 + [1] * 5)
    assert rebalance(g, good, 2, np.ones((1, 10)), caps).tolist() == good.tolist()


def test_rebalance_swaps_when_no_single_move_fits():
    """Part 0 holds both training nodes (capacity 1 each); part 1 is full by count, so no single
    move fits: a swap of a training node with a node of part 1 does, and one of least cut is
    chosen (0<->2 and 1<->3 leave one cut edge, 0<->3 and 1<->2 two)."""
    g = Graph.from_edges(4, [(1, 2), (2, 3)])
    weights = np.array([[1.0, 1, 1, 1], [1, 1, 0, 0]])      # count; training nodes
    caps = np.array([[2.0, 2.0], [1.0, 1.0]])
    start = np.array([0, 0, 1, 1])
    fixed = rebalance(g, start, 2, weights, caps)
    assert is_balanced(fixed, weights, caps)
    assert fixed.tolist() in ([1, 0, 0, 1], [0, 1, 1, 0]) and g.cut_weight(fixed) == 1.0
    with pytest.raises(ValueError):  # nothing can move: both nodes of part 1 frozen
        rebalance(g, start, 2, weights, caps, fixed=[2, 3])


def test_pairwise_kl_keeps_sizes_and_improves():
    g = _two_cliques()
    start = [0, 1] * 5
    out = pairwise_kl_refine(g, start)
    assert sorted(out) == sorted(start)
    assert g.cut_weight(out) == 1.0


def test_fills():
    assert fill_in_order({2: 1, 0: 2}) == [2, 0, 0]
    out = shuffled_fill({0: 2, 1: 2}, np.random.default_rng(1))
    assert sorted(out) == [0, 0, 1, 1]


@pytest.mark.parametrize("seed", range(4))
def test_min_cut_model_equals_brute_force(seed):
    g = _random_graph(6, 0.5, seed)
    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    w = np.vstack([np.ones(6), (rng.random(6) < 0.5).astype(float)])
    caps = np.vstack([np.full(k, 3.0), np.full(k, np.ceil(w[1].sum() / k))])
    fixed = {0: 0}
    model, used = min_cut_model(6, g.src, g.dst, g.weight, caps, node_weights=w, fixed=fixed)
    sol = get_backend("highs").solve(model, SolverSettings())
    ref = _brute_cut(g, k, w.tolist(), caps.tolist(), fixed)
    if sol.status == "infeasible":
        assert ref == np.inf
        return
    parts = decode_assignment(model, sol.x, used)
    assert sol.status == "optimal"
    assert g.cut_weight(parts) == pytest.approx(ref) == pytest.approx(sol.objective)
    assert parts[0] == 0 and is_balanced(parts, w, caps)


def test_min_cut_model_skips_parts_without_capacity():
    model, used = min_cut_model(3, [0, 1], [1, 2], [1.0, 1.0], [0, 2, 2])
    assert used == [1, 2]
    assert model.block_values(np.zeros(model.num_cols), "x").shape == (3, 2)
