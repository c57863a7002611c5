"""graph-partition importers against values computed by hand from the source formats.

``edge-list``: integer ids are ranked numerically (2 < 9 < 10 < 100, not the string order
"10" < "100" < "2" < "9"), non-contiguous ids give as many nodes as distinct ids (not max id + 1),
named ids are numbered in order of first appearance, a header line is skipped, MatrixMarket ids are
1-based. ``planetoid-graph``: node ids are the dict's integers, n = 1 + the largest id seen (test
index included), training nodes = every node not in the test index. Defaults: K = min(4, n),
fan-outs (10, 5), eps 0.05 raised to ceil(count/K) K / count - 1 when that is larger.
"""

from __future__ import annotations

import pickle

import pytest

from optsched.problems.graph_partition.generate import import_edge_list, import_planetoid

from tests.conftest import require_data
from tests.planetoid_files import read_adjacency


def _edges(inst):
    return sorted((min(u, v), max(u, v)) for u, v in inst.edges)


def test_edge_list_ids_are_ranked_numerically(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a comment\n10 9\n9 100\n100 10\n2 9\n")
    inst = import_edge_list(path)
    # ranks by value: 2 -> 0, 9 -> 1, 10 -> 2, 100 -> 3
    assert inst.num_nodes == 4                      # four distinct ids, not 101
    assert _edges(inst) == [(0, 1), (1, 2), (1, 3), (2, 3)]  # (2,9) (9,10) (9,100) (10,100)
    # a string ranking ("10" < "100" < "2" < "9") would give (2,3) (0,3) (1,3) (0,2) instead
    assert _edges(inst) != sorted([(2, 3), (0, 3), (1, 3), (0, 2)])
    assert list(inst.train_nodes) == [0, 1, 2, 3]   # every node is a seed
    assert inst.num_parts == 4 and tuple(inst.fanouts) == (10, 5)
    assert inst.eps_train == 0.05 and inst.eps_nodes == 0.05  # ceil(4/4) 4/4 - 1 = 0 < 0.05
    assert "numeric order" in inst.provenance


def test_edge_list_leading_zeros_header_and_names(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("source,target,weight\n007,20,1.5\n20,7,2\n30,20,0\n")
    inst = import_edge_list(path)
    # header skipped; "007" and "7" are one node: ids 7, 20, 30 -> 0, 1, 2; (7,20) twice = one edge
    assert inst.num_nodes == 3 and _edges(inst) == [(0, 1), (1, 2)]
    assert "1 repeated edges merged" in inst.provenance
    path = tmp_path / "n.txt"
    path.write_text("carol bob\nbob alice\nalice carol\ndave bob\n")
    inst = import_edge_list(path)
    # first appearance: carol 0, bob 1, alice 2, dave 3 (not alphabetical: alice would be 0)
    assert inst.num_nodes == 4 and _edges(inst) == [(0, 1), (0, 2), (1, 2), (1, 3)]
    # K = min(4, 3) = 3 on three nodes; eps_nodes = ceil(3/3) 3/3 - 1 = 0 -> stays 0.05
    three = tmp_path / "t.txt"
    three.write_text("1 2\n2 3\n")
    small = import_edge_list(three)
    assert small.num_parts == 3 and small.eps_nodes == 0.05


def test_edge_list_five_nodes_raise_eps(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n3 4\n4 5\n")
    inst = import_edge_list(path)
    # K = 4, n = 5: ceil(5/4) = 2 per part, 2 * 4 / 5 - 1 = 0.6
    assert inst.num_parts == 4 and inst.eps_nodes == pytest.approx(0.6, rel=1e-12)
    assert inst.eps_train == pytest.approx(0.6, rel=1e-12)


def test_matrix_market_is_one_based_with_isolated_nodes(tmp_path):
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n4 4 2\n3 1\n4 3\n")
    inst = import_edge_list(path)
    # nodes 1..4 -> 0..3; node 2 (index 1) is isolated but exists
    assert inst.num_nodes == 4 and _edges(inst) == [(0, 2), (2, 3)]


def test_planetoid_ids_test_index_and_training_nodes(tmp_path):
    path = tmp_path / "ind.toy.graph"
    path.write_bytes(pickle.dumps({0: [1, 2], 1: [0], 2: [0, 3], 3: [2], 4: []}, protocol=2))
    (tmp_path / "ind.toy.test.index").write_text("3\n6\n")
    inst = import_planetoid(path)
    # n = 1 + max(4 in the dict, 6 in the test index) = 7; nodes 5 and 6 are isolated
    assert inst.num_nodes == 7
    assert _edges(inst) == [(0, 1), (0, 2), (2, 3)]
    assert list(inst.train_nodes) == [0, 1, 2, 4, 5]   # every node but the test nodes 3 and 6
    # K = 4; train 5: ceil(5/4) 4/5 - 1 = 0.6; nodes 7: ceil(7/4) 4/7 - 1 = 1/7
    assert inst.num_parts == 4
    assert inst.eps_train == pytest.approx(0.6, rel=1e-12) and inst.eps_nodes == pytest.approx(1 / 7, rel=1e-12)


@pytest.mark.data
def test_real_cora_against_the_pickle_read_directly():
    path = require_data("graphs/planetoid/ind.cora.graph")
    adj = read_adjacency(path)
    test = {int(x) for x in path.with_name("ind.cora.test.index").read_text().split()}
    n = 1 + max(max(adj), max(v for nb in adj.values() for v in nb), max(test))
    pairs = {(min(u, v), max(u, v)) for u, nb in adj.items() for v in nb if u != v}
    inst = import_planetoid(path)
    assert inst.num_nodes == n == 2708
    assert len(inst.edges) == len(pairs)
    assert set(_edges(inst)) == pairs
    assert list(inst.train_nodes) == sorted(set(range(n)) - test)
