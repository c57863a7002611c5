"""Pictures of solutions: the figures papers in this field explain themselves with.

:func:`plot` draws a result with the picture its problem declares in its own folder,
``optsched/problems/<name>/plot.py``: a function ``draw(instance, result) -> Figure`` and an
``EXAMPLE`` (seed, preset and method the gallery, the docs and the tests draw). No table here
names a problem: the module is found in the problem's folder (``Problem.package``, set when it
registers; else the package of its instance type), so a new problem folder with a ``plot.py`` has
a picture. The shared style, colours and drawing pieces live in
:mod:`optsched.plotting` (below the problems).

Every figure records what it drew in ``figure.optsched`` (e.g. ``{"bars": 24}``) so tests can
check drawn facts; :func:`plot` saves it when given a path (``.png``, ``.svg`` or ``.pdf``; vector
files carry no date, so the same figure gives the same bytes). The backend is never forced (in a
Jupyter kernel figures show inline); the command line draws with Agg.

>>> import optsched
>>> inst = optsched.generate("pipeline-schedule", seed=1, preset="hetero-small")
>>> fig = plot(inst, optsched.solve(inst, "1f1b"))
>>> fig.optsched["bars"] == 2 * inst.stages * inst.microbatches
True
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from .core.errors import InvalidInstanceError, InvalidOptionError
from .core.registry import get_problem, problems as _problems
from .core.result import Result
from .experiments.figures import save_figure  # noqa: F401  (re-exported: a repro figure as PNG + vector)
from .plotting.crosscut import plot_anytime, plot_competitive, plot_ratios
from .plotting.style import (FORMATS, METHOD_COLORS, color_for, integer_ticks, log_scale_if_wide, method_color,
                             set_style, style_context)

__all__ = ["plot", "plot_module", "pictures", "example", "color_for", "method_color", "METHOD_COLORS",
           "log_scale_if_wide", "save_figure", "savefig", "FORMATS", "set_style", "plot_ratios", "plot_anytime",
           "plot_competitive"]


def _package_of(problem: str) -> str:
    record = get_problem(problem)
    if record.package:
        return record.package
    module = record.instance_type.__module__
    parts = module.split(".")
    if parts[:2] == ["optsched", "problems"] and len(parts) >= 3:
        return ".".join(parts[:3])
    return module.rsplit(".", 1)[0]


def plot_module(problem: str) -> ModuleType | None:
    """The ``plot`` module of ``problem``'s folder, None if the problem declares no picture."""
    name = f"{_package_of(problem)}.plot"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name in (name, name.rsplit(".", 1)[0]):
            return None
        raise
    return module if callable(getattr(module, "draw", None)) else None


def pictures() -> list[str]:
    """The problems that declare a picture, by name."""
    return sorted(p for p in _problems() if plot_module(p) is not None)


def example(problem: str) -> dict:
    """The problem's example drawing: ``{"seed", "preset", "method"}`` from its ``plot.EXAMPLE``."""
    module = plot_module(problem)
    if module is None:
        raise InvalidOptionError(problem, "plot", "no picture for this problem")
    return {"seed": 1, "preset": "tiny", **getattr(module, "EXAMPLE", {})}


def savefig(fig, path: str | Path, *, style: dict | None = None) -> Path:
    """Save ``fig`` as PNG, SVG or PDF in the current style; vector files carry no date or tool
    version, so the same figure gives the same bytes. Written atomically
    (:mod:`optsched.core.atomic`): a failed save leaves no partial file (``OutputError``), and a
    path that is a device, a folder or a FIFO is refused (``InvalidOptionError``) before drawing."""
    from .core.atomic import atomic_path, check_target

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InvalidOptionError("plot", "-o", f"must end in one of {', '.join(FORMATS)}", str(path))
    check_target(path, "plot", "path")
    metadata = {".svg": {"Date": None, "Creator": None},
                ".pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
                ".png": {"Software": None}}[suffix]
    with atomic_path(path) as tmp, style_context(style):
        fig.savefig(tmp, format=suffix[1:], metadata=metadata)
    return path


def plot(instance: Any, result: Result, path: str | Path | None = None, *, style: dict | None = None):
    """Draw ``result`` (a solved :class:`Result` of ``instance``) with its problem's picture; save
    it to ``path`` if given. ``style``: matplotlib rcParams over the paper style for this figure.

    Raises :class:`InvalidInstanceError` (CLI exit 2) for a problem without a picture, a result
    of another problem or of another instance (its ``instance_sha256``), a result without a
    solution, a record that contradicts itself (``optsched check``'s rules,
    :func:`optsched.core.referee.record_contradictions`), a solution the problem's checker does not
    accept (a malformed one included: drawing assumes a valid solution), or an unknown file type.
    """
    problem = instance.problem
    module = plot_module(problem)
    if module is None:
        raise InvalidOptionError(problem, "plot", f"no picture for this problem (pictures: {', '.join(pictures())})")
    if result.problem != problem:
        raise InvalidInstanceError(problem, "result", f"is a result of {result.problem!r}")
    if result.solution is None:
        raise InvalidInstanceError(problem, "result", f"has no solution to draw (status {result.status})")
    if path is not None:
        from .core.atomic import check_target

        if Path(path).suffix.lower() not in FORMATS:
            raise InvalidOptionError(problem, "-o", f"must end in one of {', '.join(FORMATS)}", str(path))
        check_target(path, problem, "path")  # a device, a folder or a FIFO: refused before drawing
    from .core.referee import judge_record

    verdict = judge_record(result, instance, get_problem(problem))  # this instance's record (else exit 2)
    if verdict.contradictions:
        raise InvalidInstanceError(problem, "result", "the record contradicts itself: " + verdict.contradictions[0])
    if not verdict.report.feasible:
        shown = "; ".join(verdict.report.violations[:2]) or "rejected by the checker"
        raise InvalidInstanceError(problem, "solution", f"is not a valid solution of this instance, nothing to "
                                   f"draw ({len(verdict.report.violations)} violation(s): {shown})")
    with style_context(style):
        fig = module.draw(instance, result)
    integer_ticks(fig)  # counts and indices get whole-number ticks (no "2.5 nodes")
    if not hasattr(fig, "optsched"):
        fig.optsched = {}
    if path is not None:
        savefig(fig, path, style=style)
    return fig


class _CallableModule(ModuleType):
    """``optsched.plot(instance, result, path)`` is :func:`plot` (the module stays a module)."""

    def __call__(self, instance, result, path=None, *, style=None):
        return plot(instance, result, path, style=style)


sys.modules[__name__].__class__ = _CallableModule
