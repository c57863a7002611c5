"""T2b (``optsched/problems/mknap/repro.py``): its report on fake rows, and one real cell (slow, data)."""

from __future__ import annotations

import csv
import doctest
import math
from pathlib import Path

import pytest

from optsched.repro.discovery import load_script
from optsched.repro.report import ArtifactWriter
from tests.conftest import require_data

SCRIPT = Path(__file__).resolve().parents[2] / "optsched" / "problems" / "mknap" / "repro.py"


@pytest.fixture(scope="module")
def t2b():
    return load_script(SCRIPT)


def _row(index, status, value, best, greedy, lp_round, lp=None, published=None, nodes=100, milp_s=1.0):
    optimum = value if status == "optimal" else None
    lp = lp if lp is not None else value * 1.01
    return {"instance": f"5.100-{index:02d}", "index": index, "best_known": best, "milp_status": status,
            "milp_value": value, "milp_bound": value if optimum else value * 1.02, "milp_nodes": nodes,
            "milp_minus_best_known": value - best, "hit_time_limit": status == "time_limit",
            "lp_bound": lp, "published_lp": published if published is not None else lp,
            "lp_over_opt": lp / optimum if optimum else None, "greedy_value": greedy,
            "greedy_ratio": greedy / optimum if optimum else None, "lp_round_value": lp_round,
            "lp_round_ratio": lp_round / optimum if optimum else None, "milp_s": milp_s, "lp_s": 0.01,
            "greedy_s": 0.001, "lp_round_s": 0.01}


FAKE = [
    _row(0, "optimal", 1000.0, 1000.0, 900.0, 950.0),
    _row(1, "optimal", 2000.0, 2000.0, 1900.0, 1800.0, milp_s=3.0),
    _row(2, "optimal", 4000.0, 3990.0, 3200.0, 3600.0, milp_s=2.0),  # above the best known
    _row(3, "time_limit", 5000.0, 5100.0, 4000.0, 4500.0, milp_s=300.0),  # flagged, excluded
    _row(4, "optimal", 3000.0, 3000.0, 2700.0, 2850.0, lp=3030.0, published=3031.0),  # LP mismatch
]


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_report_on_fake_rows(t2b, tmp_path):
    writer = ArtifactWriter(tmp_path, t2b.EXPERIMENT, quick=True, command="optsched repro --quick --only T2b")
    t2b.report(FAKE, writer)
    summary = {r["quantity"]: r for r in _csv(tmp_path / "T2b_summary.csv")}
    greedy = [0.9, 0.95, 0.8, 0.9]  # instances 0, 1, 2, 4 (3 hit the time limit)
    assert summary["greedy / OPT"]["n"] == "4"
    assert float(summary["greedy / OPT"]["mean"]) == pytest.approx(sum(greedy) / 4, rel=1e-12)
    sd = math.sqrt(sum((g - 0.8875) ** 2 for g in greedy) / 3)
    assert float(summary["greedy / OPT"]["ci95_half_width"]) == pytest.approx(3.182 * sd / 2, abs=1e-3)  # t_{.975,3}
    assert float(summary["lp-round / OPT"]["min"]) == 0.9 and float(summary["lp-round / OPT"]["max"]) == 0.95
    assert list(summary) == ["greedy / OPT", "lp-round / OPT", "LP bound / OPT"]
    times = {r["method"]: r for r in _csv(tmp_path / "T2b_times.csv")}
    assert times["milp"]["n"] == "5" and float(times["milp"]["max_s"]) == 300.0  # over every instance
    assert float(times["milp"]["mean_s"]) == pytest.approx((1 + 3 + 2 + 300 + 1) / 5, rel=1e-12)
    instances = _csv(tmp_path / "T2b_instances.csv")
    assert [r["instance"] for r in instances] == [f"5.100-{k:02d}" for k in range(5)]
    assert instances[3]["hit_time_limit"] == "true" and instances[3]["greedy_ratio"] == ""
    md = (tmp_path / "T2b_instances.md").read_text()
    assert "4 of 5 instances solved to proven optimality" in md
    assert "equals the best-known value on 3 of them, exceeds it on 5.100-02." in md
    assert "FLAGGED: the 300 s safety-net time limit stopped milp on 5.100-03" in md
    assert "DIFFERS from the published LP value beyond its printed precision on 5.100-04." in md
    assert "[paper: Chu & Beasley 1998]" in md and "mknap/lp-round (approximation, fidelity ours)" in md
    assert (tmp_path / "T2b_ratios.png").exists()
    assert [name for name, _ in writer.artifacts] == ["T2b_instances.md", "T2b_instances.csv", "T2b_summary.md",
                                                      "T2b_summary.csv", "T2b_times.md", "T2b_times.csv",
                                                      "T2b_ratios.png"]


def test_report_when_nothing_solved(t2b, tmp_path):
    writer = ArtifactWriter(tmp_path, t2b.EXPERIMENT, quick=True, command="c")
    t2b.report([FAKE[3]], writer)
    assert all(r["n"] == "0" and r["mean"] == "" for r in _csv(tmp_path / "T2b_summary.csv"))
    assert not (tmp_path / "T2b_ratios.png").exists()


def test_cells_and_doctests(t2b):
    assert t2b.cells(True) == [{"index": k} for k in range(5)]
    assert t2b.cells(False) == [{"index": k} for k in range(30)]
    assert doctest.testmod(t2b).failed == 0


@pytest.mark.slow
@pytest.mark.data
def test_one_real_cell(t2b):
    require_data("mknap/mknapcb1.txt")
    require_data("mknap/best-feasible-slns.txt")
    row = t2b.run_cell({"index": 1}, 0)  # the quickest of the first five (about 7 s alone)
    assert row["milp_status"] == "optimal" and row["milp_value"] == row["best_known"] == 24274
    assert row["published_lp"] == pytest.approx(24538.208990, abs=1e-6)  # best-feasible-slns.txt
    assert t2b.lp_agrees(row["lp_bound"], row["published_lp"])
    assert row["lp_round_ratio"] >= 1 / 6 and row["lp_round_ratio"] <= 1  # m = 5 rows: >= 1/(m + 1)
    assert row["greedy_ratio"] > 0 and row["greedy_ratio"] <= 1 and row["lp_over_opt"] >= 1
