"""The T4 script: cells, one cheap row of each kind and the report, through a fake writer."""

from __future__ import annotations

from tests.repro_support import RecordingWriter, load_problem_script


def test_t4_cells_rows_and_report():
    t4 = load_problem_script("rar_makespan")
    cells = t4.cells(True)
    assert sum(c["part"] == "main" for c in cells) == 10  # the acceptance's 10 seeds, QUICK too
    rows = [t4.run_cell({"part": "small", "instance_seed": s}, seed=s) for s in range(2)]
    rows.append(t4.run_cell({"part": "kappa", "instance_seed": 0, "kappa": 4}, seed=0))
    writer = RecordingWriter()
    t4.report(rows, writer)
    assert set(writer.tables) == {"vs_kappa", "small_vs_bound"} and "vs_kappa" in writer.figures
    ratios = writer.tables["small_vs_bound"].rows
    assert [r["method"] for r in ratios] == ["sjf-bco", "ff", "ls", "random"]
    for row in rows[:2]:  # the bound is below every method's makespan
        assert all(row[f"{m}_makespan"] >= row["milp_bound"] for m in ("sjf_bco", "ff", "ls", "random"))
