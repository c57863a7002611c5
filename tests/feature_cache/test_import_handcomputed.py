"""feature-cache's ``planetoid-cache`` importer against values computed by hand from the format.

One epoch of reads: the training nodes (every node not in ``ind.<name>.test.index``) in one
mini-batch of at most 64 seeds, each sampled two hops with fan-outs (10, 5). On a graph whose
degrees are below the fan-outs the sample is the whole two-hop neighbourhood, so the distinct
reads are computable by hand; priority = degree; capacity = max(1, n // 10).
"""

from __future__ import annotations

import pickle

import pytest

from optsched.problems.feature_cache.generate import import_planetoid_cache

from tests.conftest import require_data
from tests.planetoid_files import read_adjacency


def test_reads_are_the_two_hop_neighbourhood_of_the_training_nodes(tmp_path):
    path = tmp_path / "ind.toy.graph"
    # 0-1, 0-2, 2-3, 3-7, 8-9; node 4 listed with no neighbours
    path.write_bytes(pickle.dumps({0: [1, 2], 1: [0], 2: [0, 3], 3: [2, 7], 4: [], 7: [3], 8: [9], 9: [8]},
                                  protocol=2))
    (tmp_path / "ind.toy.test.index").write_text("3\n8\n9\n21\n")
    inst = import_planetoid_cache(path)
    # n = 1 + 21 (the largest id, from the test index) = 22
    assert inst.num_nodes == 22
    assert inst.capacity == 2                       # 22 // 10
    # training seeds: 0 1 2 4 5 6 7 10..20. Two hops from them: 0 -> 1, 2 -> 3; 7 -> 3 -> 2;
    # 3, 8, 9, 21 are test nodes; 8 and 9 are reachable from no seed
    expected = {0, 1, 2, 3, 4, 5, 6, 7} | set(range(10, 21))
    assert set(inst.accesses) == expected
    assert len(inst.accesses) == len(expected)     # one mini-batch (19 seeds <= 64): each node read once
    degree = [2, 1, 2, 2, 0, 0, 0, 1, 1, 1] + [0] * 12
    assert list(inst.priority) == degree


@pytest.mark.data
def test_real_citeseer_against_the_pickle_read_directly():
    path = require_data("graphs/planetoid/ind.citeseer.graph")
    adj = read_adjacency(path)
    test = {int(x) for x in path.with_name("ind.citeseer.test.index").read_text().split()}
    n = 1 + max(max(adj), max(v for nb in adj.values() for v in nb), max(test))
    inst = import_planetoid_cache(path)
    assert inst.num_nodes == n == 3327
    assert inst.capacity == n // 10
    nbrs = {u: set() for u in range(n)}
    for u, nb in adj.items():
        for v in nb:
            if u != v:
                nbrs[u].add(v)
                nbrs[v].add(u)
    assert list(inst.priority) == [float(len(nbrs[u])) for u in range(n)]
    # every read is a training node or within two hops of one; every training node is read
    train = set(range(n)) - test
    reach = set(train) | {v for u in train for v in nbrs[u]}
    reach |= {w for v in list(reach) for w in nbrs[v]}
    assert train <= set(inst.accesses) <= reach


def test_a_gzipped_graph_finds_its_test_index(tmp_path):
    # as the planetoid files are laid out: ind.<name>.graph.gz with ind.<name>.test.index beside it
    import gzip

    path = tmp_path / "ind.toy.graph.gz"
    path.write_bytes(gzip.compress(pickle.dumps({0: [1], 1: [0, 2], 2: [1], 3: []}, protocol=2)))
    (tmp_path / "ind.toy.test.index").write_text("3\n")
    inst = import_planetoid_cache(path)
    # training seeds 0, 1, 2; node 3 is a test node with no neighbour: never read
    assert set(inst.accesses) == {0, 1, 2}
    assert "test nodes from ind.toy.test.index (1)" in inst.provenance
