"""pipeline-partition on the command line: profile names on its generator's ``--profile``, its
PipeDream profile importer and the profiling batch size (the problem-free help and option cases: ``tests/test_cli_help.py``)."""

from __future__ import annotations

import json

import pytest

from optsched.cli import main

def test_generate_takes_profile_names(capsys, tmp_path):
    path = tmp_path / "i.json"
    assert main(["generate", "pipeline-partition", "--profile", "bert-large", "--stages", "2", "-o", str(path)]) == 0
    assert json.loads(path.read_text())["problem"] == "pipeline-partition"


def test_generate_with_an_unknown_profile_name_lists_the_names(capsys):
    code = main(["generate", "pipeline-partition", "--profile", "no-such-model"])
    err = capsys.readouterr()[1]
    assert code == 2 and err.count("\n") == 1 and "models/bert-large" in err


GRAPH = """node1 -- Input0 -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=100.0, parameter_size=0.000
node2 -- Linear(8, 8) -- forward_compute_time=2.000, backward_compute_time=4.000, activation_size=100.0, parameter_size=256.000
node3 -- ReLU -- forward_compute_time=1.000, backward_compute_time=1.000, activation_size=100.0, parameter_size=0.000
\tnode1 -- node2
\tnode2 -- node3
"""


def test_import_pipedream_profile_batch_size(capsys, tmp_path):
    graph = tmp_path / "mynet.graph.txt"
    graph.write_text(GRAPH)
    # a file other than PipeDream's seven: imported at batch 1, and the provenance says so
    unknown = tmp_path / "u.json"
    assert main(["import", "pipedream-profile", str(graph), "-o", str(unknown)]) == 0
    inst1 = json.loads(unknown.read_text())
    assert inst1["profile_batch"] == 1.0 and "profiling batch unknown" in inst1["provenance"]
    out_path = tmp_path / "p.json"
    assert main(["import", "pipedream-profile", str(graph), "--batch-size", "32", "-o", str(out_path)]) == 0
    inst = json.loads(out_path.read_text())  # a pipeline-partition instance with generate's defaults
    assert inst["problem"] == "pipeline-partition" and inst["profile_batch"] == 32.0
    assert inst["name"].startswith("mynet@") and "unknown" not in inst["provenance"]
    # the default instance depends on the microbatch count only: the same optimum either way
    solved = []
    for path in (unknown, out_path):
        assert main(["solve", "pipeline-partition", str(path), "--method", "dp", "--quiet",
                     "-o", str(path.with_suffix(".res"))]) == 0
        solved.append(json.loads(path.with_suffix(".res").read_text()))
    assert solved[0]["objective"] == pytest.approx(solved[1]["objective"], rel=1e-12)  # float rounding only
    assert solved[0]["solution"] == solved[1]["solution"]
    assert main(["import", "pipedream-profile", str(graph), "--batch-size", "0"]) == 2
    capsys.readouterr()
