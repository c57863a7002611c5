"""Helpers for testing paper_repro scripts without the sweep runner: a fresh import of a script
and a writer that records what ``report`` writes (checking what the real writer would reject)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

PAPER_REPRO = Path(__file__).resolve().parents[1] / "paper_repro"


def load_paper_script(name: str) -> ModuleType:
    """A fresh module for ``paper_repro/<name>.py`` (not cached: tests may shrink its globals)."""
    path = PAPER_REPRO / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_test_{name}", path)
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
