"""pipeline-partition's ``pipedream-profile`` importer and the topology JSON format against values
computed by hand.

PipeDream's ``graph.txt``: node lines ``nodeN -- desc -- forward_compute_time=<ms>,
backward_compute_time=<ms>, activation_size=<bytes or [a; b] summed>, parameter_size=<bytes>``,
then tab-indented edge lines ``producer -- consumer``. The importer drops ``Input*`` sources and
``__getitem__`` sinks, converts ms to s, follows the edges (not the file's line order, not the
node numbers) and uses nvlink:4 (25 GB/s = 25e9 bytes/s, 16 GB = 16e9 bytes per GPU), 4
microbatches of batch / 4 samples; a file that is none of PipeDream's seven is read at batch 1
unless ``--batch-size`` says otherwise. Topology JSON: ``bandwidth_gb_s`` and ``memory_gb`` in
units of 1e9 bytes.
"""

from __future__ import annotations

import json
import re

import pytest

from optsched.problems.pipeline_partition.generate import generate
from optsched.problems.pipeline_partition.problem import import_pipedream_profile
from optsched.workloads.topology import load_topology

from tests.conftest import require_data

# the chain node2 -> node10 -> node3, written in another order, with an input and a sink
GRAPH = """node10 -- ReLU(inplace) -- forward_compute_time=1.000, backward_compute_time=1.500, activation_size=48.000, parameter_size=0.000
node3 -- Linear(in_features=8, out_features=2) -- forward_compute_time=3.000, backward_compute_time=6.000, activation_size=8.000, parameter_size=800.000
node1 -- Input0 -- forward_compute_time=5.000, backward_compute_time=0.000, activation_size=100.000, parameter_size=0.000
node2 -- Conv2d(3, 8) -- forward_compute_time=2.000, backward_compute_time=4.000, activation_size=[64.000; 32.000], parameter_size=400.000
node12 -- __getitem__(0) -- forward_compute_time=0.100, backward_compute_time=0.000, activation_size=8.000, parameter_size=0.000
\tnode10 -- node3
\tnode1 -- node2
\tnode3 -- node12
\tnode2 -- node10
"""


def _graph(tmp_path, name="toy.graph.txt"):
    path = tmp_path / name
    path.write_text(GRAPH.replace("\\t", "\t"))
    return path


def test_profile_units_order_and_defaults(tmp_path):
    inst = import_pipedream_profile(_graph(tmp_path))
    assert inst.layer_names == ("node2", "node10", "node3")       # edge order, inputs and sink dropped
    assert inst.forward_s == pytest.approx((0.002, 0.001, 0.003), rel=1e-12)   # ms -> s
    assert inst.backward_s == pytest.approx((0.004, 0.0015, 0.006), rel=1e-12)
    assert inst.parameter_bytes == (400.0, 0.0, 800.0)
    assert inst.activation_bytes == (96.0, 48.0, 8.0)             # [64; 32] summed
    assert inst.stash_bytes == (96.0, 48.0, 8.0)
    assert inst.profile_batch == 1.0 and "profiling batch unknown" in inst.provenance
    assert inst.microbatches == 4 and inst.microbatch_size == 0.25
    assert len(inst.device_speed) == 4 and set(inst.device_memory_bytes) == {16e9}
    assert sorted(inst.links) == [(a, b, 25e9) for a in range(4) for b in range(a + 1, 4)]
    assert inst.objective == "bottleneck"
    batch = import_pipedream_profile(_graph(tmp_path), batch_size=32)
    assert batch.profile_batch == 32.0 and batch.microbatch_size == 8.0
    assert batch.forward_s == inst.forward_s          # times are per profiling batch, not rescaled
    # a released profile's name gives its published batch (VGG-16: 128)
    assert import_pipedream_profile(_graph(tmp_path, "vgg16.graph.txt")).profile_batch == 128.0


def test_topology_json_units(tmp_path):
    topo = tmp_path / "three.json"
    topo.write_text(json.dumps({"devices": [{"speed": 1.0, "memory_gb": 16}, {"speed": 2.0, "memory_gb": 8},
                                            {"speed": 1.0}],
                                "links": [{"a": 0, "b": 1, "bandwidth_gb_s": 25},
                                          {"a": 1, "b": 2, "bandwidth_gb_s": 10}]}))
    g = load_topology(topo)
    assert g.speed == (1.0, 2.0, 1.0)
    assert g.memory_bytes == (16e9, 8e9, 16e9)                    # GB -> bytes; default 16 GB
    assert g.links == ((0, 1, 25e9), (1, 2, 10e9))                 # GB/s -> bytes/s
    assert float(g.widest[0, 2]) == 10e9                           # widest path 0-1-2: min(25, 10)
    inst = generate(0, profile=str(_graph(tmp_path, "vgg16.graph.txt")), topology=str(topo))
    assert inst.device_memory_bytes == (16e9, 8e9, 16e9) and inst.device_speed == (1.0, 2.0, 1.0)
    assert sorted(inst.links) == [(0, 1, 25e9), (1, 2, 10e9)]


_NODE = re.compile(r"^(node\d+) -- (.*) -- forward_compute_time=([\d.]+), backward_compute_time=([\d.]+), "
                   r"activation_size=([\d.]+), parameter_size=([\d.]+)")


@pytest.mark.data
def test_real_vgg16_against_the_file_read_directly():
    path = require_data("profiles/pipedream/vgg16.graph.txt")
    nodes = {}
    for line in path.read_text().splitlines():
        m = _NODE.match(line)
        if m:
            nodes[m.group(1)] = (m.group(2), *(float(x) for x in m.groups()[2:]))
    layers = {k: v for k, v in nodes.items() if not v[0].startswith("Input")}
    inst = import_pipedream_profile(path)
    assert inst.profile_batch == 128.0
    # VGG-16 is a chain: one position per layer, times ms -> s summed over the whole model
    assert sum(len(n.split("+")) for n in inst.layer_names) == len(layers)
    assert sum(inst.forward_s) == pytest.approx(sum(v[1] for v in layers.values()) / 1000, rel=1e-12)
    assert sum(inst.backward_s) == pytest.approx(sum(v[2] for v in layers.values()) / 1000, rel=1e-12)
    assert sum(inst.parameter_bytes) == pytest.approx(sum(v[4] for v in layers.values()), rel=1e-12)
    first = inst.layer_names[0]
    assert inst.activation_bytes[0] == layers[first][3] and inst.forward_s[0] == layers[first][1] / 1000


@pytest.mark.parametrize("doc, field", [
    ({"devices": [{"speed": 1}, {"speed": "fast"}], "links": []}, "devices[1].speed"),
    ({"devices": [{"memory_gb": None}], "links": []}, "devices[0].memory_gb"),
    ({"devices": [{}, {}], "links": [{"a": 0, "b": 1, "bandwidth_gb_s": "x"}]}, "links[0].bandwidth_gb_s"),
    ({"devices": [{}, {}, {}], "links": [{"a": 0, "b": 1.7, "bandwidth_gb_s": 10}]}, "links[0].b"),
    ({"devices": [{}, {}], "links": [{"a": True, "b": 0, "bandwidth_gb_s": 10}]}, "links[0].a"),
    ({"devices": [{}], "links": {"a": 0}}, "links"),
])
def test_topology_json_refuses_what_it_cannot_read_exactly(tmp_path, doc, field):
    # a device index 1.7 is not device 1, a string is not a bandwidth: typed errors naming the field
    from optsched.core.errors import InvalidInstanceError

    topo = tmp_path / "bad.json"
    topo.write_text(json.dumps(doc))
    with pytest.raises(InvalidInstanceError, match=re.escape(f"'{field}'")):
        load_topology(topo)
