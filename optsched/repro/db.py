"""The results database of a sweep: one SQLite file per experiment and mode.

``<out>/.runs/<experiment id>[-quick].sqlite`` holds one row per finished cell: its key, the
parameters (canonical JSON), the result row (JSON), the seed, wall and CPU time and the worker.
Only the driver writes it, one transaction per cell as the cell finishes, so an interrupted sweep
(Ctrl-C, SIGKILL, power loss) keeps every cell committed before the interruption and loses only
the cells in flight. A rerun reads the finished keys and submits the rest.

Failed cells are not stored (a rerun retries them); cells whose row says ``hit_time_limit`` are
stored, and the runner retries them on a rerun (replacing the row). The file is a cache, not a reference: it is
not committed (the runner writes a ``.gitignore`` into ``.runs/``); the committed reference is
the Markdown, CSV and PNG artifacts.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from optsched.core.errors import OptschedError

__all__ = ["ResultsDB", "StoredCell", "SCHEMA_VERSION", "ResultsDBError"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    key TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    row TEXT NOT NULL,
    wall_s REAL NOT NULL,
    cpu_s REAL NOT NULL,
    worker TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
"""


#: the columns of ``cells`` and their declared types, checked when a database is opened
_COLUMNS = (("key", "TEXT"), ("experiment", "TEXT"), ("params", "TEXT"), ("seed", "INTEGER"), ("row", "TEXT"),
            ("wall_s", "REAL"), ("cpu_s", "REAL"), ("worker", "TEXT"), ("finished_at", "TEXT"))


class ResultsDBError(OptschedError):
    """The results database cannot be used: not an optsched database, another schema, a corrupt
    row, or a database or disk failure (a folder as its path, read-only, disk full). One line
    naming the file (CLI exit status 1); stored rows are never deleted."""


@dataclass(frozen=True)
class StoredCell:
    key: str
    params: dict
    seed: int
    row: dict
    wall_s: float
    cpu_s: float
    worker: str


class ResultsDB:
    """A sweep's SQLite results database (see the module docstring).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "T0.sqlite")
    >>> with ResultsDB(path, "T0") as db:
    ...     db.add("k1", {"n": 1}, 5, {"value": 2.0}, wall_s=0.1, cpu_s=0.1, worker="local")
    ...     db.add("k1", {"n": 1}, 5, {"value": 2.0}, wall_s=0.1, cpu_s=0.1, worker="local")
    ...     sorted(db.finished_keys()), db.get("k1").row
    True
    False
    (['k1'], {'value': 2.0})
    """

    def __init__(self, path: str | Path, experiment_id: str):
        self.path = Path(path)
        self.experiment_id = experiment_id
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsDBError(f"{self.path.parent}: cannot create the results folder "
                                 f"({exc.strerror or exc})") from None
        if self.path.is_dir():
            raise ResultsDBError(f"{self.path}: is a folder, not a results database")
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise ResultsDBError(f"{self.path}: cannot open the results database ({exc})") from None
        try:
            self._conn.execute("PRAGMA synchronous = FULL")
            with self._transaction():
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self._conn.execute(statement)
                found = self._conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
                if found is None:
                    self._conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                elif found[0] != str(SCHEMA_VERSION):
                    raise ResultsDBError(f"{self.path}: results database schema version {found[0]}, this optsched "
                                         f"writes {SCHEMA_VERSION}; delete the file to recompute")
                columns = tuple((name, kind.upper()) for _, name, kind, *_ in
                                self._conn.execute("PRAGMA table_info(cells)"))
                if columns != _COLUMNS:
                    raise ResultsDBError(f"{self.path}: the cells table has columns "
                                         f"{', '.join(n for n, _ in columns)}, not the schema this optsched "
                                         "writes; delete the file to recompute")
        except sqlite3.Error as exc:
            self._conn.close()
            raise ResultsDBError(f"{self.path}: not a usable results database ({exc})") from None
        except ResultsDBError:
            self._conn.close()
            raise

    def _transaction(self):
        return _Transaction(self._conn)

    def _query(self, sql: str, args: tuple = ()) -> list:
        """Run a read; a database or disk failure is a :class:`ResultsDBError` (one line)."""
        try:
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise ResultsDBError(f"{self.path}: cannot read the results database ({exc})") from None

    def finished_keys(self) -> set[str]:
        """Keys of every stored cell of this experiment."""
        rows = self._query("SELECT key FROM cells WHERE experiment = ?", (self.experiment_id,))
        if not all(isinstance(key, str) for (key,) in rows):
            raise ResultsDBError(f"{self.path}: a stored cell has a key that is not text (corrupt row); "
                                 "delete the file to recompute")
        return {key for (key,) in rows}

    def get(self, key: str) -> StoredCell | None:
        """The stored cell ``key`` (None if absent), each field checked: a corrupt row is a
        :class:`ResultsDBError` naming its key, and the row stays stored."""
        found = self._query("SELECT key, params, seed, row, wall_s, cpu_s, worker FROM cells WHERE key = ?", (key,))
        if not found:
            return None
        key, params, seed, row, wall_s, cpu_s, worker = found[0]

        def corrupt(what: str) -> ResultsDBError:
            return ResultsDBError(f"{self.path}: the stored cell {str(key)[:16]} is corrupt ({what}); delete "
                                  "the file (or that row) to recompute it")

        try:
            params_v, row_v = json.loads(params), json.loads(row)
        except (TypeError, ValueError) as exc:
            raise corrupt(f"unreadable JSON: {str(exc)[:80]}") from None
        if not isinstance(params_v, dict) or not isinstance(row_v, dict):
            raise corrupt("params and row must be JSON objects")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise corrupt(f"seed {seed!r} is not an integer")
        for name, value in (("wall_s", wall_s), ("cpu_s", cpu_s)):
            if not _is_seconds(value):
                raise corrupt(f"{name} {value!r} is not a time in seconds")
        if not isinstance(worker, str):
            raise corrupt(f"worker {worker!r} is not text")
        return StoredCell(key, params_v, seed, row_v, float(wall_s), float(cpu_s), worker)

    def add(self, key: str, params: dict, seed: int, row: dict, *, wall_s: float, cpu_s: float,
            worker: str, replace: bool = False) -> bool:
        """Store a finished cell in its own transaction; False if the key was already stored
        (``replace``: overwrite it instead, for a retried cell)."""
        from datetime import datetime, timezone

        from .keys import canonical_json

        for name, value in (("wall_s", wall_s), ("cpu_s", cpu_s)):
            if not _is_seconds(value):  # SQLite would store NaN as NULL: refused here, by name
                raise ResultsDBError(f"{self.path}: cannot store the cell {str(key)[:16]}: {name} {value!r} is not "
                                     "a time in seconds")
        params_text = canonical_json(params)
        row_text = json.dumps(row, separators=(",", ":"), allow_nan=True)  # keeps the column order
        try:
            with self._transaction():
                cur = self._conn.execute(
                    f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (key, self.experiment_id, params_text, int(seed), row_text, float(wall_s), float(cpu_s), worker,
                     datetime.now(timezone.utc).isoformat(timespec="seconds")))
                return cur.rowcount == 1
        except sqlite3.Error as exc:  # read-only, disk full, locked past the timeout: the row is not stored
            raise ResultsDBError(f"{self.path}: cannot store a finished cell ({exc}); the cells stored "
                                 "before are kept") from None

    def __len__(self) -> int:
        return self._query("SELECT COUNT(*) FROM cells WHERE experiment = ?", (self.experiment_id,))[0][0]

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "ResultsDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_seconds(value) -> bool:
    """A duration: a finite number >= 0 (not NaN, not infinite, not a bool or text)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.conn.execute("COMMIT")
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:  # the failure already ended the transaction
            pass
