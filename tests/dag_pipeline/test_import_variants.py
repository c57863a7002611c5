"""dnn-partitioning graphs unlike the msr-fiddle files, through this problem's importer: fewer forward nodes than stages, one node, no edges, optional fields absent,
a training graph with backward nodes, gzip under a .json name, an extra unknown field."""

import json

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.problems.dag_pipeline.generate import import_operator_graph as import_stages
from tests.dnn_partitioning_files import chain as _chain
from tests.dnn_partitioning_files import node as _node
from tests.dnn_partitioning_files import write as _write


def test_fewer_forward_nodes_than_stages(tmp_path):
    # three equal forward nodes (ids not contiguous): K = 3, every stage one node, two cut edges
    path = _write(tmp_path / "small.json", {"nodes": [_node(10), _node(20), _node(30)], "edges": _chain([10, 20, 30])})
    inst = import_stages(path)
    assert inst.stages == 3 and inst.node_names == ("op10", "op20", "op30")
    assert inst.compute_s == pytest.approx((0.001,) * 3)
    res = tmp_path / "r.json"
    inst_path = tmp_path / "x.json"
    assert main(["import", "dnn-partitioning-stages", str(path), "-o", str(inst_path)]) == 0
    assert main(["solve", "dag-pipeline", str(inst_path), "--time-limit", "20", "-o", str(res)]) == 0
    assert json.loads(res.read_text())["objective"] == 16.0  # both 8-byte edges cut
    assert main(["check", "dag-pipeline", str(inst_path), str(res)]) == 0
    one = _write(tmp_path / "one.json", {"nodes": [_node(0)], "edges": []})
    assert import_stages(one).stages == 1


def test_training_graph_gzip_extra_fields(tmp_path):
    fwd, bwd = list(range(6)), [100 + i for i in range(6)]
    doc = {"maxSizePerFPGA": 1e9, "maxFPGAs": 4, "maxCPUs": 1, "comment": "not in the format",
           "nodes": [_node(i) for i in fwd] + [_node(i, True) for i in bwd],
           "edges": _chain(fwd) + [{"sourceId": 5, "destId": 105, "cost": 0.1, "size": 8.0}] + _chain(bwd[::-1])}
    path = _write(tmp_path / "train.json", doc, gz=True)
    inst = import_stages(path)
    # backward nodes dropped, forward compute scaled by the backward factor 3 (1 ms x 3)
    assert len(inst.compute_s) == 6 and inst.compute_s == pytest.approx((0.003,) * 6)
    assert len(inst.edges) == 5 and inst.stages == 4


def test_budget_no_plan_meets_is_exit_3(tmp_path):
    # one node holds 6 of 21 ms; Rhino's budget with K = 4 is 21 / 4 x 1.08 = 5.67 ms < 6: infeasible
    doc = {"nodes": [_node(i, fpgaLatency=float(i + 1)) for i in range(6)], "edges": []}
    inst_path, res = tmp_path / "x.json", tmp_path / "r.json"
    assert main(["import", "dnn-partitioning-stages", str(_write(tmp_path / "g.json", doc)), "-o", str(inst_path)]) == 0
    assert main(["solve", "dag-pipeline", str(inst_path), "--time-limit", "20", "-o", str(res)]) == 3


@pytest.mark.parametrize("doc, field", [
    ({"nodes": [_node(0, True)], "edges": []}, "nodes"),
    ({"nodes": [_node(0, colorClass="red")], "edges": []}, "nodes[0].colorClass"),
    ({"nodes": [_node(0)], "edges": [{"sourceId": 0, "destId": 9, "cost": 0, "size": 0}]}, "edges[0].destId"),
])
def test_malformed_graphs_name_the_field(tmp_path, doc, field):
    with pytest.raises(InvalidInstanceError) as e:
        import_stages(_write(tmp_path / "bad.json", doc))
    assert e.value.field == field
