"""The T12 repro script on its smallest cell (real data; skipped without it)."""

from __future__ import annotations

from tests.conftest import require_data
from tests.repro_support import RecordingWriter, load_problem_script


def test_t12_transformer_cell_and_report():
    require_data("throughputs/gavel/simulation_throughputs.json")
    t12 = load_problem_script("hetero_sharding")
    row = t12.run_cell({"model": "transformer", "mix": "v100:4,k80:4"}, 0)
    assert row["milp_status"] == "optimal"
    # the proven optimum is no worse than any split, and the even split is far from it on V100+K80
    assert row["opt"] <= min(row["even"], row["proportional"], row["alternate"]) * (1 + 1e-6)
    assert row["speedup_vs_even"] > 2.0
    assert 0 <= row["rounding_loss"] + 1e-9 and row["rounding_loss"] <= row["rounding_bound"] + 1e-9
    out = RecordingWriter()
    t12.report([row], out)
    assert "speedup" in out.tables and any("2.41" in n for n in out.tables["speedup"].notes)
