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
    inst, res = tmp_path / "instance.json", tmp_path / "r.json"
    assert main(["import", "planetoid-graph", str(path), "-o", str(inst)]) == 0
    assert json.loads(inst.read_text())["num_nodes"] == 7
    assert main(["solve", "graph-partition", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "graph-partition", str(inst), str(res)]) == 0


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


def test_planetoid_numpy_integer_keys_and_gz_name(tmp_path):
    # a dict written from numpy arrays holds np.int64 keys and neighbours; a gzipped file named
    # ind.<name>.graph.gz still finds its test index
    import numpy as np

    adj = collections.defaultdict(list)
    for u, v in ((0, 1), (1, 2), (2, 3)):
        adj[np.int64(u)].append(np.int64(v))
        adj[np.int64(v)].append(np.int32(u))
    path = tmp_path / "ind.np.graph.gz"
    path.write_bytes(gzip.compress(pickle.dumps(adj, protocol=2)))
    (tmp_path / "ind.np.test.index").write_text("3\n")
    inst = import_planetoid(path)
    assert inst.num_nodes == 4 and _edges(inst) == [(0, 1), (1, 2), (2, 3)]
    assert list(inst.train_nodes) == [0, 1, 2]
    # a float scalar is no node id: still refused
    path.write_bytes(pickle.dumps({0: [np.float64(1.0)]}, protocol=2))
    with pytest.raises(InvalidInstanceError):
        import_planetoid(path)


@pytest.mark.parametrize("n", [5_000, pytest.param(19_717, marks=pytest.mark.slow)])
def test_unseen_planetoid_partitions_with_every_method(tmp_path, n):
    # a held-out-like citation graph (19,717 nodes and about 59,000 edges: Pubmed's node count),
    # written by the test itself: import, then every partitioning method through the command line
    import numpy as np

    rng = np.random.default_rng(5)
    src = rng.integers(0, n, 3 * n)
    dst = np.clip(src + rng.integers(-300, 300, 3 * n), 0, n - 1)  # local edges: a citation-like band
    adj = collections.defaultdict(list)
    for u, v in zip(src.tolist(), dst.tolist()):
        adj[u].append(v)
        adj[v].append(u)
    path = tmp_path / "ind.heldout.graph"
    path.write_bytes(pickle.dumps(adj, protocol=2))
    (tmp_path / "ind.heldout.test.index").write_text("\n".join(map(str, range(n - 1000, n))) + "\n")
    inst_path = tmp_path / "g.json"
    assert main(["import", "planetoid-graph", str(path), "-o", str(inst_path)]) == 0
    data = json.loads(inst_path.read_text())
    assert data["num_nodes"] == n and len(data["train_nodes"]) == n - 1000
    import optsched

    problem = optsched.get_problem("graph-partition")
    ran = []
    for method in problem.methods:
        if method in ("milp", "brute", "kl"):  # exact ones refuse the size; kl's networkx passes take minutes
            continue
        res = tmp_path / f"r-{method}.json"
        assert main(["solve", "graph-partition", str(inst_path), "--method", method, "-o", str(res)]) == 0, method
        assert main(["check", "graph-partition", str(inst_path), str(res)]) == 0, method
        ran.append(method)
    assert {"auto", "bgl", "metis", "metis-fm", "ldg", "fennel"} <= set(ran)
