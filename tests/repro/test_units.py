"""Unit tests of the repro pieces: statistics, keys, database, discovery, artifacts, index."""

from __future__ import annotations

import csv
import math
import sqlite3

import pytest

import optsched

from optsched.core.errors import InvalidOptionError, UnknownNameError
from optsched.repro import Experiment, ResultsDB, cell_key, cell_seed, mean_ci95
from optsched.repro.db import ResultsDBError
from optsched.repro.discovery import discover, select
from optsched.repro.keys import canonical_json
from optsched.repro.report import ArtifactWriter, update_index

from .tiny import tiny_problem, write_tiny


# -- mean_ci95 -------------------------------------------------------------------------------
def test_mean_ci95_against_t_table():
    # Student-t quantiles from printed tables: t_{0.975,2} = 4.303, t_{0.975,4} = 2.776
    ci = mean_ci95([1.0, 2.0, 3.0])  # mean 2, s = 1
    assert ci.mean == 2.0 and ci.n == 3
    assert ci.half_width == pytest.approx(4.303 / math.sqrt(3), abs=1e-3)  # table has 4 significant digits
    values = [0.90, 0.95, 1.00, 0.85, 0.80]  # mean 0.9, s^2 = 0.025 / 4
    ci = mean_ci95(values)
    assert ci.mean == pytest.approx(0.9, rel=1e-12)  # float rounding of the sum only
    assert ci.half_width == pytest.approx(2.776 * math.sqrt(0.025 / 4) / math.sqrt(5), abs=1e-3)
    assert ci.low == pytest.approx(ci.mean - ci.half_width) and ci.high == pytest.approx(ci.mean + ci.half_width)


def test_mean_ci95_edge_cases():
    single = mean_ci95([4.0])
    assert single.mean == 4.0 and math.isnan(single.half_width) and single.n == 1
    assert mean_ci95((3, 3, 3)).half_width == 0.0
    assert mean_ci95(x for x in [1, 3]).mean == 2.0
    for bad in ([], [1.0, float("nan")], [1.0, None], [float("inf")], [True, 1.0]):
        with pytest.raises(ValueError):
            mean_ci95(bad)
    assert mean_ci95([1.0, 2.0]).format(3).startswith("1.5 ± ")


# -- keys and seeds --------------------------------------------------------------------------
VERSIONS = {"optsched": "0.1.0", "backend:highs": "highspy 1.15.1"}


def test_cell_key_depends_on_exactly_id_params_and_versions():
    base = cell_key("T1", {"jobs": 10, "ratio": 0.5}, VERSIONS)
    assert len(base) == 64 and int(base, 16) >= 0
    assert cell_key("T1", {"ratio": 0.5, "jobs": 10}, dict(reversed(VERSIONS.items()))) == base
    assert cell_key("T2", {"jobs": 10, "ratio": 0.5}, VERSIONS) != base
    assert cell_key("T1", {"jobs": 11, "ratio": 0.5}, VERSIONS) != base
    assert cell_key("T1", {"jobs": 10, "ratio": 0.5}, {**VERSIONS, "backend:highs": "highspy 1.16"}) != base
    assert cell_key("T1", {"jobs": 10.0, "ratio": 0.5}, VERSIONS) != base  # 10.0 is not 10 in JSON
    assert cell_key("T1", {"jobs": 10, "ratio": 0.5}, VERSIONS, revision=0) == base
    assert cell_key("T1", {"jobs": 10, "ratio": 0.5}, VERSIONS, revision=1) != base


def test_canonical_json_rejects_what_cannot_be_a_key():
    assert canonical_json({"b": 1, "a": [1.5, "x"]}) == '{"a":[1.5,"x"],"b":1}'
    with pytest.raises(InvalidOptionError):
        canonical_json({"x": float("nan")})
    with pytest.raises(InvalidOptionError):
        canonical_json({"x": {1, 2}})


def test_cell_seed_explicit_or_derived():
    assert cell_seed("T1", {"seed": 3, "jobs": 4}) == 3
    derived = cell_seed("T1", {"jobs": 4})
    assert 0 <= derived < 2 ** 63
    assert derived == cell_seed("T1", {"jobs": 4}) != cell_seed("T2", {"jobs": 4})
    assert cell_seed("T1", {"seed": True}) != 1  # a bool is not an explicit seed
    assert cell_seed("T1", {"seed": "3"}) != 3


# -- results database ------------------------------------------------------------------------
def test_db_stores_each_cell_once_and_persists(tmp_path):
    path = tmp_path / "runs" / "T1.sqlite"
    with ResultsDB(path, "T1") as db:
        assert db.finished_keys() == set() and len(db) == 0
        first = db.add("a", {"n": 1}, 7, {"value": 1.5, "nan": float("nan")}, wall_s=0.25, cpu_s=0.2, worker="w1")
        duplicate = db.add("a", {"n": 1}, 7, {"value": 99.0}, wall_s=0.25, cpu_s=0.2, worker="w2")
        second = db.add("b", {"n": 2}, 8, {"value": None}, wall_s=0.5, cpu_s=0.4, worker="w1")
        assert first and not duplicate and second  # the first stored row of a key wins
    with ResultsDB(path, "T1") as db:
        assert db.finished_keys() == {"a", "b"} and len(db) == 2
        cell = db.get("a")
        stored = (cell.params, cell.seed, cell.row["value"], cell.wall_s, cell.cpu_s, cell.worker)
        assert stored == ({"n": 1}, 7, 1.5, 0.25, 0.2, "w1")  # the recorded timings round-trip
        assert math.isnan(cell.row["nan"])
        assert db.get("missing") is None


def test_db_refuses_other_schema_versions_and_other_files(tmp_path):
    path = tmp_path / "T1.sqlite"
    ResultsDB(path, "T1").close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    with pytest.raises(ResultsDBError, match="schema version 99"):
        ResultsDB(path, "T1")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ResultsDBError, match="not a usable results database"):
        ResultsDB(junk, "T1")


# -- discovery --------------------------------------------------------------------------------
def test_discovery_sorted_skips_helpers_and_reports_broken_scripts(tmp_path):
    write_tiny(tmp_path, "b2_second.py", "B2")
    write_tiny(tmp_path, "a1_first.py", "a1")
    write_tiny(tmp_path, "c3_same_id.py", "A1")
    (tmp_path / "d4_broken.py").write_text("raise RuntimeError('boom')\n")
    (tmp_path / "e5_plain.py").write_text("X = 1\n")
    write_tiny(tmp_path, "f6_bad_id.py", "F6/../x")
    (tmp_path / "_shared.py").write_text("raise RuntimeError('not a script')\n")
    (tmp_path / "notes.txt").write_text("ignored")
    scripts = discover(tmp_path, problems=False)
    assert [s.path.name for s in scripts] == ["a1_first.py", "b2_second.py", "c3_same_id.py", "d4_broken.py",
                                              "e5_plain.py", "f6_bad_id.py"]
    assert [s.id for s in scripts] == ["a1", "B2", "C3", "D4", "E5", "F6"]
    assert [s.experiment is not None for s in scripts] == [True, True, False, False, False, False]
    assert "must be a letter followed by" in scripts[5].error
    assert "already declared by a1_first.py" in scripts[2].error
    assert "RuntimeError: boom" in scripts[3].error
    assert "no module-level EXPERIMENT" in scripts[4].error
    assert [s.id for s in select(scripts, ["A1", "d4"])] == ["a1", "D4"]
    assert select(scripts, None) == scripts
    with pytest.raises(UnknownNameError, match="'Q7'"):
        select(scripts, ["a1", "Q7"])


# -- artifacts and index ---------------------------------------------------------------------
def _experiment(**kw) -> Experiment:
    return Experiment(id="X1", title="a title", paper="a paper", formulation="[ours]", cells=lambda q: [],
                      run_cell=lambda p, s: {}, report=lambda rows, out: None,
                      methods=(f"{tiny_problem()}/greedy", f"{tiny_problem()}/nosuch"), **kw)


def test_table_writes_full_precision_csv_and_labelled_markdown(tmp_path):
    writer = ArtifactWriter(tmp_path, _experiment(), quick=True, command="optsched repro --quick --only X1")
    rows = [{"name": "a|b", "value": 0.1 + 0.2, "flag": True, "missing": None, "items": [1, 2]},
            {"name": "c", "value": 2.0, "flag": False, "extra": 3}]
    writer.table("main", rows, caption="the caption", notes=["a note"], formats={"value": ".2f"})
    with open(tmp_path / "X1_main.csv", newline="") as fh:
        got = list(csv.reader(fh))
    assert got == [["name", "value", "flag", "missing", "items", "extra"],
                   ["a|b", "0.30000000000000004", "true", "", "[1,2]", ""],
                   ["c", "2.0", "false", "", "", "3"]]
    md = (tmp_path / "X1_main.md").read_text()
    assert md.startswith("# X1: a title\n")
    greedy = optsched.get_problem(tiny_problem()).methods["greedy"]
    assert f"{tiny_problem()}/greedy (baseline, fidelity {greedy.fidelity})" in md
    assert f"{tiny_problem()}/nosuch (not registered)" in md
    assert "Formulation: [ours]" in md and "QUICK" in md and "the caption" in md and md.rstrip().endswith("a note")
    assert "| a\\|b | 0.30 | yes | - | [1, 2] | - |" in md
    assert [name for name, _ in writer.artifacts] == ["X1_main.md", "X1_main.csv"]
    with pytest.raises(InvalidOptionError):
        writer.table("../escape", rows)


def test_figure_and_note(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    writer = ArtifactWriter(tmp_path, _experiment(), quick=False, command="c")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    writer.figure("plot", fig, caption="a line")
    writer.note("said")
    assert (tmp_path / "X1_plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert writer.artifacts == [("X1_plot.png", "a line")] and writer.notes == ["said"]


def test_index_replaces_only_the_sections_it_is_given(tmp_path):
    update_index(tmp_path, {"T10": "## T10\n\nten\n", "T2": "## T2\n\ntwo\n"})
    update_index(tmp_path, {"T2b": "## T2b\n\nfirst\n"})
    update_index(tmp_path, {"T2b": "## T2b\n\nsecond\n", "T2": "## T2\n\nignored\n"}, keep={"T2": "skipped (x)"})
    text = (tmp_path / "index.md").read_text()
    assert text.index("## T2\n") < text.index("## T2b") < text.index("## T10")
    assert "second" in text and "first" not in text and "ignored" not in text
    assert "## T2\n\n> Latest run: skipped (x)\n\ntwo" in text
    update_index(tmp_path, {}, keep={"T2": "skipped (y)"})
    text = (tmp_path / "index.md").read_text()
    assert "skipped (y)" in text and "skipped (x)" not in text and text.count("<!-- repro:begin") == 3


def test_progress_is_live_only_on_a_terminal():
    import io

    from optsched.repro.runner import _Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, live in ((Terminal(), True), (io.StringIO(), False)):
        progress = _Progress("T9", 3, 1, stream)
        progress.step()
        progress.finish("3 cells done")
        text = stream.getvalue()
        assert text.endswith("T9: 3 cells done\n")
        assert ("\rT9: 2/3 cells" in text) is live and text.count("\n") == 1


def test_db_replace_overwrites_a_retried_cell(tmp_path):
    with ResultsDB(tmp_path / "T1.sqlite", "T1") as db:
        db.add("a", {"n": 1}, 7, {"hit_time_limit": True}, wall_s=300.0, cpu_s=60.0, worker="w1")
        replaced = db.add("a", {"n": 1}, 7, {"hit_time_limit": False}, wall_s=20.0, cpu_s=19.0, worker="w2",
                          replace=True)
        assert replaced
        assert len(db) == 1 and db.get("a").row == {"hit_time_limit": False} and db.get("a").worker == "w2"
