"""T15's average-case statement (threshold against learned) is computed from the paired intervals of
the run that produced the table, so the text and the table cannot disagree."""

import csv
import re
from pathlib import Path

import pytest

from optsched.problems.online_knapsack.repro_t15 import PAIRED_CI, PAIRED_MEAN, paired_verdict, report

ROOT = Path(__file__).resolve().parents[2]


def _row(ratio, shape, mean, hw):
    return {"U/L": ratio, "streams": shape, PAIRED_MEAN: mean, PAIRED_CI: hw}


def test_a_row_tells_the_methods_apart_iff_its_interval_excludes_zero():
    same = paired_verdict([_row(4, "uniform", 0.01, 0.02), _row(16, "trace", -0.003, 0.004)])
    assert same.startswith("threshold and learned cannot be told apart") and "all 2 rows" in same
    apart = paired_verdict([_row(4, "uniform", 0.01, 0.02), _row(64, "increasing", 0.16, 0.06),
                            _row(16, "trace", -0.05, 0.01)])
    assert "told apart on average on 2 of 3 rows" in apart
    assert "U/L = 64 increasing: +0.16 +- 0.06 (learned better)" in apart
    assert "U/L = 16 trace: -0.05 +- 0.01 (threshold better)" in apart
    assert "U/L = 4 uniform" not in apart and "other 1 rows it contains 0" in apart
    # on the boundary (|mean| = half-width, as the table shows them) the interval contains 0
    assert "cannot be told apart" in paired_verdict([_row(4, "uniform", -0.02, 0.02)])


def test_rows_without_an_interval_are_counted_apart():
    # a CSV cell is a string; '-' (no paired difference) and 'nan' (one stream) carry no interval
    text = paired_verdict([_row(4, "uniform", "0.5", "0.1"), _row(4, "trace", "-", "-"),
                           _row(16, "trace", "0.1", "nan")])
    assert "told apart on average on 1 of 1 rows" in text and "(2 row(s) without a paired interval.)" in text


class _Out:
    def __init__(self):
        self.tables, self.at_end = {}, []

    def table(self, name, rows, caption="", notes=None):
        self.tables[name] = (rows, notes or [])

    def note(self, text):
        pass


def _average(ratio, shape, threshold, learned):
    def stats(xs):
        return {"mean": sum(xs) / len(xs), "ci95": 0.0, "zero_alg": 0, "ratios": xs}
    return {"part": "average", "ratio": ratio, "shape": shape, "streams": len(threshold),
            "threshold": stats(threshold), "learned": stats(learned)}


@pytest.mark.parametrize("gap", [0.0, 0.5])
def test_the_report_states_what_its_own_table_shows(gap):
    # two rows: one where learned is ahead by `gap` on every stream, one with no systematic difference
    rows = [_average(16, "trace", [1.5 + gap, 1.6 + gap, 1.7 + gap], [1.5, 1.6, 1.7]),
            _average(64, "uniform", [1.5, 1.6, 1.7], [1.6, 1.5, 1.7])]
    out = _Out()
    report(rows, out)
    table, notes = out.tables["average"]
    assert notes[0] == paired_verdict(table)
    if gap:
        assert "told apart on average on 1 of 2 rows" in notes[0] and "U/L = 16 trace: +0.5" in notes[0]
    else:
        assert notes[0].startswith("threshold and learned cannot be told apart")


def test_the_readme_quotes_the_committed_full_runs_statement():
    path = ROOT / "paper_repro" / "results" / "T15_average.csv"
    if not path.exists():
        pytest.skip("no committed T15 results in this checkout")
    with path.open() as fh:
        table = list(csv.DictReader(fh))
    readme = re.sub(r"\s+", " ", (ROOT / "optsched/problems/online_knapsack/README.md").read_text())
    assert paired_verdict(table) in readme, paired_verdict(table)
