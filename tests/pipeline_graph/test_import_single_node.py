"""A one-node PipeDream graph through this problem's importer and the command line."""

from optsched.cli import main


def test_single_node_cli_end_to_end(tmp_path):
    path = tmp_path / "one.graph.txt"
    path.write_text("only -- Linear -- forward_compute_time=2.000, backward_compute_time=0.000, "
                    "activation_size=0.0, parameter_size=0.000\n")
    inst = tmp_path / "g.json"
    assert main(["import", "pipedream-graph", str(path), "-o", str(inst)]) == 0
    res = tmp_path / "r.json"
    assert main(["solve", "pipeline-graph", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "pipeline-graph", str(inst), str(res)]) == 0
