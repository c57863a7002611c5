"""Planetoid graphs unlike the published files, through this problem's importer: another data
set's name, pickle protocols 0, 2 and 4, gzip, a test index with an isolated node."""

import collections
import gzip
import json
import pickle

import pytest

from optsched.cli import main
from optsched.problems.feature_cache.generate import import_planetoid_cache

ADJ = {0: [1, 2, 2], 1: [0, 3], 2: [0, 2], 3: [1], 5: [6], 6: [5]}  # 4 isolated, 2-2 loop, 0-2 repeated


@pytest.mark.parametrize("protocol, cls", [(0, collections.defaultdict), (2, dict), (4, dict)])
def test_planetoid_other_dataset(tmp_path, protocol, cls):
    adj = cls(list) if cls is collections.defaultdict else cls()
    adj.update(ADJ)
    path = tmp_path / "ind.mine.graph"
    path.write_bytes(pickle.dumps(adj, protocol=protocol))
    # test nodes 6 and 8: 8 exists only in the index (an isolated test node, as in Citeseer)
    (tmp_path / "ind.mine.test.index").write_bytes(b"6\r\n8\r\n\r\n")
    cache = import_planetoid_cache(path)
    assert cache.num_nodes == 9 and cache.capacity == 1  # 10% of 9 nodes, at least 1


def test_planetoid_gzip_and_cli_end_to_end(tmp_path):
    path = tmp_path / "ind.mine.graph"
    path.write_bytes(gzip.compress(pickle.dumps(ADJ, protocol=2)))
    inst, res = tmp_path / "instance.json", tmp_path / "r.json"
    assert main(["import", "planetoid-cache", str(path), "-o", str(inst)]) == 0
    assert json.loads(inst.read_text())["num_nodes"] == 7
    assert main(["solve", "feature-cache", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "feature-cache", str(inst), str(res)]) == 0
