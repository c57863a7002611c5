"""Table T2's script: cells, run_cell and report on a few small cells, with a recording writer."""

from __future__ import annotations

import json

import pytest

from tests.repro_support import RecordingWriter, load_problem_script


@pytest.fixture(scope="module")
def t2():
    return load_problem_script("smd")


def test_cells_are_json_and_carry_seeds(t2):
    for quick in (True, False):
        cells = t2.cells(quick)
        json.dumps(cells)
        assert all(isinstance(c["seed"], int) for c in cells)
    assert len(t2.cells(False)) > len(t2.cells(True))
    assert sum(c["family"] == "small t=0.5" for c in t2.cells(False)) >= 50
    assert t2.EXPERIMENT.id == "T2"
    # the repository ships profiles in models/: the real-profile family must be there (a wrong path
    # to the folder would drop it silently)
    assert any(t2.MODELS.glob("*.json")) and any(c["family"] == "real profiles" for c in t2.cells(True))


def test_run_cell_and_report(t2):
    cells = [c for c in t2.cells(True) if c["family"].startswith("small")][:3]
    cells += [c for c in t2.cells(True) if c["family"] == "medium"][:1]
    rows = [t2.run_cell(c, c["seed"]) for c in cells]
    json.dumps(rows)
    for row in rows:
        assert row["milp_status"] == "optimal"
        assert row["smd_ratio"] >= 1 - t2.OPTIMAL_RTOL
        assert row["lp_bound"] <= row["opt"] * (1 + t2.OPTIMAL_RTOL)
        assert not row["smd_bound_above_opt"]
        assert row["smd_certify"] == "certified" and row["smd_ratio"] <= 1.005 + t2.OPTIMAL_RTOL
    again = t2.run_cell(cells[0], cells[0]["seed"])
    assert {k: v for k, v in again.items() if not k.endswith("_s")} == \
        {k: v for k, v in rows[0].items() if not k.endswith("_s")}
    out = RecordingWriter()
    t2.report(rows, out)
    assert {"summary", "smd_presets", "smd_stops", "instances"} <= set(out.tables)
    presets = {r["preset"]: r for r in out.tables["smd_presets"].rows}
    assert set(presets) == {"smd-small", "smd-medium"}  # no smd-large cell among these
    assert presets["smd-small"]["instances"] == sum(c["family"] == "small t=0.5" for c in cells)
    assert presets["smd-small"]["smd_worst"] == max(r["smd_ratio"] for r in rows if r["family"] == "small t=0.5")
    summary, notes = out.tables["summary"].rows, out.tables["summary"].notes
    assert [s["family"] for s in summary] == list(dict.fromkeys(c["family"] for c in cells))
    assert any("never reported a value below OPT" in n for n in notes)
    assert any("certified bound was never above OPT" in n for n in notes)
    assert "ratios_times" in out.figures
