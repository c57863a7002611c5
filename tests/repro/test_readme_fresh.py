"""``paper_repro/README.md`` is generated from the discovered experiments: the committed file is
what ``python -m optsched.repro.readme`` writes, and it lists every table once."""

from __future__ import annotations

from pathlib import Path

from optsched.repro.discovery import discover
from optsched.repro.readme import render

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_readme_is_fresh():
    committed = (ROOT / "paper_repro" / "README.md").read_text()
    assert committed == render(ROOT / "paper_repro"), "stale: run python -m optsched.repro.readme"


def test_every_table_is_listed_once_with_where_it_is_declared():
    text = render(ROOT / "paper_repro")
    rows = [line for line in text.splitlines() if line.startswith("| T")]
    scripts = discover(ROOT / "paper_repro")
    assert sorted(r.split(" | ")[0][2:] for r in rows) == sorted(s.id for s in scripts)
    for s in scripts:
        row = next(r for r in rows if r.startswith(f"| {s.id} |"))
        for part in s.parts:
            name = part.origin or f"paper_repro/{part.path.name}"
            assert f"`{name}`" in row
