"""A repro figure saved as PNG through the artifact writer and beside it as vector graphics
(``optsched.plot.save_figure`` re-exports it)."""

from __future__ import annotations

from pathlib import Path

from optsched.core.atomic import atomic_path
from optsched.core.errors import InvalidOptionError

__all__ = ["save_figure"]


def save_figure(out, name: str, fig, *, caption: str, vector: tuple[str, ...] = (".svg",)) -> list[str]:
    """Save a repro figure as PNG through the artifact writer ``out`` (``out.figure``) and, beside
    it, as vector graphics (``vector`` suffixes: ``.svg``, ``.pdf``) for print; returns the vector
    files' names. Vector files carry no date, so reruns write the same bytes."""
    import matplotlib

    names = []
    base = Path(out.out_dir) / f"{out.experiment.id}_{name}"
    for suffix in vector:
        if suffix not in (".svg", ".pdf"):
            raise InvalidOptionError("repro", "figure", "vector formats are .svg and .pdf", suffix)
        path = base.with_suffix(suffix)
        metadata = {"Date": None} if suffix == ".svg" else {"CreationDate": None, "ModDate": None}
        with atomic_path(path) as tmp, matplotlib.rc_context({"svg.hashsalt": "optsched", "svg.fonttype": "none"}):
            fig.savefig(tmp, metadata={**metadata, "Creator": None} if suffix == ".svg" else
                        {**metadata, "Creator": None, "Producer": None})
        names.append(path.name)
    out.figure(name, fig, caption=caption)
    for file_name in names:
        out.artifacts.append((file_name, f"the same figure as vector graphics ({file_name.rsplit('.', 1)[1].upper()})"))
    return names
