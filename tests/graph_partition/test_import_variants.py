"""Planetoid graphs and edge lists unlike Cora / Citeseer: another dataset's adjacency dict (plain
dict, pickle protocols 0 and 4), isolated nodes, self loops, duplicate neighbours, a test index with
CRLF and blank lines, gzip; edge lists with a header, weights, MatrixMarket, string ids, SNAP
comments, gzip."""

import collections
import gzip
import json
import pickle

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.problems.feature_cache.generate import import_planetoid_cache
from optsched.problems.graph_partition.generate import import_edge_list, import_planetoid

ADJ = {0: [1, 2, 2], 1: [0, 3], 2: [0, 2], 3: [1], 5: [6], 6: [5]}  # 4 isolated, 2-2 loop, 0-2 repeated


def _edges(inst):
    return sorted((min(u, v), max(u, v)) for u, v in inst.edges)


@pytest.mark.parametrize("protocol, cls", [(0, collections.defaultdict), (2, dict), (4, dict)])
def test_planetoid_other_dataset(tmp_path, protocol, cls):
    adj = cls(list) if cls is collections.defaultdict else cls()
    adj.update(ADJ)
    path = tmp_path / "ind.mine.graph"
    path.write_bytes(pickle.dumps(adj, protocol=protocol))
    # test nodes 6 and 8: 8 exists only in the index (an isolated test node, as in Citeseer)
    (tmp_path / "ind.mine.test.index").write_bytes(b"6\r\n8\r\n\r\n")
    inst = import_planetoid(path)
    assert inst.num_nodes == 9
    assert _edges(inst) == [(0, 1), (0, 2), (1, 3), (5, 6)]
    assert list(inst.train_nodes) == [0, 1, 2, 3, 4, 5, 7]
    assert "1 self-loops" in inst.provenance
    cache = import_planetoid_cache(path)
    assert cache.num_nodes == 9 and cache.capacity == 1  # 10% of 9 nodes, at least 1


def test_planetoid_neighbour_sets(tmp_path):
    path = tmp_path / "ind.sets.graph"
    path.write_bytes(pickle.dumps({0: {1, 2}, 1: frozenset({0}), 2: set()}, protocol=2))
    inst = import_planetoid(path)
    assert inst.num_nodes == 3 and _edges(inst) == [(0, 1), (0, 2)]
    path.write_bytes(pickle.dumps({0: {"a"}}, protocol=2))
    with pytest.raises(InvalidInstanceError, match="non-negative integers"):
        import_planetoid(path)


def test_planetoid_gzip_and_cli_end_to_end(tmp_path):
    path = tmp_path / "ind.mine.graph"
    path.write_bytes(gzip.compress(pickle.dumps(ADJ, protocol=2)))
    for fmt, problem in (("planetoid-graph", "graph-partition"), ("planetoid-cache", "feature-cache")):
        inst, res = tmp_path / f"{problem}.json", tmp_path / "r.json"
        assert main(["import", fmt, str(path), "-o", str(inst)]) == 0
        assert json.loads(inst.read_text())["num_nodes"] == 7
        assert main(["solve", problem, str(inst), "--time-limit", "20", "-o", str(res)]) == 0
        assert main(["check", problem, str(inst), str(res)]) == 0


def test_planetoid_huge_id_is_exit_2(tmp_path, capsys):
    path = tmp_path / "ind.big.graph"
    path.write_bytes(pickle.dumps({0: [1 << 40]}, protocol=2))
    assert main(["import", "planetoid-graph", str(path)]) == 2
    assert "node id" in capsys.readouterr().err


@pytest.mark.parametrize("name, text, nodes, edges", [
    ("hdr.csv", "source,target,weight\n10,20,1.5\n20,30,2\n30,10,1\n", 3, [(0, 1), (0, 2), (1, 2)]),
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n6 6 3\n2 1\n3 2\n4 3\n",
     6, [(0, 1), (1, 2), (2, 3)]),  # nodes 5 and 6 are isolated but declared
    ("snap.txt", "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n5\t2\n", 4,
     [(0, 1), (0, 2), (1, 2), (2, 3)]),
    ("names.txt", "alice bob\r\nbob carol\r\ncarol alice\r\ndave alice\r\n", 4, [(0, 1), (0, 2), (0, 3), (1, 2)]),
])
def test_edge_list_variants(tmp_path, name, text, nodes, edges):
    path = tmp_path / name
    path.write_text(text)
    inst = import_edge_list(path)
    assert inst.num_nodes == nodes and _edges(inst) == edges
    gz = tmp_path / (name + ".gz")
    gz.write_bytes(gzip.compress(text.encode()))
    assert _edges(import_edge_list(gz)) == edges


@pytest.mark.parametrize("text, words", [
    ("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", "square"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n", "announces 2 entries"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 9\n", "not in 1..3"),
    ("only\n", "expected two node ids"),
])
def test_edge_list_errors_are_exit_2(tmp_path, capsys, text, words):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert main(["import", "edge-list", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
