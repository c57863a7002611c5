"""T6's Ada-Grouper part (``optsched/problems/pipeline_adaptive/repro.py``): cells, one row and the
report, through a minimal in-memory writer (the repro runner and the joining of a table's parts are
tested on their own)."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

from tests.repro_support import RecordingWriter, load_problem_script  # noqa: E402


def test_cells_row_and_report():
    t6 = load_problem_script("pipeline_adaptive")
    exp = t6.EXPERIMENT
    assert (exp.id, exp.part, exp.order) == ("T6", "ada", 1)
    quick = exp.cells(True)
    assert 0 < len(quick) < len(exp.cells(False)) and all(c["part"] == "ada" for c in quick)
    json.dumps(quick)  # cells are JSON-able
    t6.ADA_ITERATIONS = 20  # a shorter run, to keep the unit test fast
    row = exp.run_cell(quick[0], quick[0]["seed"])
    json.dumps(row)  # rows are JSON-able
    assert row == exp.run_cell(quick[0], quick[0]["seed"])  # deterministic
    assert 0.0 <= row["preempted_share"] <= 1.0
    assert all(row[f"{p}_mean_iteration"] > 0 for p in t6.ADA_POLICIES)
    writer = RecordingWriter()
    exp.report([row], writer)
    assert {"ada_grouper", "ada_grouper_traces"} <= set(writer.tables)
    assert not writer.figures  # the figure's left panel is the schedule part's: drawn only when both report
    traces = writer.tables["ada_grouper_traces"].rows[0]
    assert all(traces[f"{p}_memory_fraction"] <= 1.0 for p in t6.ADA_POLICIES)
