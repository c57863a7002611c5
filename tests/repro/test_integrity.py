"""What makes a stored repro cell trustworthy: the results database's row check refuses a time
that is not a finite number of seconds (NaN included: ``not x >= 0`` is the test that catches it,
``x < 0`` would not), and the source digest in every cell key covers every source file, nested
packages included (a change to a problem's code must recompute its cells)."""

from __future__ import annotations

import math
import sqlite3

import pytest

from optsched.repro.db import ResultsDB, ResultsDBError


def _db(tmp_path):
    path = tmp_path / "T0.sqlite"
    with ResultsDB(path, "T0") as db:
        db.add("k1", {"n": 1}, 5, {"value": 2.0}, wall_s=0.1, cpu_s=0.1, worker="local")
    return path


@pytest.mark.parametrize("column", ["wall_s", "cpu_s"])
def test_a_nan_time_fails_the_row_check(tmp_path, monkeypatch, column):
    """SQLite itself turns a stored NaN into NULL, so the row as the reader sees it is forged."""
    path = _db(tmp_path)
    with ResultsDB(path, "T0") as db:
        real = db._query

        def forged(sql, args=()):
            rows = real(sql, args)
            if sql.startswith("SELECT key, params, seed, row, wall_s, cpu_s, worker"):
                i = 4 if column == "wall_s" else 5
                rows = [tuple(math.nan if j == i else v for j, v in enumerate(r)) for r in rows]
            return rows

        monkeypatch.setattr(db, "_query", forged)
        with pytest.raises(ResultsDBError, match=f"{column} nan is not a time"):
            db.get("k1")


def test_an_infinite_time_fails_the_row_check(tmp_path):
    path = _db(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE cells SET wall_s = ? WHERE key = 'k1'", (math.inf,))
    conn.commit()
    conn.close()
    with ResultsDB(path, "T0") as db, pytest.raises(ResultsDBError, match="wall_s inf is not a time"):
        db.get("k1")


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_a_cell_with_a_time_that_is_not_seconds_is_not_stored(tmp_path, value):
    with ResultsDB(tmp_path / "T0.sqlite", "T0") as db:
        with pytest.raises(ResultsDBError, match="wall_s .* is not a time"):
            db.add("k1", {"n": 1}, 5, {"value": 2.0}, wall_s=value, cpu_s=0.1, worker="local")
        assert len(db) == 0


def test_the_source_digest_covers_nested_packages(tmp_path, monkeypatch):
    """A file two folders down (as a problem's ``optsched/problems/<name>/model.py`` is) changes
    the digest, and so does a top-level one."""
    import optsched
    from optsched.repro.keys import source_digest

    pkg = tmp_path / "optsched"
    (pkg / "problems" / "p").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "problems" / "__init__.py").write_text("")
    nested = pkg / "problems" / "p" / "model.py"
    nested.write_text("X = 1\n")
    monkeypatch.setattr(optsched, "__file__", str(pkg / "__init__.py"))
    before = source_digest()
    nested.write_text("X = 2\n")
    after_nested = source_digest()
    (pkg / "__init__.py").write_text("# changed\n")
    assert len({before, after_nested, source_digest()}) == 3
