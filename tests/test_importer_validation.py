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


# -- values the formats cannot mean ------------------------------------------------------------

def _operator_doc(**top):
    doc = _operator_graph()
    doc.update(top)
    return doc


@pytest.mark.parametrize("fmt", ["dnn-partitioning-stages", "dnn-partitioning-hap"])
@pytest.mark.parametrize("where,value,field", [
    ("nodes.1.colorClass", None, "nodes[1].colorClass"),          # null is no class: leave the key out
    ("nodes.1.colorClass", 2 ** 70, "nodes[1].colorClass"),
    ("nodes.2.size", 2 ** 53 + 1, "nodes[2].size"),                # a float would read it as 2^53
    ("edges.1.size", 2 ** 53 + 1, "edges[1].size"),
    ("nodes.2.size", 1e308, "nodes[2].size"),
    ("nodes.0.cpuLatency", 1e51, "nodes[0].cpuLatency"),
    ("nodes.3.id", 2 ** 53 + 1, "nodes[3].id"),
])
def test_operator_graph_values_past_the_limits_are_refused(tmp_path, capsys, fmt, where, value, field):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_operator_graph(**{where: value})))
    code, err = run_import(capsys, fmt, path)
    assert code == 2 and field in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("fmt", ["dnn-partitioning-stages", "dnn-partitioning-hap"])
@pytest.mark.parametrize("key,value", [("maxCPUs", 1e308), ("maxFPGAs", 2 ** 53 + 1), ("maxSizePerFPGA", 1e308),
                                       ("maxCPUs", 1.5)])
def test_operator_graph_budgets_past_the_limits_are_refused(tmp_path, capsys, fmt, key, value):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_operator_doc(**{key: value})))
    code, err = run_import(capsys, fmt, path)
    assert code == 2 and key in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("fmt", ["dnn-partitioning-stages", "dnn-partitioning-hap"])
def test_operator_graph_with_a_key_twice_is_refused(tmp_path, capsys, fmt):
    path = tmp_path / "graph.json"
    text = json.dumps(_operator_graph())
    path.write_text(text[:-1] + ', "maxCPUs": 3}')
    code, err = run_import(capsys, fmt, path)
    assert code == 2 and "duplicate key 'maxCPUs'" in err, err


#: the import formats of Gavel traces (every one reads both layouts)
GAVEL_TRACE_FORMATS = ["gavel-online", "gavel-snapshot", "gavel-trace-ps", "gavel-trace-rar",
                       "gavel-trace-online", "gavel-srpt"]


@pytest.mark.parametrize("fmt", GAVEL_TRACE_FORMATS)
@pytest.mark.parametrize("layout,column,name", [("ten", 1, "command"), ("ten", 2, "working_directory"),
                                               ("ten", 3, "num_steps_arg"), ("ten", 7, "priority_weight"),
                                               ("seven", 2, "num_steps_arg"), ("seven", 1, "command")])
def test_an_empty_gavel_trace_column_is_refused_naming_it(tmp_path, capsys, fmt, layout, column, name):
    from tests.trace_files import seven_columns, ten_columns

    path = (ten_columns if layout == "ten" else seven_columns)(tmp_path / "t.trace")
    lines = path.read_bytes().decode().split("\n")
    at = [i for i, line in enumerate(lines) if line.strip()][1]   # the second job's line
    cells = lines[at].split("\t")
    cells[column] = ""
    lines[at] = "\t".join(cells)
    path.write_text("\n".join(lines))
    code, err = run_import(capsys, fmt, path)
    assert code == 2 and name in err and "must not be empty" in err and "line" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("token", ["nan", "inf", "-Infinity", "NaN"])
@pytest.mark.parametrize("where", ["profits", "weights", "capacities"])
def test_an_orlib_non_finite_number_names_file_and_line(tmp_path, capsys, token, where):
    lines = ["1", "3 1 0", "5 4 3", "2 3 1", "4"]
    row = {"profits": 2, "weights": 3, "capacities": 4}[where]
    words = lines[row].split()
    words[0] = token
    lines[row] = " ".join(words)
    path = tmp_path / "orlib.txt"
    path.write_text("\n".join(lines) + "\n")
    code, err = run_import(capsys, "orlib-mknap", path)
    assert code == 2 and f"orlib.txt line {row + 1}" in err and where in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("entry,words", [
    ({"null": float("nan")}, "NaN is not a JSON number"), ({"null": float("inf")}, "Infinity is not a JSON number"),
    ({"null": True}, "('A', 1) null"), ({"null": 1e308}, "('A', 1) null"),
    ({"null": 2.0, "('B', 1)": [float("nan"), 1.0]}, "NaN is not a JSON number"),
    ({"null": 2.0, "('B', 1)": [True, 1.0]}, "A / ('B', 1)"),
    ({"null": 2.0, "('B', 1)": [1e308, 1.0]}, "A / ('B', 1)"),
])
def test_gavel_throughputs_refuse_values_they_cannot_mean(tmp_path, entry, words):
    from optsched.core.errors import InvalidInstanceError
    from optsched.workloads.interference import load_gavel_interference

    table = {"('A', 1)": dict(entry), "('B', 1)": {"null": 1.0, "('A', 1)": [0.5, 0.5]}}
    path = tmp_path / "throughputs.json"
    path.write_text(json.dumps({"v100": table}))
    with pytest.raises(InvalidInstanceError) as err:
        load_gavel_interference(path)
    assert words in str(err.value), err.value


def test_gavel_throughputs_with_a_key_twice_are_refused(tmp_path):
    from optsched.core.errors import InvalidInstanceError
    from optsched.workloads.interference import load_gavel_interference

    path = tmp_path / "throughputs.json"
    path.write_text('{"v100": {"(\'A\', 1)": {"null": 1.0}, "(\'A\', 1)": {"null": 2.0}}}')
    with pytest.raises(InvalidInstanceError, match=r"duplicate key \"\('A', 1\)\""):
        load_gavel_interference(path)
