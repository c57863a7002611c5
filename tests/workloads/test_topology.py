"""The published device graphs of ``optsched.workloads.topology`` and the bandwidth dendrogram."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optsched.core.errors import InvalidOptionError
from optsched.workloads.topology import GB, dendrogram, is_ultrametric, topology


def _levels(g) -> list[float]:
    w = g.widest[~np.eye(g.num_devices, dtype=bool)]
    return sorted({float(v) / GB for v in w})


def test_dgx1_is_the_published_hybrid_cube_mesh():
    g = topology("dgx1")
    d = g.direct / GB
    nv = {(a, b): d[a, b] for a in range(8) for b in range(a + 1, 8) if d[a, b] >= 25}
    assert len(nv) == 16 and sorted(nv.values()).count(50.0) == 8  # 16 NVLink pairs, 8 doubled
    # six NVLinks per V100 (a double link counts twice)
    assert all(sum(v / 25 for (a, b), v in nv.items() if dev in (a, b)) == 6 for dev in range(8))
    # the two quads are fully connected, and i -- i + 4
    assert all((a, b) in nv for q in ((0, 1, 2, 3), (4, 5, 6, 7)) for a, b in itertools.combinations(q, 2))
    assert all((i, i + 4) in nv for i in range(4))
    # the other twelve pairs talk over PCIe + QPI at 15.75 GB/s
    assert sum(1 for a in range(8) for b in range(a + 1, 8) if d[a, b] == 15.75) == 12
    # widest-path routing: the double links form a Hamiltonian cycle, so every pair is at 50
    assert _levels(g) == [50.0]
    assert not is_ultrametric(g.direct) and is_ultrametric(g.widest)


def test_dgx2_multi_server_pcie_and_torus():
    g = topology("dgx2")
    assert g.num_devices == 16 and _levels(g) == [150.0] and g.memory_bytes[0] == 32 * GB
    assert topology("dgx2", memory_gb=16).memory_bytes[0] == 16 * GB
    two = topology("dgx1x2")
    assert two.num_devices == 16 and _levels(two) == [12.5, 50.0]
    assert two.widest[0, 7] == 50 * GB and two.widest[0, 8] == 12.5 * GB
    assert _levels(topology("dgx1x4:5")) == [5.0, 50.0] and topology("dgx1x4:5").num_devices == 32
    assert _levels(topology("dgx2x2:25")) == [25.0, 150.0]
    # PCIe: the published x16 and QPI rates make the tree uniform; measured levels make it three-level
    assert _levels(topology("pcie:2x2x2")) == [15.75]
    p = topology("pcie:2x2x2:15.75:10:5")
    assert _levels(p) == [5.0, 10.0, 15.75]
    assert (p.widest[0, 1], p.widest[0, 2], p.widest[0, 4]) == (15.75 * GB, 10 * GB, 5 * GB)
    assert _levels(topology("pcie-1x2x2x2:4")) == [4.0, 15.75]
    t = topology("torus:4x4:25")
    degree = np.bincount([x for a, b, _ in t.links for x in (a, b)], minlength=16)
    assert len(t.links) == 32 and set(degree) == {4} and _levels(t) == [25.0]
    t2 = topology("torus:2x4:50:10")  # rows at 50: a row is a cluster, columns join them at 10
    assert len(t2.links) == 8 + 4 and _levels(t2) == [10.0, 50.0]
    assert topology("torus:1x3:7").num_devices == 3 and _levels(topology("torus:1x3:7")) == [7.0]


def test_old_presets_unchanged():
    assert _levels(topology("two-level:2x4")) == [1.0, 25.0] and _levels(topology("nvlink:3")) == [25.0]
    assert topology("random:6", seed=3).links == topology("random:6", seed=3).links
    assert topology("nvlink:2").memory_bytes == (16 * GB, 16 * GB)


@pytest.mark.parametrize("spec", ["dgx1:3", "dgx1x0", "dgx1x2:0", "pcie:2x2", "pcie:2x2x2:1:2", "torus:4x4",
                                  "torus:4:5", "torus:2x2:-1", "dgx3", "pcie-1x1x1:3"])
def test_bad_specs_name_the_field(spec):
    with pytest.raises(InvalidOptionError) as err:
        topology(spec)
    assert err.value.field == "topology"


def _pairs_level(tree, a, b) -> float:
    node = tree
    while True:
        child = next((c for c in node.children if a in c.devices and b in c.devices), None)
        if child is None:
            return node.level
        node = child


@given(seed=st.integers(0, 10_000), n=st.integers(2, 9), p=st.sampled_from([0.1, 0.3, 0.7]))
def test_dendrogram_reproduces_every_widest_path_bandwidth(seed, n, p):
    g = topology(f"random:{n}:{p}", seed=seed)
    assert is_ultrametric(g.widest)
    tree = dendrogram(g.widest)
    assert tree.devices == tuple(range(n))
    for a, b in itertools.combinations(range(n), 2):
        assert _pairs_level(tree, a, b) == g.widest[a, b]
    # a group's bandwidth (the minimum over its pairs) is the level of the smallest cluster holding it
    group = list(range(0, n, 2))
    if len(group) >= 2:
        sub = g.widest[np.ix_(group, group)]
        low = min(_pairs_level(tree, a, b) for a, b in itertools.combinations(group, 2))
        assert sub[~np.eye(len(group), dtype=bool)].min() == low
