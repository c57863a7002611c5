"""dag-pipeline's ``dnn-partitioning-stages`` importer against values computed by hand.

Format (msr-fiddle/dnn-partitioning): ``fpgaLatency`` in ms, edge ``size`` in bytes, an edge goes
``sourceId`` (producer) -> ``destId`` (consumer), node ids need not be contiguous nor sorted (nodes
are numbered in file order). The importer keeps the forward nodes, multiplies their latency by 3
when the file has backward nodes (forward + backward), converts ms to s, and uses Rhino's
inter-node bandwidth 3,355,443.2 bytes per ms = 3.3554432e9 bytes/s, 4 stages (fewer forward nodes:
that many), balance 8 %, cut-bytes, 8 microbatches.
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.dag_pipeline.generate import import_operator_graph

from tests.conftest import require_data


def _node(nid, latency, *, backward=False, size=0.0):
    return {"id": nid, "name": f"n{nid}", "cpuLatency": 99.0, "fpgaLatency": latency, "size": size,
            "isBackwardNode": backward, "supportedOnFpga": True}


def _doc():
    # file order: id 30, id 5, id 12, id 40 (backward); edges 5 -> 30 -> 12 -> 40
    nodes = [_node(30, 2.0), _node(5, 1.5), _node(12, 4.0), _node(40, 7.0, backward=True)]
    edges = [{"sourceId": 5, "destId": 30, "size": 100.0, "cost": 0.1},
             {"sourceId": 30, "destId": 12, "size": 50.0, "cost": 0.1},
             {"sourceId": 12, "destId": 40, "size": 20.0, "cost": 0.1}]
    return {"maxSizePerFPGA": 1e9, "maxFPGAs": 4, "maxCPUs": 1, "nodes": nodes, "edges": edges}


def test_units_direction_and_ids(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_doc()))
    inst = import_operator_graph(path)
    # forward nodes in file order: id 30 -> 0, id 5 -> 1, id 12 -> 2; id 40 is backward, dropped
    assert inst.node_names == ("n30", "n5", "n12")
    # ms -> s, x 3 (the file has a backward node): 2 ms -> 0.006 s, 1.5 -> 0.0045, 4 -> 0.012
    assert inst.compute_s == pytest.approx((0.006, 0.0045, 0.012), rel=1e-12)
    # producer -> consumer: 5 -> 30 is (1, 0), 30 -> 12 is (0, 2); the edge to the backward node goes
    assert sorted(inst.edges) == [(0, 2, 50.0), (1, 0, 100.0)]
    assert inst.bandwidth == pytest.approx(3.3554432e9, rel=1e-15)   # bytes/s, not bytes/ms
    assert inst.stages == 3                   # min(4, three forward nodes)
    assert inst.objective == "cut-bytes" and inst.balance_percent == 8.0 and inst.microbatches == 8


def test_forward_only_graph_keeps_its_latency(tmp_path):
    doc = _doc()
    doc["nodes"] = doc["nodes"][:3]
    doc["edges"] = doc["edges"][:2]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    inst = import_operator_graph(path)
    # no backward node: factor 1, ms -> s only
    assert inst.compute_s == pytest.approx((0.002, 0.0015, 0.004), rel=1e-12)


@pytest.mark.data
def test_real_bert_training_graph_against_the_json_read_directly():
    path = require_data("graphs/dnn-partitioning/throughput-inputs/OperatorGraphs/bert_l-3_training.json")
    doc = json.loads(path.read_text())
    forward = [n for n in doc["nodes"] if not n["isBackwardNode"]]
    index = {n["id"]: i for i, n in enumerate(forward)}
    edges = sorted((index[e["sourceId"]], index[e["destId"]], float(e["size"])) for e in doc["edges"]
                   if e["sourceId"] in index and e["destId"] in index)
    inst = import_operator_graph(path)
    assert len(inst.compute_s) == len(forward) == 235
    assert inst.compute_s == pytest.approx([n["fpgaLatency"] / 1000 * 3 for n in forward], rel=1e-12)
    assert sorted(inst.edges) == edges
    assert inst.node_names == tuple(n["name"] for n in forward)
