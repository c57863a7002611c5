"""T6's schedule part (``optsched/problems/pipeline_schedule/repro.py``): cells, rows and report, through a minimal in-memory writer (the repro runner is tested
on its own)."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

from tests.repro_support import RecordingWriter, load_problem_script  # noqa: E402


def test_cells_rows_and_report():
    t6 = load_problem_script("pipeline_schedule")
    exp = t6.EXPERIMENT
    assert exp.id == "T6"
    quick = exp.cells(True)
    assert len(quick) < len(exp.cells(False))
    json.dumps(quick)  # cells are JSON-able
    # one cell of each kind, at reduced size, to keep the unit test fast (2 stages, 3 microbatches)
    small = {"stages": 2, "microbatches": 3, "heterogeneity": 0.6, "transfer": 0.5, "allreduce": 0.5}
    t6.FAMILIES = {"hetero-small": {**small, "cap": "1f1b"}, "hetero-small-uncapped": small,
                   "medium": {**small, "stages": 4, "microbatches": 8}}
    picked = [c for c in quick if c["part"] == "schedule" and c["seed"] == t6.SEED_BASE]
    rows = [exp.run_cell(c, c["seed"]) for c in picked]
    json.dumps(rows)  # rows are JSON-able
    again = exp.run_cell(picked[0], picked[0]["seed"])
    assert {k: v for k, v in again.items() if not k.endswith("_s")} == \
        {k: v for k, v in rows[0].items() if not k.endswith("_s")}
    capped = rows[0]
    assert capped["family"] == "hetero-small" and capped["gpipe_makespan"] is None  # gpipe needs M > cap
    assert capped["opt"] <= capped["list_makespan"] * (1 + 1e-6) and capped["lower_bound"] <= capped["opt"] * (1 + 1e-6)
    writer = RecordingWriter()
    exp.report(rows, writer)
    assert {"schedules", "schedule_cells"} <= set(writer.tables)
    assert "summary" in writer.figures
