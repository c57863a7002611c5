"""pipeline-graph's ``pipedream-graph`` importer against values computed by hand.

PipeDream's ``graph.txt`` (the profile format's own reader is tested with its importer): the
whole DAG in the file's node order after dropping ``Input*`` sources and ``__getitem__`` sinks,
edges producer -> consumer as the tab-indented lines say, times ms -> s, 16 workers, 1e9 bytes/s,
PipeDream's objective, the published profiling batch (128 for the image models, 64 for GNMT; 1 for
any other file).
"""

from __future__ import annotations

import re

import pytest

from optsched.problems.pipeline_graph.problem import import_pipedream_graph

from tests.conftest import require_data

# node2 feeds node10 and node4, both feed node3 (a diamond); node lines out of numeric order
GRAPH = """node1 -- Input0 -- forward_compute_time=5.000, backward_compute_time=0.000, activation_size=100.000, parameter_size=0.000
node10 -- ReLU(inplace) -- forward_compute_time=1.000, backward_compute_time=1.500, activation_size=48.000, parameter_size=0.000
node2 -- Conv2d(3, 8) -- forward_compute_time=2.000, backward_compute_time=4.000, activation_size=[64.000; 32.000], parameter_size=400.000
node3 -- Add -- forward_compute_time=3.000, backward_compute_time=6.000, activation_size=8.000, parameter_size=800.000
node4 -- Linear(in_features=8, out_features=8) -- forward_compute_time=0.500, backward_compute_time=1.000, activation_size=16.000, parameter_size=200.000
\tnode1 -- node2
\tnode2 -- node10
\tnode2 -- node4
\tnode10 -- node3
\tnode4 -- node3
"""


def test_dag_units_and_edge_direction(tmp_path):
    path = tmp_path / "toy.graph.txt"
    path.write_text(GRAPH.replace("\\t", "\t"))
    inst = import_pipedream_graph(path)
    assert inst.layer_names == ("node10", "node2", "node3", "node4")   # file order, input dropped
    # producer -> consumer: node2 -> node10 is (1, 0), node2 -> node4 (1, 3), node10 -> node3 (0, 2),
    # node4 -> node3 (3, 2)
    assert sorted(inst.edges) == [(0, 2), (1, 0), (1, 3), (3, 2)]
    assert inst.forward_s == pytest.approx((0.001, 0.002, 0.003, 0.0005), rel=1e-12)
    assert inst.backward_s == pytest.approx((0.0015, 0.004, 0.006, 0.001), rel=1e-12)
    assert inst.activation_bytes == (48.0, 96.0, 8.0, 16.0)
    assert inst.parameter_bytes == (0.0, 400.0, 800.0, 200.0)
    assert inst.workers == 16 and inst.bandwidth == 1e9 and inst.objective == "pipedream"
    assert inst.profile_batch == 1.0
    assert inst.activation_compression_ratio is None


_NODE = re.compile(r"^(node\d+) -- (.*) -- forward_compute_time=([\d.]+), backward_compute_time=([\d.]+), "
                   r"activation_size=([\d.]+), parameter_size=([\d.]+)")


@pytest.mark.data
def test_real_resnet50_against_the_file_read_directly():
    path = require_data("profiles/pipedream/resnet50.graph.txt")
    nodes, edges = {}, []
    for line in path.read_text().splitlines():
        m = _NODE.match(line)
        if m:
            nodes[m.group(1)] = (m.group(2), *(float(x) for x in m.groups()[2:]))
        elif line.startswith("\t"):
            a, b = line.strip().split(" -- ")
            edges.append((a, b))
    inputs = {n for n, v in nodes.items() if v[0].startswith("Input")}
    inst = import_pipedream_graph(path)
    assert inst.profile_batch == 128.0
    names = list(inst.layer_names)
    assert set(names) == set(nodes) - inputs            # ResNet-50 has no __getitem__ sink
    pos = {n: i for i, n in enumerate(names)}
    assert sorted(inst.edges) == sorted((pos[a], pos[b]) for a, b in edges if a not in inputs)
    for n in (names[0], names[len(names) // 2], names[-1]):
        assert inst.forward_s[pos[n]] == nodes[n][1] / 1000 and inst.activation_bytes[pos[n]] == nodes[n][3]
