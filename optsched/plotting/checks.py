"""Is a figure paper-ready? The rules every problem's picture is held to (``tests/plot``).

* every panel has a title (a drawing with its axes off, e.g. a graph, too);
* every panel whose axes are on labels both axes, each label with its unit in parentheses
  (``time (s)``, ``memory (GB)``, ``stage (index)``, ``requests (count)``); a colour bar labels
  its axis the same way;
* a panel that shows more than one series (labelled artists, or data drawn in more than one
  colour) has a legend (its own or the figure's) or a colour bar;
* an axis of whole numbers (its label ends with ``(count)`` or ``(index)``) has no tick between
  two whole numbers (``optsched.plot`` puts such ticks on integers:
  :func:`optsched.plotting.style.integer_ticks`).
"""

from __future__ import annotations

import re

__all__ = ["figure_problems", "UNIT"]

#: an axis label names its unit in parentheses or brackets at its end: "time (s)", "load [GB]"
UNIT = re.compile(r"[(\[][^()\[\]]+[)\]]\s*$")
_NEUTRAL = {"#000000", "#ffffff", "none"}


def _colours(ax) -> set[str]:
    """The distinct data colours of a panel (lines, bars, scatter), black and white aside."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    out: set[str] = set()
    for line in ax.get_lines():
        if len(line.get_xdata()) > 1 or line.get_marker() not in (None, "None", ""):
            out.add(to_hex(line.get_color()))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_fill() and patch.get_alpha() != 0:
            out.add(to_hex(patch.get_facecolor(), keep_alpha=False))
    for coll in ax.collections:
        faces = coll.get_facecolors()
        if getattr(coll, "get_array", lambda: None)() is not None:
            out.add("colormap")
            continue
        for f in faces[:200]:
            out.add(to_hex(f, keep_alpha=False))
    return out - _NEUTRAL


def figure_problems(fig) -> list[str]:
    """What keeps ``fig`` from being paper-ready (an empty list when nothing does)."""
    problems = []
    has_figure_legend = bool(fig.legends)
    colorbars = [ax for ax in fig.axes if getattr(ax, "_colorbar", None) is not None]
    for i, ax in enumerate(fig.axes):
        name = f"panel {i}"
        if ax in colorbars:
            label = ax.get_ylabel() or ax.get_xlabel()
            if not UNIT.search(label or ""):
                problems.append(f"{name} (colour bar): label {label!r} has no unit in parentheses")
            continue
        if not ax.get_visible():
            continue
        if not ax.get_title() and not ax.get_title(loc="left") and not fig.get_suptitle():
            problems.append(f"{name}: no title")
        if ax.axison:
            for which, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
                if not label:
                    problems.append(f"{name}: no {which} label")
                elif not UNIT.search(label):
                    problems.append(f"{name}: {which} label {label!r} has no unit in parentheses")
            for which, axis, (lo, hi) in (("x", ax.xaxis, ax.get_xlim()), ("y", ax.yaxis, ax.get_ylim())):
                if not axis.get_label().get_text().strip().endswith(("(count)", "(index)")):
                    continue
                lo, hi = min(lo, hi), max(lo, hi)
                fractional = [t for t in axis.get_ticklocs() if lo <= t <= hi and not float(t).is_integer()]
                if fractional:
                    problems.append(f"{name}: {which} axis of whole numbers has fractional ticks {fractional[:3]}")
        labelled = [lab for lab in ax.get_legend_handles_labels()[1] if not lab.startswith("_")]
        series = max(len(set(labelled)), len(_colours(ax)))
        if series > 1 and ax.get_legend() is None and not has_figure_legend and not colorbars:
            problems.append(f"{name}: {series} series and no legend")
    if not fig.axes:
        problems.append("the figure has no panel")
    return problems
