"""optsched.graphs.sampling and optsched.graphs.io."""

from __future__ import annotations

import pickle
from collections import defaultdict

import numpy as np
import pytest

from optsched.graphs import Graph
from optsched.graphs.io import read_edge_list, read_index_file, read_planetoid_graph
from optsched.graphs.sampling import (bfs_ball, bfs_order, power_law_graph, sample_neighbourhoods,
                                      sampling_edge_weights)


def test_sampling_weights_match_a_monte_carlo_estimate():
    # a small graph with varied degrees; expected traversals vs the average of simulated epochs
    g = Graph.from_edges(6, [(0, 1), (0, 2), (0, 3), (1, 2), (3, 4), (4, 5), (2, 5)])
    seeds, fanouts = [0, 4], [2, 1]
    exact = sampling_edge_weights(g, seeds, fanouts)
    rng = np.random.default_rng(0)
    nbrs = {v: [] for v in range(6)}
    for e, (u, v) in enumerate(zip(g.src.tolist(), g.dst.tolist())):
        nbrs[u].append((v, e))
        nbrs[v].append((u, e))
    counts = np.zeros(g.num_edges)
    epochs = 5_000
    for _ in range(epochs):
        frontier = list(seeds)
        for f in fanouts:
            nxt = []
            for u in frontier:  # every visit samples independently (no de-duplication)
                pick = rng.choice(len(nbrs[u]), size=min(f, len(nbrs[u])), replace=False)
                for k in pick:
                    v, e = nbrs[u][k]
                    counts[e] += 1
                    nxt.append(v)
            frontier = nxt
    # per-epoch traversals of an edge are at most 3 here (variance <= 2.25): with 5,000 epochs the
    # standard error of each mean is <= 0.022; 0.07 is three of them
    assert np.allclose(counts / epochs, exact, atol=0.07)


def test_sample_neighbourhoods_respects_fanout_and_dedups():
    star = Graph.from_edges(6, [(0, v) for v in range(1, 6)])
    reads = sample_neighbourhoods(star, [[0], [0, 1]], [2], np.random.default_rng(0))
    assert len(reads[0]) == 3 and reads[0][0] == 0
    assert len(set(reads[1].tolist())) == len(reads[1])


def test_bfs_order_visits_seeds_by_proximity():
    path = Graph.from_edges(6, [(i, i + 1) for i in range(5)])
    assert bfs_order(path, [5, 0, 3]).tolist() == [0, 3, 5]
    two = Graph.from_edges(4, [(0, 1), (2, 3)])
    assert sorted(bfs_order(two, [3, 1], np.random.default_rng(0)).tolist()) == [1, 3]


def test_power_law_graph_is_simple_and_heavy_tailed():
    g = power_law_graph(20_000, 8.0, np.random.default_rng(0))
    assert np.all(g.src < g.dst) and len(np.unique(g.src * g.num_nodes + g.dst)) == g.num_edges
    deg = g.degree()
    assert 6.0 < deg.mean() <= 8.0 and deg.max() > 10 * deg.mean()


def test_bfs_ball():
    path = Graph.from_edges(6, [(i, i + 1) for i in range(5)])
    ball, ids = bfs_ball(path, 2, 3)
    assert ids.tolist() == [2, 1, 3] and ball.num_edges == 2


def test_readers(tmp_path):
    d = defaultdict(list)
    d[0] = [1, 1, 0]
    d[1] = [0]
    (tmp_path / "ind.x.graph").write_bytes(pickle.dumps(d, protocol=2))
    (tmp_path / "ind.x.test.index").write_text("3\n\n2\n")
    gf, test = read_planetoid_graph(tmp_path / "ind.x.graph", tmp_path / "ind.x.test.index")
    assert gf.graph.num_nodes == 4 and gf.graph.num_edges == 1 and gf.self_loops == 1 and gf.duplicates == 1
    assert test.tolist() == [3, 2]
    (tmp_path / "bad.index").write_text("1\nx\n")
    with pytest.raises(ValueError, match="line 2"):
        read_index_file(tmp_path / "bad.index")
    (tmp_path / "e.txt").write_text("5 7\n007 9\n")
    gf = read_edge_list(tmp_path / "e.txt")
    assert gf.labels == ("5", "7", "9") and gf.graph.num_edges == 2
    (tmp_path / "loops.txt").write_text("1 1\n")
    gf = read_edge_list(tmp_path / "loops.txt")
    assert gf.graph.num_nodes == 1 and gf.graph.num_edges == 0 and gf.self_loops == 1
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(ValueError, match="no edges"):
        read_edge_list(tmp_path / "empty.txt")
