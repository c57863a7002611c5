"""The result record every method returns, and what ``solve -o FILE`` writes.

Fields (the result record; docs/io.md): ``format_version, problem, method, fidelity, status,
objective, bound, gap, wall_s, backend, solver_version, settings, seed, instance_sha256,
solution``, plus ``reason`` (why a result is infeasible or an error) and ``stats`` (what a method
reports beyond that: iterations, trials, violations before repair, ...).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import InvalidInstanceError, OptschedError
from .gaps import relative_gap

__all__ = ["Result", "STATUSES", "RESULT_FORMAT_VERSION", "relative_gap", "result_row"]

RESULT_FORMAT_VERSION = 1
#: ``gap_limit``: stopped at a positive gap tolerance with the gap still open (bound and gap say
#: how far); ``node_limit``: stopped by the node (work) limit before any point was found
STATUSES = ("optimal", "feasible", "infeasible", "time_limit", "gap_limit", "node_limit", "error")


@dataclass
class Result:
    """An honest account of one solve. ``objective`` is the checker's value of ``solution``."""

    problem: str
    method: str
    fidelity: str
    status: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    wall_s: float = 0.0
    backend: str | None = None
    solver_version: str | None = None
    settings: dict = field(default_factory=dict)
    seed: int | None = None
    instance_sha256: str | None = None
    solution: Any = None
    reason: str | None = None
    stats: dict = field(default_factory=dict)
    format_version: int = RESULT_FORMAT_VERSION

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInstanceError("result", "status", f"must be one of {', '.join(STATUSES)}",
                                       self.status)

    @property
    def has_solution(self) -> bool:
        return self.solution is not None and self.status in ("optimal", "feasible", "time_limit", "gap_limit")

    def to_json(self) -> dict:
        """The record as JSON data. Shallow: the solution and stats are the record's own objects
        (``dataclasses.asdict`` would deep-copy a large solution for nothing)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        return {"format_version": data.pop("format_version"), **data}

    def dumps(self, indent: int | None = 2) -> str:
        """JSON text; large records (a solution of more than :data:`COMPACT_ABOVE` characters'
        worth of data) are written compactly, because Python's indenting encoder is pure Python."""
        return self._dumps(self.to_json(), indent)

    def _dumps(self, data: dict, indent: int | None = 2) -> str:
        if indent is not None and _large(self.solution):
            indent = None
        return json.dumps(data, indent=indent, allow_nan=True, default=_jsonable)

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        if not isinstance(data, dict):
            raise InvalidInstanceError("result", "(top level)", "must be a JSON object", type(data).__name__)
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidInstanceError("result", key, "unknown field")
        if data.get("format_version") != RESULT_FORMAT_VERSION:
            raise InvalidInstanceError("result", "format_version", f"must be {RESULT_FORMAT_VERSION}",
                                       data.get("format_version"))
        for key in ("problem", "method", "fidelity", "status"):
            if key not in data:
                raise InvalidInstanceError("result", key, "missing")
        from .referee import validate_result_types

        validate_result_types(data)  # declared types before any arithmetic (docs/cli.md)
        return cls(**data)

    def to_frame(self):
        """This result as a one-row pandas DataFrame, the row :func:`optsched.frames.results_frame`
        gives it (:func:`result_row`)."""
        import pandas as pd

        return pd.DataFrame([result_row(self)])

    def save(self, path: str | Path, *, sidecar: bool = False) -> None:
        """Write the record as JSON; ``sidecar=True`` also writes the binary sidecar
        ``<path>.npz`` (:mod:`optsched.core.sidecar`) that :meth:`load` reads instead of parsing;
        without it, a stale sidecar of an earlier file at ``path`` is removed."""
        from .sidecar import sidecar_path, write_sidecar

        from .atomic import write_text

        data = self.to_json()
        write_text(path, self._dumps(data) + "\n")  # atomic: the file appears whole or not at all
        if sidecar:
            write_sidecar(path, data)
        else:
            sidecar_path(path).unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | Path, *, sidecar: bool = True) -> "Result":
        """Read a result file (from its sidecar when there is one that belongs to it)."""
        from .sidecar import read_json_data

        return cls.from_json(read_json_data(path, "result", sidecar=sidecar))


#: solutions with more list elements than this are written without indentation
COMPACT_ABOVE = 20_000


def _large(solution: Any) -> bool:
    """Whether a solution holds more than :data:`COMPACT_ABOVE` list elements (cheap estimate:
    the lengths of its top-level lists, or of the list itself)."""
    if isinstance(solution, dict):
        return sum(len(v) for v in solution.values() if isinstance(v, (list, tuple))) > COMPACT_ABOVE
    return isinstance(solution, (list, tuple)) and len(solution) > COMPACT_ABOVE


def _jsonable(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays inside solutions and stats."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot serialize {type(value).__name__}")


_SCALARS = (int, float, str, bool, type(None))


def _kind(problem: str, method: str) -> str | None:
    """The registered kind of a method (exact, bound, approximation, ...), None if not registered."""
    from .registry import get_problem

    try:
        return get_problem(problem).methods[method].kind
    except (KeyError, OptschedError):
        return None


def result_row(result: Result) -> dict:
    """A flat dict of a result's scalar fields, options and scalar stats (no solution): one row of
    :func:`optsched.frames.results_frame`."""
    row = {k: v for k, v in result.to_json().items() if k not in ("solution", "settings", "stats")}
    row["kind"] = _kind(result.problem, result.method)
    for key, value in (result.settings or {}).items():
        if key == "options":
            row.update({f"option.{k}": v for k, v in (value or {}).items() if isinstance(v, _SCALARS)})
        elif isinstance(value, _SCALARS):
            row[f"setting.{key}"] = value
    row.update({f"stats.{k}": v for k, v in (result.stats or {}).items() if isinstance(v, _SCALARS)})
    return row
