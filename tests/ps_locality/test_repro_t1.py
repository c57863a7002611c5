"""T1 (optsched/problems/ps_locality/repro.py): cells, one row, and the report through a fake writer."""

from __future__ import annotations

from tests.repro_support import RecordingWriter, load_problem_script


def test_t1_cells_row_and_report():
    t1 = load_problem_script("ps_locality")
    assert t1.EXPERIMENT.id == "T1"
    quick, full = t1.cells(True), t1.cells(False)
    assert len(quick) == 18 and len(full) == 96 and all(isinstance(c["seed"], int) for c in quick)
    row = t1.run_cell(quick[0], quick[0]["seed"])
    assert row["milp_status"] == "optimal"
    assert row["lp_over_opt"] <= 1 + 1e-6
    for method in ("rr", "online_rr", "fifo_locality", "drf"):
        assert row[f"{method}_status"] == "feasible" and row[f"{method}_over_opt"] >= 1 - 1e-6
    assert row["rr_trials_beyond_bound"] <= row["rr_trials"]
    out = RecordingWriter()
    t1.report([row], out)
    assert set(out.tables) == {"cells", "summary", "rounding"} and list(out.figures) == ["ratios"]
    cells_rows, columns, notes = out.tables["cells"].rows, out.tables["cells"].columns, out.tables["cells"].notes
    assert set(columns) <= set(row) and any("1 of 1 instances solved" in n for n in notes)
    assert out.tables["rounding"].rows[0]["trials"] == row["rr_trials"]
