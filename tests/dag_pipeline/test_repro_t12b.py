"""The T12b repro script (``optsched/problems/dag_pipeline/repro.py``) on its smallest cell (real
data; skipped without it)."""

from __future__ import annotations

from tests.conftest import require_data
from tests.repro_support import RecordingWriter, load_problem_script


def test_t12b_smallest_cell_and_report():
    require_data("graphs/dnn-partitioning/throughput-inputs/LayerGraphs/bert24_training.json")
    t12b = load_problem_script("dag_pipeline")
    row = t12b.run_cell({"graph": t12b.GRAPHS_QUICK[0], "stages": 2}, 0)
    for key in ("bottleneck", "sync"):
        assert row[f"{key}_dag_status"] == "optimal"
        assert row[f"{key}_dag"] <= row[f"{key}_chain"] * (1 + 1e-6)  # every chain plan is a DAG plan
    assert abs(row["bottleneck_order_dp"] - row["bottleneck_chain"]) <= 1e-6 * row["bottleneck_chain"]
    out = RecordingWriter()
    t12b.report([row], out)
    assert "dag_vs_chain" in out.tables
