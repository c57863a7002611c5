"""IOPDDL files unlike the contest's: one strategy per node, no edges key, no usage limit, a limit no
plan meets (exit 3), only forbidden strategies (exit 3), gzip under a .json name and plain under
.gz, CRLF/BOM."""

import gzip
import json

import pytest

from optsched.cli import main
from optsched.problems.intra_op.generate import load_iopddl


def _write(path, problem, gz=False, prefix=b""):
    data = prefix + json.dumps({"problem": problem}).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


ONE = {"name": "one", "nodes": {"intervals": [[0, 3], [1, 2], [2, 5]], "costs": [[5], [7], [1]],
                                "usages": [[2], [3], [4]]}, "usage_limit": 10}
# no edges; the cheap strategies overlap at t = 1 with usage 18 > 10: best = strategies (0, 0), cost 12
TWO = {"name": "ne", "nodes": {"intervals": [[0, 3], [1, 2]], "costs": [[5, 1], [7, 2]], "usages": [[2, 9], [3, 9]]},
       "edges": {"nodes": [], "costs": []}, "usage_limit": 10}
INFEASIBLE = {"name": "inf", "nodes": {"intervals": [[0, 3], [1, 2]], "costs": [[5, 1], [7, 2]],
                                       "usages": [[6, 9], [6, 9]]},
              "edges": {"nodes": [[0, 1]], "costs": [[0, 1, 2, 3]]}, "usage_limit": 10}
FORBIDDEN = {"name": "fb", "nodes": {"intervals": [[0, 3]], "costs": [[1e18, 1e18]], "usages": [[1, 1]]},
             "usage_limit": 5}


def _solve(tmp_path, path):
    inst, res = tmp_path / "x.json", tmp_path / "r.json"
    assert main(["import", "iopddl", str(path), "-o", str(inst)]) == 0
    code = main(["solve", "intra-op", str(inst), "--time-limit", "20", "-o", str(res)])
    return code, json.loads(res.read_text()) if res.exists() else None, inst, res


def test_one_strategy_per_node(tmp_path):
    inst = load_iopddl(_write(tmp_path / "one.json", ONE))
    assert inst.num_nodes == 3 and list(inst.num_strategies) == [1, 1, 1] and inst.usage_limit == 10.0
    code, result, ipath, rpath = _solve(tmp_path, tmp_path / "one.json")
    assert code == 0 and result["status"] == "optimal" and result["objective"] == 13.0
    assert main(["check", "intra-op", str(ipath), str(rpath)]) == 0


@pytest.mark.parametrize("name, gz, prefix", [("ne.json", True, b""), ("ne.json.gz", False, b"\xef\xbb\xbf")])
def test_no_edges_gzip_by_content_not_name(tmp_path, name, gz, prefix):
    path = _write(tmp_path / name, TWO, gz=gz, prefix=prefix)
    assert load_iopddl(path).edge_u.size == 0
    code, result, _, _ = _solve(tmp_path, path)
    assert code == 0 and result["objective"] == 12.0


def test_no_usage_limit_and_forbidden_cost(tmp_path):
    doc = dict(INFEASIBLE, usage_limit=None, name="nl")
    doc["nodes"] = dict(doc["nodes"], costs=[[5, 1e18], [7, 2]])
    del doc["usage_limit"]
    code, result, _, _ = _solve(tmp_path, _write(tmp_path / "nl.json", doc))
    # node 0 must take strategy 0 (the other is forbidden); edge cost row 0 = [0, 1]: 5 + 2 + 1 = 8
    assert code == 0 and result["objective"] == 8.0 and result["solution"]["strategy"] == [0, 1]


@pytest.mark.parametrize("doc", [INFEASIBLE, FORBIDDEN], ids=["limit", "all-forbidden"])
def test_infeasible_is_exit_3(tmp_path, doc):
    code, result, _, _ = _solve(tmp_path, _write(tmp_path / "i.json", doc))
    assert code == 3 and result["status"] == "infeasible"


def test_not_json_is_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(b'{"problem": '))
    assert main(["import", "iopddl", str(path)]) == 2
    assert "(file)" in capsys.readouterr().err
