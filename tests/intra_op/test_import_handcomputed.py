"""intra-op's ``iopddl`` importer against values computed by hand from the contest's format.

Format (google/iopddl, ``optsched/problems/intra_op/README.md``): per node an interval ``[start, end]`` that is
half-open -- the node is live at the integer times ``start <= t < end`` --, a cost and a usage per
strategy; per edge ``[u, v]`` and a row-major ``|S_u| x |S_v|`` cost matrix (entry ``i |S_v| + j``
is strategy i of u with strategy j of v); ``usage_limit`` bounds the summed usage at every time.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from optsched.problems.intra_op.generate import load_iopddl
from optsched.problems.intra_op.instance import IntraOpInstance, check, peak_usage, plan_cost, usage_profile

from tests.conftest import require_data

DOC = {"problem": {
    "name": "hand",
    "nodes": {"intervals": [[0, 2], [2, 4], [1, 2]],
              "costs": [[10, 20], [1, 2, 3], [1e18]],
              "usages": [[3, 1], [3, 0, 9], [1]]},
    "edges": {"nodes": [[0, 1]], "costs": [[1, 2, 3, 4, 5, 6]]},
    "usage_limit": 4}}


def _load(tmp_path, doc=DOC):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc))
    return load_iopddl(path)


def test_fields_and_row_major_edge_costs(tmp_path):
    inst = _load(tmp_path)
    assert inst.name == "hand" and inst.num_nodes == 3 and inst.usage_limit == 4.0
    assert list(inst.num_strategies) == [2, 3, 1]
    assert list(inst.start) == [0, 2, 1] and list(inst.end) == [2, 4, 2]   # as written, not end + 1
    assert inst.node_costs(1).tolist() == [1, 2, 3] and inst.node_usages(0).tolist() == [3, 1]
    # row-major 2 x 3: rows are u's strategies (column-major would be [[1, 3, 5], [2, 4, 6]])
    assert inst.edge_matrix(0).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert inst.node_costs(2).tolist() == [1e18]   # the contest's sentinel is kept (forbidden)


def test_intervals_are_half_open(tmp_path):
    inst = _load(tmp_path)
    s = np.array([0, 0, 0])
    # live sets: t=0 {0}, t=1 {0, 2}, t=2 {1}, t=3 {1}: usages 3, 3 + 1, 3, 3
    assert usage_profile(inst, s)[:4].tolist() == [3, 4, 3, 3]
    assert peak_usage(inst, s) == 4.0
    total, _, _ = plan_cost(inst, s)
    assert total == pytest.approx(10 + 1 + 1e18 + 1)    # node costs + edge (0, 0)
    # node 2's only strategy is forbidden; without it the plan meets the limit of 4 exactly.
    doc = json.loads(json.dumps(DOC))
    doc["problem"]["nodes"]["costs"][2] = [0]
    inst = _load(tmp_path, doc)
    report = check(inst, {"strategy": [0, 0, 0]})
    assert report.feasible, report.violations
    assert report.objective == pytest.approx(10 + 1 + 0 + 1)
    # an inclusive reading [start, end] makes node 0 (end 2) overlap node 1 (start 2): 3 + 3 + 1 = 7
    # at t = 2 > 4, so the same plan is infeasible: the reading matters on this file
    inclusive = IntraOpInstance(num_strategies=inst.num_strategies, cost=inst.cost, usage=inst.usage,
                                start=inst.start, end=inst.end + 1, edge_u=inst.edge_u, edge_v=inst.edge_v,
                                edge_cost=inst.edge_cost, usage_limit=inst.usage_limit)
    assert inclusive != inst
    assert usage_profile(inclusive, s)[2] == 7
    assert not check(inclusive, {"strategy": [0, 0, 0]}).feasible


@pytest.mark.data
@pytest.mark.parametrize("name", ["example.json", "asplos-2025-iopddl-B.json.gz"])
def test_real_files_against_the_json_read_directly(name):
    path = require_data(f"iopddl/{name}")
    raw = path.read_bytes()
    p = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["problem"]
    inst = load_iopddl(path)
    n = len(p["nodes"]["costs"])
    assert inst.num_nodes == n and inst.usage_limit == p.get("usage_limit")
    assert list(inst.start) == [iv[0] for iv in p["nodes"]["intervals"]]
    assert list(inst.end) == [iv[1] for iv in p["nodes"]["intervals"]]
    for v in (0, n // 2, n - 1):
        assert inst.node_costs(v).tolist() == [float(x) for x in p["nodes"]["costs"][v]]
        assert inst.node_usages(v).tolist() == [float(x) for x in p["nodes"]["usages"][v]]
    m = len(p["edges"]["nodes"])
    for e in (0, m // 2, m - 1):
        u, v = p["edges"]["nodes"][e]
        assert (int(inst.edge_u[e]), int(inst.edge_v[e])) == (u, v)
        ku, kv = len(p["nodes"]["costs"][u]), len(p["nodes"]["costs"][v])
        want = [[float(p["edges"]["costs"][e][i * kv + j]) for j in range(kv)] for i in range(ku)]
        assert inst.edge_matrix(e).tolist() == want
