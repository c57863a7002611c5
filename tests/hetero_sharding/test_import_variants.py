"""dnn-partitioning graphs unlike the msr-fiddle files, through this problem's importer: one node,
a training graph with backward nodes, gzip under a .json name, an extra unknown field."""

from optsched.cli import main
from optsched.problems.hetero_sharding.generate import import_operator_graph as import_hap
from tests.dnn_partitioning_files import chain, node, write


def test_one_node(tmp_path):
    one = write(tmp_path / "one.json", {"nodes": [node(0)], "edges": []})
    assert len(import_hap(one).stages) == 1


def test_training_graph_gzip_extra_fields(tmp_path):
    fwd, bwd = list(range(6)), [100 + i for i in range(6)]
    doc = {"maxSizePerFPGA": 1e9, "maxFPGAs": 4, "maxCPUs": 1, "comment": "not in the format",
           "nodes": [node(i) for i in fwd] + [node(i, True) for i in bwd],
           "edges": chain(fwd) + [{"sourceId": 5, "destId": 105, "cost": 0.1, "size": 8.0}] + chain(bwd[::-1])}
    path = write(tmp_path / "train.json", doc, gz=True)
    hap = import_hap(path)
    assert len(hap.stages) == 12  # the whole graph, <= 64 nodes: one stage per node
    inst_path, res = tmp_path / "h.json", tmp_path / "r.json"
    assert main(["import", "dnn-partitioning-hap", str(path), "-o", str(inst_path)]) == 0
    assert main(["solve", "hetero-sharding", str(inst_path), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "hetero-sharding", str(inst_path), str(res)]) == 0
