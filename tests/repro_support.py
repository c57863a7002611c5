"""Helpers for testing experiment scripts without the sweep runner: a fresh import of a script (a
problem folder's ``repro.py``, or a problem-free ``paper_repro/`` script) and a writer that records
what ``report`` writes (checking what the real writer would reject)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

PAPER_REPRO = Path(__file__).resolve().parents[1] / "paper_repro"
PROBLEMS = Path(__file__).resolve().parents[1] / "optsched" / "problems"


def load_paper_script(name: str) -> ModuleType:
    """A fresh module for ``paper_repro/<name>.py`` (not cached: tests may shrink its globals)."""
    return _fresh(PAPER_REPRO / f"{name}.py", f"_test_{name}")


def load_problem_script(folder: str, name: str = "repro") -> ModuleType:
    """A fresh module for a problem folder's experiment script ``optsched/problems/<folder>/<name>.py``
    (``repro.py``, or a table module it gathers such as ``repro_t5.py``; not cached)."""
    return _fresh(PROBLEMS / folder / f"{name}.py", f"_test_{folder}_{name}")


def _fresh(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Table:
    rows: list[dict]
    columns: list[str] | None
    caption: str
    notes: list[str]


@dataclass
class RecordingWriter:
    """Implements ``optsched.repro.ReportWriter``; every listed column must exist in every row,
    and every figure needs a caption."""

    quick: bool = True
    tables: dict[str, Table] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def table(self, name, rows, columns=None, *, caption="", notes=None, formats=None):
        for row in rows:
            missing = [c for c in (columns or []) if c not in row]
            assert not missing, (name, missing)
        self.tables[name] = Table(rows, columns, caption, list(notes or []))

    def figure(self, name, fig, *, caption):
        assert caption, f"figure {name} has no caption"
        self.figures[name] = caption

    def note(self, text):
        self.notes.append(text)
