"""T17's cells, one row and its report; the acceptance run on real profiles (slow, needs data)."""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.pipeline_partition.generate import generate
from tests.conftest import require_data
from tests.repro_support import RecordingWriter, load_problem_script

PROFILES = ("vgg16", "resnet50", "inception_v3", "densenet121", "resnext101", "gnmt", "gnmt_large")


def test_t17_cells_row_and_report():
    t17 = load_problem_script("pipeline_partition", "repro_t17")
    quick = t17.cells(True)
    assert len(quick) < len(t17.cells(False))
    assert all(set(c) == {"profile", "topology", "objective", "time_limit_s"} for c in quick)
    require_data("profiles/pipedream/gnmt.graph.txt")
    row = t17.run_cell({"profile": "gnmt", "topology": "pcie:2x2x2:15.75:10:5", "objective": "bottleneck",
                        "time_limit_s": 30.0}, 0)
    assert row["exact_status"] == "optimal"
    for name in (*t17.ORDERS, *t17.PLANNERS):
        assert row[name] >= row["exact"] * (1 - 1e-9)  # float sums in another order: 1e-9 relative
    assert row["tree-order-dp"] <= row["spread"] * row["exact"] * (1 + 1e-9)
    out = RecordingWriter()
    t17.report([row], out)
    assert set(out.tables) == {"mapping", "runtimes"}
    assert out.tables["mapping"].rows[0]["exact [ours]"] == row["exact"]


@pytest.mark.slow
@pytest.mark.parametrize("model", PROFILES)
def test_acceptance_dgx1_and_two_dgx1(model):
    """The issue's acceptance: map-bb proves the bottleneck optimum on DGX-1 and 2 x DGX-1 for every
    PipeDream profile (within its 60 s limit: status optimal), and no order heuristic or public
    planner beats it."""
    path = require_data(f"profiles/pipedream/{model}.graph.txt")
    for topology in ("dgx1", "dgx1x2"):
        inst = generate(0, profile=str(path), topology=topology, objective="bottleneck", microbatches=8)
        r = optsched.solve(inst, "map-bb", time_limit=60)
        assert r.status == "optimal", (model, topology, r.stats.get("phase"))
        for name in ("tree-order-dp", "pipedream", "dapple", "time-balanced", "uniform"):
            other = optsched.solve(inst, name)
            assert other.objective >= r.objective * (1 - 1e-9), (model, topology, name)
