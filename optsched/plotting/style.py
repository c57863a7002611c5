"""One look for every figure: colour-blind-safe palette, a fixed colour per method, paper style.

The default style (:data:`DEFAULT_STYLE`) is sized for a two-column paper: 8 pt text, panels of
3.4 in (one column) or 7 in (two columns), vector text in SVG/PDF (``svg.fonttype = none``, PDF
TrueType fonts), and a tight bounding box so no label is clipped. Override it for the session with
:func:`set_style` (any matplotlib rcParams), or for one figure with ``optsched.plot(..., style=...)``.

>>> method_color("threshold") == method_color("online-knapsack/threshold") == "#4477aa"
True
>>> with style_context({"font.size": 11}):
...     import matplotlib
...     matplotlib.rcParams["font.size"]
11.0
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any, Iterable

import numpy as np

__all__ = ["PALETTE", "KEY_PALETTE", "METHOD_COLORS", "DEFAULT_STYLE", "FORMATS", "color_for", "method_color", "set_style",
           "reset_style", "current_style", "style_context", "new_figure", "legend", "log_scale_if_wide",
           "integer_ticks", "INTEGER_UNITS",
           "COLUMN_IN", "PAGE_IN"]

FORMATS = (".png", ".svg", ".pdf")
#: Paul Tol's bright + light schemes (colour-blind safe), then grey and black
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000",
           "#ee8866", "#44bb99", "#99ddff", "#ffaabb")
#: colours of keys (jobs, stages, parts, ranks): the palette without black and grey, which mean
#: optima, bounds and idle resources
KEY_PALETTE = tuple(c for c in PALETTE if c not in ("#000000", "#bbbbbb"))
#: width of one column and of a full page (two columns) of a paper, inches
COLUMN_IN, PAGE_IN = 3.4, 7.0

#: fixed colours of the method names shared by many problems (exact optima and bounds in black and
#: grey; a method keeps its colour in every figure of every problem and experiment). A method of
#: one problem declares its colour on its registration instead (``PROBLEM.method(..., color=...)``).
METHOD_COLORS = {
    "milp": "#000000", "opt": "#000000", "brute": "#000000", "exhaustive": "#000000", "min": "#000000",
    "lp": "#777777", "lb": "#777777", "bound": "#777777", "lower-bound": "#777777",
    "threshold": "#4477aa", "fixed-price": "#ee6677", "greedy": "#228833", "lp-round": "#ccbb44",
    "learned": "#aa3377", "fifo": "#ee6677", "tiresias-las": "#ccbb44", "dp": "#4477aa", "metis": "#ee6677",
    "hash": "#bbbbbb", "random": "#bbbbbb", "oracle": "#000000", "local-search": "#66ccee",
    "list": "#ccbb44", "lru": "#ee6677",
}

DEFAULT_STYLE: dict[str, Any] = {
    "font.size": 8, "axes.titlesize": 8.5, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
    "legend.fontsize": 7, "legend.frameon": False, "figure.titlesize": 9,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": False,
    "lines.linewidth": 1.2, "lines.markersize": 4, "patch.linewidth": 0.4,
    "figure.dpi": 100, "savefig.dpi": 200, "savefig.bbox": "tight", "savefig.pad_inches": 0.03,
    "figure.constrained_layout.use": True,
    "svg.fonttype": "none", "svg.hashsalt": "optsched", "pdf.fonttype": 42, "ps.fonttype": 42,
}
_USER_STYLE: dict[str, Any] = {}


def color_for(index: int) -> str:
    """A colour-blind-safe colour, the same for the same index (job, stage, part) in every figure
    (never black or grey: those mean optima, bounds and idle resources)."""
    return KEY_PALETTE[int(index) % len(KEY_PALETTE)]


def method_color(name: str) -> str:
    """The colour of a method in every figure: :data:`METHOD_COLORS` for the common names (the
    part after ``problem/`` counts), else the colour its problem declares on the method's
    registration (for ``problem/method``, that problem's; for a bare name, the first registered
    problem, in name order, declaring one for a method of that name), else a palette colour chosen
    by a stable digest of the name (the same in every run and process, unlike ``hash``).

    >>> method_color("some-new-method") == method_color("x/some-new-method")
    True
    """
    short = str(name).rsplit("/", 1)[-1]
    if short in METHOD_COLORS:
        return METHOD_COLORS[short]
    declared = _declared_color(str(name))
    if declared is not None:
        return declared
    digest = int(hashlib.sha256(short.encode()).hexdigest(), 16)
    return PALETTE[digest % len(PALETTE)]


def _declared_color(name: str) -> str | None:
    """The colour a registered problem declares for the method ``name`` (``problem/method`` or a
    bare method name), or None."""
    from optsched.core.registry import problems as registered

    problems = registered()
    if "/" in name:
        problem, short = name.rsplit("/", 1)
        candidates = [problems[problem]] if problem in problems else []
    else:
        short, candidates = name, [problems[p] for p in sorted(problems)]
    for problem in candidates:
        method = problem.methods.get(short)
        if method is not None and method.color is not None:
            return method.color
    return None


def set_style(rc: dict | None = None, **params) -> None:
    """Override the style of every later figure (matplotlib rcParams; keyword names use ``_`` for
    ``.``, e.g. ``set_style(font_size=10)`` or ``set_style({"font.family": "serif"})``)."""
    _USER_STYLE.update(rc or {})
    _USER_STYLE.update({k.replace("_", "."): v for k, v in params.items()})


def reset_style() -> None:
    """Back to :data:`DEFAULT_STYLE`."""
    _USER_STYLE.clear()


def current_style(extra: dict | None = None) -> dict:
    """The default style, the session's overrides, then ``extra``."""
    return {**DEFAULT_STYLE, **_USER_STYLE, **(extra or {})}


@contextlib.contextmanager
def style_context(extra: dict | None = None):
    """Draw (and save) inside this context to get the current style (never changes the backend)."""
    import matplotlib

    with matplotlib.rc_context(current_style(extra)):
        try:
            yield
        finally:
            interactive = matplotlib.is_interactive()
    # a Jupyter kernel turns interactive mode on when the first figure picks the inline backend;
    # if that happened inside the context, restoring rcParams must not undo it (later figures
    # would no longer show)
    matplotlib.interactive(interactive)


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float | None = None, height: float | None = None,
               **kw):
    """``plt.subplots`` at paper size: one column wide for one panel, a page wide for several."""
    import matplotlib.pyplot as plt

    width = width or (COLUMN_IN if nrows * ncols == 1 else PAGE_IN)
    height = height or (2.4 * nrows if ncols > 1 or nrows > 1 else 2.4)
    return plt.subplots(nrows, ncols, figsize=(width, height), **kw)


def legend(ax, handles: Iterable | None = None, *, max_entries: int = 12, title: str | None = None, **kw):
    """A legend of ``ax`` (or of the given handles), at most ``max_entries`` rows (then '...').

    Patches for colour keys: ``legend(ax, [("job 0", "#4477aa"), ...])`` (name, colour) pairs."""
    from matplotlib.patches import Patch

    if handles is None:
        items, labels = ax.get_legend_handles_labels()
    else:
        items, labels = [], []
        for h in handles:
            if isinstance(h, tuple):
                items.append(Patch(facecolor=h[1], edgecolor="black", linewidth=0.3, label=h[0]))
                labels.append(h[0])
            else:
                items.append(h)
                labels.append(h.get_label())
    if len(items) > max_entries:
        items, labels = items[:max_entries - 1] + [Patch(alpha=0)], labels[:max_entries - 1] + ["..."]
    kw.setdefault("loc", "best")
    kw.setdefault("ncols", 1 if len(items) <= 6 else 2)
    return ax.legend(items, labels, title=title, **kw)


#: the unit an axis label ends with when its values are whole numbers: counts and indices
INTEGER_UNITS = ("(count)", "(index)")


def integer_ticks(fig) -> int:
    """On every linear axis of ``fig`` whose label ends with ``(count)`` or ``(index)`` and whose
    ticks are not placed by hand, put ticks on whole numbers only (``MaxNLocator(integer=True)``:
    no "2.5 nodes"); returns how many axes it changed.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1, 2, 3], [0, 1, 3, 2]); _ = ax.set_ylabel("nodes (count)")
    >>> integer_ticks(fig), all(float(t).is_integer() for t in ax.get_yticks())
    (1, True)
    """
    from matplotlib.ticker import FixedLocator, MaxNLocator

    changed = 0
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            label = axis.get_label().get_text().strip()
            if scale != "linear" or not label.endswith(INTEGER_UNITS) or \
                    isinstance(axis.get_major_locator(), FixedLocator):
                continue
            axis.set_major_locator(MaxNLocator(integer=True))
            changed += 1
    return changed


def log_scale_if_wide(ax, values, axis: str = "y", decades: float = 1.0) -> bool:
    """Put ``axis`` of ``ax`` on a log scale when the positive finite ``values`` span more than
    ``decades`` powers of ten (so small and huge series both stay readable); returns whether it did.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> log_scale_if_wide(ax, [1.2, 3.0, 600.0]), ax.get_yscale()
    (True, 'log')
    >>> fig, ax = plt.subplots()
    >>> log_scale_if_wide(ax, [1.2, 3.0, 9.0]), ax.get_yscale()
    (False, 'linear')
    """
    vals = np.asarray([v for v in values if v is not None], float)
    vals = vals[np.isfinite(vals) & (vals > 0)]
    if vals.size < 2 or np.log10(vals.max() / vals.min()) <= decades:
        return False
    from matplotlib.ticker import FuncFormatter

    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")  # 30, not 3 x 10^1
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(plain)
    target.set_minor_formatter(plain if np.log10(vals.max() / vals.min()) < 2 else FuncFormatter(lambda v, _: ""))
    return True
