"""The plots a paper needs across problems, from a results frame (:func:`optsched.compare`).

* :func:`plot_ratios`: ratio to the reference per method, mean with a 95 % Student-t confidence
  interval over instances and the instances as dots, one panel per problem. A method with no ratio
  at all (``not_applicable`` or without a solution on every instance) gets no bar: the panel
  names it in a note under the axis. Against an exact reference (``reference_kind`` ``optimum``
  on every row of the method) a ratio is >= 1 by definition, so the band is drawn clipped at 1.0
  (the t interval of a few ratios near 1 reaches below it; the mean and the instances are drawn
  as they are);
* :func:`plot_anytime`: ratio against time (one line per method, a point per time budget, the
  median over instances);
* :func:`plot_competitive`: the empirical competitive ratio against a column such as ``U/L``,
  with an optional theory curve.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .style import legend, log_scale_if_wide, method_color, new_figure, style_context

__all__ = ["plot_ratios", "plot_anytime", "plot_competitive", "mean_ci"]


def mean_ci(values, level: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of its Student-t confidence interval (0 for one value).

    >>> mean_ci([1.0, 1.0, 1.0])
    (1.0, 0.0)
    """
    vals = np.asarray([v for v in values if v is not None and math.isfinite(v)], float)
    if vals.size == 0:
        return math.nan, 0.0
    if vals.size == 1:
        return float(vals[0]), 0.0
    from scipy import stats

    half = float(stats.t.ppf(0.5 + level / 2, vals.size - 1) * vals.std(ddof=1) / math.sqrt(vals.size))
    return float(vals.mean()), half


#: legends sit outside the axes, right of the data, never over it
OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.0, 1.0)}


def _finish(fig, path, style):
    if path is not None:
        from optsched.core.atomic import atomic_path

        with atomic_path(path) as tmp, style_context(style):  # whole or not at all; a device is refused
            fig.savefig(tmp)  # the temporary name keeps the suffix: the format is the path's
    return fig


def _exact_reference(sub) -> bool:
    """Whether every row of ``sub`` was measured against a proven optimum (ratio >= 1 then)."""
    if "reference_kind" not in sub.columns or len(sub) == 0:
        return False
    return bool((sub["reference_kind"] == "optimum").all())


def plot_ratios(frame, *, ratio: str = "ratio", path=None, style: dict | None = None):
    """Bars of the mean ratio to the reference per method (95 % CI), instances as dots; one
    panel per problem. ``frame`` is :func:`optsched.compare`'s (columns problem, method, ratio;
    ``reference_kind`` when present).

    A method without a finite ratio on any instance (``not_applicable`` everywhere, or no
    solution) has no bar: a note under the panel names it, and ``fig.optsched["skipped"]`` lists
    it as ``problem/method``. When every row of a method was measured against a proven optimum
    (``reference_kind == "optimum"``), its ratios are >= 1 by definition and the lower end of its
    band is drawn at ``max(1.0, mean - half-width)``: the Student-t interval of a few ratios at or
    near 1 reaches below a value no ratio can take. Against a bound or a given value the band is
    drawn as computed. The legend sits right of the axes, never over the bars."""
    problems = list(dict.fromkeys(frame["problem"]))
    with style_context(style):
        fig, axes = new_figure(1, len(problems), height=2.6,
                               width=None if len(problems) > 1 else 3.4, squeeze=False)
        skipped_all: list[str] = []
        for ax, problem in zip(axes[0], problems):
            sub = frame[frame["problem"] == problem]
            methods, skipped = [], []
            for m in dict.fromkeys(sub["method"]):
                vals = [float(v) for v in sub.loc[sub["method"] == m, ratio] if v is not None and v == v]
                (methods if any(math.isfinite(v) for v in vals) else skipped).append(m)
            for i, m in enumerate(methods):
                rows = sub[sub["method"] == m]
                vals = [float(v) for v in rows[ratio] if v is not None and v == v and math.isfinite(float(v))]
                mean, half = mean_ci(vals)
                low = half
                if half and _exact_reference(rows):   # a ratio to OPT is >= 1: the band stops at the floor
                    low = max(0.0, min(half, mean - 1.0))
                ax.bar(i, mean, yerr=[[low], [half]] if half else None, color=method_color(m), edgecolor="black",
                       linewidth=0.3, capsize=2, label=m, alpha=0.85)
                ax.scatter(np.full(len(vals), i) + np.linspace(-0.2, 0.2, len(vals)) if len(vals) > 1 else [i],
                           vals, s=6, color="black", zorder=3)
            ax.axhline(1.0, color="black", linewidth=0.6, linestyle="--")
            ax.set_xticks(range(len(methods)), methods, rotation=30, ha="right")
            ax.set_xlabel("method (name)")
            ax.set_ylabel("ratio to reference (x reference)")
            ax.set_title(f"{problem}: mean, 95% CI over {sub['instance'].nunique()} instance(s)")
            if skipped:
                ax.text(0.0, -0.45, "no ratio (not applicable or no solution on every instance): " + ", ".join(skipped),
                        transform=ax.transAxes, fontsize=6, va="top", ha="left", color="#555555")
                skipped_all += [f"{problem}/{m}" for m in skipped]
            finite = [float(v) for v in sub[ratio] if v is not None and v == v and math.isfinite(float(v))]
            bottom = min([1.0] + finite)
            ax.set_ylim(bottom=max(0.0, bottom - 0.05))
            if methods:
                legend(ax, **OUTSIDE)
    fig.optsched = {"panels": len(problems), "skipped": skipped_all}
    return _finish(fig, path, style)


def plot_anytime(frame, *, x: str = "time_limit", ratio: str = "ratio", path=None, style: dict | None = None):
    """Ratio against time per method, log time axis. Two inputs:

    * a trace (``compare(..., trace=True).trace_frame()``: columns instance, method, seed, time,
      ratio): one step curve per run, the incumbent's ratio as the solver improves it;
    * a frame with a budget column ``x`` (one :func:`optsched.compare` per time limit,
      concatenated): the median ratio over instances at each budget.
    """
    traced = "incumbent" in frame.columns
    with style_context(style):
        fig, ax = new_figure()
        xs_all, ys_all = [], []
        for m in dict.fromkeys(frame["method"]):
            sub = frame[(frame["method"] == m) & np.isfinite(frame[ratio].astype(float))]   # incumbent 0: inf
            if traced:
                first = True
                for _, run in sub.groupby(["instance", "seed"], sort=False):
                    run = run.sort_values("time")
                    ax.step(run["time"], run[ratio], where="post", marker=".", color=method_color(m),
                            label=m if first else "_" + m)
                    first = False
                    xs_all.extend(run["time"])
                    ys_all.extend(run[ratio])
            else:
                med = sub.groupby(x)[ratio].median()
                ax.plot(med.index, med.values, marker="o", color=method_color(m), label=m)
                xs_all.extend(med.index)
                ys_all.extend(med.values)
        ax.axhline(1.0, color="black", linewidth=0.6, linestyle="--")
        log_scale_if_wide(ax, xs_all, axis="x")
        ax.set_xlabel("solve time (s)" if traced else "time budget (s)")
        ax.set_ylabel("ratio to reference (x reference)")
        ax.set_title("anytime: incumbent ratio against time" if traced else "anytime: median ratio against time")
        legend(ax, **OUTSIDE)
    fig.optsched = {"points": len(xs_all)}
    return _finish(fig, path, style)


def plot_competitive(frame, *, x: str = "U/L", ratio: str = "ratio", theory: Callable[[float], float] | None = None,
                     theory_label: str = "ln(U/L) + 1", path=None, style: dict | None = None):
    """Worst (max) ratio over instances against ``x`` per method, log x axis; ``theory(x)`` dashed."""
    with style_context(style):
        fig, ax = new_figure()
        xs_all, ys_all = [], []
        for m in dict.fromkeys(frame["method"]):
            sub = frame[frame["method"] == m].groupby(x)[ratio].max()
            ax.plot(sub.index, sub.values, marker="o", color=method_color(m), label=m)
            xs_all.extend(sub.index)
            ys_all.extend(sub.values)
        if theory is not None and xs_all:
            grid = np.geomspace(min(xs_all), max(xs_all), 50) if min(xs_all) > 0 else np.linspace(min(xs_all), max(xs_all), 50)
            curve = [theory(float(g)) for g in grid]
            ax.plot(grid, curve, color="black", linestyle="--", label=theory_label)
            ys_all.extend(curve)
        log_scale_if_wide(ax, xs_all, axis="x", decades=0.9)
        log_scale_if_wide(ax, ys_all)
        ax.set_xlabel(f"{x} (ratio)")
        ax.set_ylabel("worst ratio to OPT (x OPT)")
        ax.set_title(f"competitive ratio against {x}")
        legend(ax, **OUTSIDE)
    return _finish(fig, path, style)
