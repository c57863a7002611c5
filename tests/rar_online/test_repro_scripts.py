"""The T3 script: cells, one cheap row of each kind and the report, through a fake writer."""

from __future__ import annotations

from tests.repro_support import RecordingWriter, load_problem_script


def test_t3_cells_rows_and_report():
    t3 = load_problem_script("rar_online")
    rows = [t3.run_cell({"part": "small", "objective": "utility", "instance_seed": s}, seed=s) for s in range(2)]
    demand = t3.run_cell({"part": "small-demand", "objective": "utility", "instance_seed": 0}, seed=0)
    assert demand["theorem_applies"]
    assert demand["gadget_exact_value"] >= demand["reference_value"] / demand["registered_factor"]
    writer = RecordingWriter()
    t3.report(rows + [demand], writer)
    assert "small_demand" in writer.tables
    table = writer.tables["small_utility"].rows
    assert table[-2]["method"].startswith("reference")
    # the LP bound's gap to OPT, measured where OPT is known
    assert table[-1]["method"] == "LP bound (its gap to OPT)" and table[-1]["value / offline optimum (milp)"].startswith("LP / OPT")
    for row in rows:  # the offline optimum is never beaten by an online policy
        assert all(row[f"{m}_value"] <= row["reference_value"] + 1e-9 for m in ("gadget", "fifo", "tiresias_las"))
