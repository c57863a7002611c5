"""Importers validate like the instance constructors: finite, in-range values, a malformed line
named by its line number, ``--index`` checked against what the file holds; exit 2 with one line.
"""

from __future__ import annotations

import json
import math
import pickle

import pytest

from optsched.cli import main


def run_import(capsys, fmt, path, *extra):
    code = main(["import", fmt, str(path), "-o", str(path.parent / "out.json"), *extra])
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("text,words", [
    ("1 2\n2 nan\n", "line 2: node id 'nan' is not a non-negative integer"),
    ("1 2\n2 -3\n", "line 2: node id '-3' is not a non-negative integer"),
    ("1 2\n2 1.5\n", "line 2: node id '1.5' is not a non-negative integer"),
    ("1 2\n2 inf\n", "line 2: node id 'inf'"),
    ("1 2\n2 x\n", "line 2: node id 'x' is not a non-negative integer"),
    ("a b\nb 3\n", "line 2: node id '3' is an integer in a file of named nodes"),
    ("a b\nb -3\n", "line 2: node id '-3' is not a non-negative integer"),
    ("# c\n1 2 0.5\n2 3 nan\n", "line 3: value 'nan' must be a finite number >= 0"),
    ("1 2 0.5\n2 3 -1\n", "line 2: value '-1' must be a finite number >= 0"),
    ("1 2 0.5\n2 3 heavy\n", "line 2: value 'heavy'"),
    ("1 2\n3\n", "line 2: expected two node ids"),
])
def test_edge_list_malformed_lines_are_named(tmp_path, capsys, text, words):
    path = tmp_path / "g.txt"
    path.write_text(text)
    code, err = run_import(capsys, "edge-list", path)
    assert code == 2 and words in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


def test_edge_list_valid_files_still_import(tmp_path, capsys):
    for text in ("source,target,weight\n10,20,1.5\n20,30,2\n", "alice bob\nbob carol\n", "0 1\n1 2 0\n"):
        path = tmp_path / "g.txt"
        path.write_text(text)
        code, err = run_import(capsys, "edge-list", path)
        assert code == 0, err


def _planetoid(tmp_path):
    path = tmp_path / "ind.toy.graph"
    path.write_bytes(pickle.dumps({0: [1, 2], 1: [0, 2], 2: [0, 1, 3], 3: [2]}))
    return path


@pytest.mark.parametrize("fmt,make", [("edge-list", lambda p: (p / "g.txt", "0 1\n1 2\n")),
                                      ("planetoid-graph", None), ("planetoid-cache", None)])
@pytest.mark.parametrize("index", ["-1", "1", "1000000000"])
def test_single_graph_formats_refuse_other_indices(tmp_path, capsys, fmt, make, index):
    if make is None:
        path = _planetoid(tmp_path)
    else:
        path, text = make(tmp_path)
        path.write_text(text)
    code, err = run_import(capsys, fmt, path, "--index", index)
    assert code == 2 and "--index" in err and "holds one graph" in err, err
    code, err = run_import(capsys, fmt, path, "--index", "0")
    assert code == 0, err


@pytest.mark.parametrize("index", ["1e9", "one", "0.5"])
def test_an_index_that_is_no_integer_is_a_usage_error(tmp_path, capsys, index):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n")
    code, err = run_import(capsys, "edge-list", path, "--index", index)
    assert code == 2 and "--index" in err and len(err.strip().splitlines()) == 1, err


def _operator_graph(**changes):
    nodes = [{"id": i, "name": f"op{i}", "cpuLatency": 1.0, "fpgaLatency": 0.5, "size": 10.0,
              "isBackwardNode": False, "supportedOnFpga": True, "colorClass": i} for i in range(4)]
    edges = [{"sourceId": i, "destId": i + 1, "size": 4.0, "cost": 0.1} for i in range(3)]
    doc = {"maxSizePerFPGA": 100.0, "maxFPGAs": 2, "maxCPUs": 1, "nodes": nodes, "edges": edges}
    for where, value in changes.items():
        kind, index, key = where.split(".")
        doc[kind][int(index)][key] = value
    return doc


@pytest.mark.parametrize("fmt", ["dnn-partitioning-stages", "dnn-partitioning-hap"])
@pytest.mark.parametrize("where", ["nodes.2.cpuLatency", "nodes.1.fpgaLatency", "nodes.3.size", "edges.1.size",
                                   "edges.0.cost"])
@pytest.mark.parametrize("value", [math.nan, -1.0, math.inf, "3", None])
def test_dnn_partitioning_values_are_finite_and_nonnegative(tmp_path, capsys, fmt, where, value):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_operator_graph(**{where: value})))
    code, err = run_import(capsys, fmt, path)
    kind, index, key = where.split(".")
    assert code == 2 and f"{kind}[{index}].{key}" in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("fmt", ["dnn-partitioning-stages", "dnn-partitioning-hap"])
@pytest.mark.parametrize("index", ["-1", "0", "1000000000"])
def test_dnn_partitioning_holds_one_graph(tmp_path, capsys, fmt, index):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_operator_graph()))
    code, err = run_import(capsys, fmt, path, "--index", index)
    assert code == 2 and "--index" in err, err


def test_orlib_index_is_checked_against_the_file(tmp_path, capsys):
    # one problem: n = 3 items, m = 1 row, optimum 0 unknown; profits, then the row, then capacity
    path = tmp_path / "orlib.txt"
    path.write_text("1\n3 1 0\n5 4 3\n2 3 1\n4\n")
    assert run_import(capsys, "orlib-mknap", path, "--index", "0")[0] == 0
    for index in ("1", "-1", "1000000000"):
        code, err = run_import(capsys, "orlib-mknap", path, "--index", index)
        assert code == 2 and "holds problems 0..0" in err, err
