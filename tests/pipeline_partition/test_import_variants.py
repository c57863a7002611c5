"""PipeDream graph.txt files unlike the released seven: other node names, a partitioned graph's
``-- stage_id=N`` suffix, metadata in another order, CRLF, a one-node graph, gzip."""

import gzip
import json

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.workloads.profiles import load_pipedream_graph, parse_pipedream_graph

MYNET = (
    "a -- Input0 -- forward_compute_time=5.000, backward_compute_time=0.000, activation_size=100.0, parameter_size=0.000\r\n"
    "conv -- Conv2d(3, 8) -- forward_compute_time=1.5, backward_compute_time=3, activation_size=[10.0; 20.0], "
    "parameter_size=64 -- stage_id=0\r\n"
    "relu -- ReLU() -- backward_compute_time=0.5, forward_compute_time=0.25, parameter_size=0, "
    "activation_size=30 -- stage_id=0\r\n"
    "fc -- Linear(8, 2) -- forward_compute_time=2, backward_compute_time=4, activation_size=8, parameter_size=128 "
    "-- stage_id=1\r\n"
    "\ta -- conv\r\n\tconv -- relu\r\n\tconv -- fc\r\n\trelu -- fc\r\n")


def test_other_model_names_stage_ids_crlf(tmp_path):
    path = tmp_path / "mynet.graph.txt"
    path.write_bytes(MYNET.encode())
    p = load_pipedream_graph(path, 32)
    assert p.layer_names == ("conv", "relu", "fc")  # the Input source is removed
    assert p.forward_s == pytest.approx((0.0015, 0.00025, 0.002))
    assert p.parameter_bytes == (64.0, 0.0, 128.0)
    # conv's bracketed activations sum to 30; after relu, conv's output still crosses (conv -> fc)
    assert p.stash_bytes == (30.0, 30.0, 8.0)
    assert p.activation_bytes == (30.0, 60.0, 8.0)
    gz = tmp_path / "mynet.graph.txt.gz"
    gz.write_bytes(gzip.compress(MYNET.encode()))
    assert load_pipedream_graph(gz, 32).layer_names == p.layer_names


def test_description_with_separator_and_tuple_activation():
    g = parse_pipedream_graph("n1 -- Foo -- bar -- forward_compute_time=1, backward_compute_time=2, "
                              "activation_size=(4; 5), parameter_size=3\n")
    assert g.nodes["n1"]["desc"] == "Foo -- bar" and g.nodes["n1"]["activation"] == 9.0


@pytest.mark.parametrize("line, field", [
    ("n1 -- L -- forward_compute_time=1, backward_compute_time=2, parameter_size=3\n", "activation_size"),
    ("n1 -- L -- forward_compute_time=1, backward_compute_time=2, activation_size=1, parameter_size=3 -- x\n",
     "graph.txt:1"),
    ("n1 -- L -- forward_compute_time=1, backward_compute_time=2, activation_size=1, parameter_size=3\n"
     "n1 -- L -- forward_compute_time=1, backward_compute_time=2, activation_size=1, parameter_size=3\n",
     "graph.txt:2"),
])
def test_malformed_node_lines_name_the_field(line, field):
    with pytest.raises(InvalidInstanceError) as e:
        parse_pipedream_graph(line)
    assert field in e.value.field


def test_single_node_cli_end_to_end(tmp_path):
    path = tmp_path / "one.graph.txt"
    path.write_text("only -- Linear -- forward_compute_time=2.000, backward_compute_time=0.000, "
                    "activation_size=0.0, parameter_size=0.000\n")
    prof = tmp_path / "p.json"
    assert main(["import", "pipedream-profile", str(path), "--batch-size", "8", "-o", str(prof)]) == 0
    assert json.loads(prof.read_text())["layer_names"] == ["only"]
    assert main(["solve", "pipeline-partition", str(prof), "--time-limit", "20", "-o", str(tmp_path / "s.json")]) == 0
    assert main(["check", "pipeline-partition", str(prof), str(tmp_path / "s.json")]) == 0


def test_imported_instance_solves_and_serves_as_a_profile(tmp_path):
    path = tmp_path / "mynet.graph.txt"
    path.write_bytes(MYNET.encode())
    inst = tmp_path / "x.json"
    assert main(["import", "pipedream-profile", str(path), "--batch-size", "32", "-o", str(inst)]) == 0
    doc = json.loads(inst.read_text())
    # generate's defaults: nvlink:4 (4 devices), 4 microbatches of 32 / 4 samples, bottleneck
    assert (doc["problem"], doc["microbatches"], doc["microbatch_size"], doc["objective"]) == (
        "pipeline-partition", 4, 8.0, "bottleneck")
    assert len(doc["device_speed"]) == 4 and doc["layer_names"] == ["conv", "relu", "fc"]
    res = tmp_path / "r.json"
    assert main(["solve", "pipeline-partition", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "pipeline-partition", str(inst), str(res)]) == 0
    # the imported file as --profile gives the instance generate builds from the graph.txt itself
    a = tmp_path / "a.json"
    common = ["--topology", "two-level:1x2", "--stages", "2", "--objective", "sync-estimate", "--seed", "3"]
    assert main(["generate", "pipeline-partition", "--profile", str(inst), *common, "-o", str(a)]) == 0
    ref = load_pipedream_graph(path, 32)
    got = json.loads(a.read_text())
    for field in ("layer_names", "forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes"):
        assert tuple(got[field]) == tuple(getattr(ref, field))
    assert got["profile_batch"] == 32.0 and got["stages"] == 2
