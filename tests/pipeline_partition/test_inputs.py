"""Profiles, device graphs, invalid input and infeasibility: typed errors and exit statuses."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.pipeline import costs
from optsched.problems.pipeline_partition.generate import chain_instance, generate
from optsched.problems.pipeline_partition.instance import check
from optsched.workloads.profiles import Profile, load_pipedream_graph, load_profile, parse_pipedream_graph
from optsched.workloads.topology import load_topology, topology, widest_paths

NODE = ("{id} -- {desc} -- forward_compute_time={fw}, backward_compute_time={bw}, "
        "activation_size={act}, parameter_size={par}")


def graph_text(nodes, edges) -> str:
    lines = [NODE.format(id=i, desc=d, fw=f, bw=b, act=a, par=p) for i, d, f, b, a, p in nodes]
    lines += [f"\t{a} -- {b}" for a, b in edges]
    return "\n".join(lines) + "\n"


DIAMOND = graph_text(
    [("node1", "Input", 5.0, 0.0, 100.0, 0.0), ("node2", "Conv", 1.0, 2.0, 10.0, 4.0),
     ("node3", "BranchA", 2.0, 4.0, 20.0, 8.0), ("node4", "BranchB", 3.0, 6.0, 30.0, 0.0),
     ("node5", "Add", 0.5, 0.5, "[1.0; 2.0]", 0.0)],
    [("node1", "node2"), ("node2", "node3"), ("node2", "node4"), ("node3", "node5"), ("node4", "node5")])


def test_pipedream_loader_on_a_diamond(tmp_path):
    path = tmp_path / "toy.graph.txt"
    path.write_text(DIAMOND)
    prof = load_pipedream_graph(path, batch_size=4)
    # the input node is dropped (as PipeDream's optimizer does); every other layer appears once
    assert prof.num_layers == 4
    assert sum(prof.forward_s) == pytest.approx((1 + 2 + 3 + 0.5) / 1000)
    assert sum(prof.parameter_bytes) == 12
    # cut after the conv: its output (10 bytes) crosses; after one branch: the branch output plus
    # the conv output still needed by the other branch (PipeDream's augmented antichain)
    assert prof.activation_bytes[0] == 10
    assert prof.activation_bytes[1] == 10 + (20 if "node3" in prof.layer_names[1] else 30)
    assert prof.activation_bytes[-1] == 3  # bracketed list summed
    again = Profile.from_json(json.loads(prof.dumps()))
    assert again == prof


def test_chain_linearization_is_the_chain(tmp_path):
    nodes = [(f"node{i}", f"L{i}", float(i), 2.0 * i, 10.0 * i, 1.0) for i in range(1, 6)]
    path = tmp_path / "chain.txt"
    path.write_text(graph_text(nodes, [(f"node{i}", f"node{i + 1}") for i in range(1, 5)]))
    prof = load_pipedream_graph(path, batch_size=1)
    assert prof.layer_names == tuple(f"node{i}" for i in range(1, 6))
    assert prof.activation_bytes == tuple(10.0 * i for i in range(1, 6))


def test_cyclic_profile_is_an_error(tmp_path):
    text = graph_text([("node1", "A", 1, 1, 1, 1), ("node2", "B", 1, 1, 1, 1)], [("node1", "node2"), ("node2", "node1")])
    with pytest.raises(InvalidInstanceError, match="cycle"):
        parse_pipedream_graph(text)
    path = tmp_path / "cyclic.txt"
    path.write_text(text)
    assert main(["import", "pipedream-profile", str(path), "-o", str(tmp_path / "p.json")]) == 2


def test_negative_time_is_an_error(tmp_path):
    text = graph_text([("node1", "A", -1.0, 1, 1, 1)], [])
    with pytest.raises(InvalidInstanceError) as err:
        parse_pipedream_graph(text, "neg.txt")
    assert "forward_compute_time" in err.value.field
    inst = generate(0, layers=3)
    data = json.loads(inst.dumps())
    data["backward_s"][1] = -0.5
    with pytest.raises(InvalidInstanceError) as err:
        type(inst).from_json(data)
    assert err.value.field == "backward_s[1]"
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "pipeline-partition", str(path), "--method", "dp"]) == 2


def test_disconnected_device_graph_is_an_error(tmp_path):
    user = {"devices": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "links": [{"a": 0, "b": 1, "bandwidth_gb_s": 10}]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(user))
    with pytest.raises(InvalidInstanceError, match="disconnected"):
        load_topology(path)
    inst = generate(0, layers=3, topology="nvlink:3")
    data = json.loads(inst.dumps())
    data["links"] = [[0, 1, 1e9]]
    with pytest.raises(InvalidInstanceError) as err:
        type(inst).from_json(data)
    assert err.value.field == "links"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["solve", "pipeline-partition", str(bad)]) == 2
    assert main(["generate", "pipeline-partition", "--topology", str(path), "-o", str(tmp_path / "x.json")]) == 2


def test_memory_too_small_is_infeasible(tmp_path, capsys):
    inst = generate(0, layers=4, topology="nvlink:2", memory_gb=0.01)
    for method in ("dp", "milp", "subset-dp"):
        r = optsched.solve(inst, method)
        assert r.status == "infeasible", method
        assert "memory" in r.reason
    path = tmp_path / "tight.json"
    inst.save(path)
    assert main(["solve", "pipeline-partition", str(path), "--method", "dp"]) == 3
    assert "memory" in capsys.readouterr().out


def test_memory_binds_but_a_plan_fits():
    # 2 positions of 6 GB parameters (x4 optimizer state = 24 GB each) on 30 GB devices: only
    # one position per device fits, so the planner must cut
    inst = chain_instance([1.0, 1.0], topology="nvlink:2", parameters=[6e9, 6e9])
    inst = type(inst).from_json({**json.loads(inst.dumps()), "device_memory_bytes": [30e9, 30e9]})
    r = optsched.solve(inst, "dp")
    assert r.status == "optimal" and r.solution["cuts"] == [1]
    assert optsched.solve(inst, "milp").objective == pytest.approx(r.objective, rel=1e-6)


def test_checker_rejects_bad_solutions():
    inst = generate(0, layers=5, topology="nvlink:3", stages=2)
    cases = [
        ({"cuts": [2], "devices": [[0], [0]]}, "injective"),
        ({"cuts": [3, 2], "devices": [[0], [1], [2]]}, "increasing"),
        ({"cuts": [2], "devices": [[0], [5]]}, "device ids"),
        ({"cuts": [1, 2], "devices": [[0], [1], [2]]}, "fixes 2 stages"),
        ({"cuts": [2], "devices": [[0], [1]], "replicas": [2, 1]}, "disagree"),
    ]
    for solution, words in cases:
        rep = check(inst, solution)
        assert not rep.feasible and any(words in v for v in rep.violations), (solution, rep.violations)


def test_checker_objective_by_hand():
    # two stages of work 3 (fw 1, bw 2) and 6 (fw 2, bw 4); 1000 bytes at 1000 B/s: x = 1
    inst = chain_instance([3.0, 6.0], topology="flat:2:1e-6", activation=[1000.0, 0.0], microbatches=4,
                          objective="sync-estimate")
    rep = check(inst, {"cuts": [1], "devices": [[0], [1]]})
    st = costs.stage_times(inst, {"cuts": [1], "devices": [[0], [1]]})
    assert st.transfer == pytest.approx((1.0,))
    # sum (F + B) = 9, 2 x = 2, (M - 1) max = 3 x 6 = 18, no all-reduce
    assert rep.objective == pytest.approx(29.0)
    assert costs.bottleneck(st) == pytest.approx(6.0)


def test_allreduce_and_replicated_memory_by_hand():
    # one position, 2 replicas at 1000 B/s, 500 parameter bytes: AR = 2 (1/2) 500 / 1000 = 0.5
    inst = chain_instance([4.0], topology="flat:2:1e-6", parameters=[500.0], activation=[100.0])
    st = costs.stage_times(inst, {"cuts": [], "devices": [[0, 1]]})
    assert st.allreduce == pytest.approx((0.5,))
    assert st.forward[0] + st.backward[0] == pytest.approx(2.0)
    assert st.stash_bytes == pytest.approx((50.0,))
    assert check(inst, {"cuts": [], "devices": [[0, 1]]}).objective == pytest.approx(2.5)


def test_topology_presets_and_widest_paths(tmp_path):
    g = topology("two-level:2x4")
    assert g.num_devices == 8 and g.widest[0, 3] == 25e9 and g.widest[0, 4] == 1e9
    ring = topology("ring:5:2")
    assert ring.widest[0, 2] == 2e9 and len(ring.links) == 5
    w = widest_paths(3, [(0, 1, 5.0), (1, 2, 3.0), (0, 2, 1.0)])
    assert w[0, 2] == 3.0  # via device 1: min(5, 3) beats the direct 1
    assert topology("random:6", seed=3).links == topology("random:6", seed=3).links
    with pytest.raises(InvalidOptionError):
        topology("mesh:4")
    user = {"devices": [{"speed": 2.0, "memory_gb": 8}, {}], "links": [{"a": 0, "b": 1, "bandwidth_gb_s": 3}]}
    path = tmp_path / "u.json"
    path.write_text(json.dumps(user))
    g = load_topology(path)
    assert g.speed == (2.0, 1.0) and g.memory_bytes[0] == 8e9 and g.to_networkx().number_of_edges() == 1


def test_profile_json_and_scaling(tmp_path):
    prof = load_pipedream_graph_chain(tmp_path)
    path = tmp_path / "p.json"
    prof.save(path)
    assert load_profile(path) == prof
    half = prof.scaled(prof.batch_size / 2)
    assert half.forward_s[0] == pytest.approx(prof.forward_s[0] / 2)
    assert half.parameter_bytes == prof.parameter_bytes


def load_pipedream_graph_chain(tmp_path):
    nodes = [(f"node{i}", f"L{i}", 1.0 * i, 2.0, 8.0, 4.0) for i in range(1, 4)]
    path = tmp_path / "c.txt"
    path.write_text(graph_text(nodes, [("node1", "node2"), ("node2", "node3")]))
    return load_pipedream_graph(path, batch_size=8)


def test_cli_import_generate_solve_export(tmp_path, capsys):
    graph = tmp_path / "toy.graph.txt"
    graph.write_text(DIAMOND)
    prof = tmp_path / "profile.json"
    with pytest.raises(InvalidOptionError):  # unknown profiling batch for a custom file name
        load_pipedream_graph(graph)
    path = tmp_path / "vgg16.graph.txt"  # a released profile name: batch 128 is known
    path.write_text(DIAMOND)
    assert main(["import", "pipedream-profile", str(path), "-o", str(prof)]) == 0
    inst_path = tmp_path / "inst.json"
    assert main(["generate", "pipeline-partition", "--profile", str(prof), "--topology", "two-level:1x2",
                 "--stages", "2", "--microbatches", "4", "--objective", "sync-estimate", "--seed", "1",
                 "-o", str(inst_path)]) == 0
    assert main(["solve", "pipeline-partition", str(inst_path), "--method", "dp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal"
    assert main(["export", "pipeline-partition", str(inst_path), "-o", str(tmp_path / "m.mps")]) == 0
