"""hetero-sharding's ``dnn-partitioning-hap`` importer against values computed by hand.

Format (msr-fiddle/dnn-partitioning): ``fpgaLatency`` in ms, node ``size`` and edge ``size`` in
bytes, edges go ``sourceId`` (producer) -> ``destId`` (consumer). The mapping [ours, see the module
doc]: one stage per node in topological order (at most 64), FLOPs = latency / 1000 x HAP's device
FLOP/s 5,966,645,808,610; parameters = size / 4 bytes; output = the bytes of the node's out-edges / 4;
options data-parallel (all-reduce of the parameters), ZeRO (all-gather and reduce-scatter of
n x parameters) and tensor-parallel (all-gather of n x output, segment 1); 8 devices of HAP's
heterogeneous example (2 at 3.858755112937e12, 6 at 2.149250936815e12); segments (32 x 8, 768).
"""

from __future__ import annotations

import json

import pytest

from optsched.problems.hetero_sharding.generate import import_operator_graph

from tests.conftest import require_data

HAP_FLOPS = 5966645808610.0


def _doc():
    nodes = [{"id": 30, "name": "b", "cpuLatency": 9.0, "fpgaLatency": 2.0, "size": 400.0, "isBackwardNode": False},
             {"id": 5, "name": "a", "cpuLatency": 9.0, "fpgaLatency": 1.0, "size": 0.0, "isBackwardNode": False},
             {"id": 12, "name": "c", "cpuLatency": 9.0, "fpgaLatency": 0.5, "size": 80.0, "isBackwardNode": False}]
    edges = [{"sourceId": 5, "destId": 30, "size": 100.0, "cost": 0.1},
             {"sourceId": 30, "destId": 12, "size": 48.0, "cost": 0.1}]
    return {"nodes": nodes, "edges": edges}


def test_stages_in_producer_order_with_units(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_doc()))
    inst = import_operator_graph(path)
    assert inst.device_flops == (3858755112937.0,) * 2 + (2149250936815.0,) * 6
    assert tuple(inst.segment_lengths) == (256, 768)
    # topological order a (id 5) -> b (id 30) -> c (id 12), whatever the file order
    assert [s.name for s in inst.stages] == ["a", "b", "c"]
    a, b, c = inst.stages
    # FLOPs: ms / 1000 x HAP's device FLOP/s
    for stage, ms in ((a, 1.0), (b, 2.0), (c, 0.5)):
        assert all(o.sharded_flops == pytest.approx(ms / 1000 * HAP_FLOPS, rel=1e-12) for o in stage.options)
    # a: no parameters, output 100 bytes / 4 = 25 elements -> data-parallel (no collective) and
    # tensor-parallel (all-gather of 8 x 25 = 200)
    assert [o.name for o in a.options] == ["data-parallel", "tensor-parallel"]
    assert a.options[0].collectives == ()
    assert (a.options[1].segment, a.options[1].collectives[0].kind) == (1, "all_gather")
    assert a.options[1].collectives[0].ratio_elements == pytest.approx(200.0)
    # b: parameters 400 / 4 = 100, output 48 / 4 = 12 -> all-reduce 100; ZeRO 8 x 100 = 800; TP 8 x 12 = 96
    assert [o.name for o in b.options] == ["data-parallel", "zero", "tensor-parallel"]
    assert b.options[0].collectives[0].kind == "all_reduce"
    assert b.options[0].collectives[0].constant_elements == pytest.approx(100.0)
    assert [x.kind for x in b.options[1].collectives] == ["all_gather", "reduce_scatter"]
    assert all(x.ratio_elements == pytest.approx(800.0) for x in b.options[1].collectives)
    assert b.options[2].collectives[0].ratio_elements == pytest.approx(96.0)
    # c: the sink: parameters 20, no output -> no tensor-parallel option (a reversed edge would
    # give c the output and a none)
    assert [o.name for o in c.options] == ["data-parallel", "zero"]
    assert c.options[0].collectives[0].constant_elements == pytest.approx(20.0)


@pytest.mark.data
def test_real_layer_graph_against_the_json_read_directly():
    path = require_data("graphs/dnn-partitioning/latency-inputs/LayerGraphs/gnmt_inference.json")
    doc = json.loads(path.read_text())
    inst = import_operator_graph(path)
    n = len(doc["nodes"])
    total_ms = sum(node["fpgaLatency"] for node in doc["nodes"])
    total_flops = sum(s.options[0].sharded_flops for s in inst.stages)
    assert len(inst.stages) == min(n, 64)
    # stages group nodes: the FLOPs of all stages are those of every node (ms / 1000 x HAP_FLOPS)
    assert total_flops == pytest.approx(total_ms / 1000 * HAP_FLOPS, rel=1e-9)
    params = sum(node["size"] for node in doc["nodes"]) / 4
    dp = sum(s.options[0].collectives[0].constant_elements for s in inst.stages if s.options[0].collectives)
    assert dp == pytest.approx(params, rel=1e-9)
