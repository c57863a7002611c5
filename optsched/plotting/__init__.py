"""The shared plotting layer: one style, one colour per method, drawing primitives, and the
cross-cutting plots of a paper (ratio to the optimum per method, ratio against time, competitive
ratio against U/L).

This layer sits below the problems (it imports only :mod:`optsched.core`): each problem draws its
own picture in ``optsched/problems/<name>/plot.py`` with these pieces, and :func:`optsched.plot.plot`
finds that module from the instance's package. Nothing here names a problem.

* :mod:`.style`: the palette, :func:`method_color`, :func:`color_for`, the paper style
  (:data:`DEFAULT_STYLE`, :func:`set_style`, :func:`style_context`), :func:`new_figure`,
  :func:`log_scale_if_wide`, :func:`legend`;
* :mod:`.draw`: Gantt bars, graphs coloured by part, stacked shares, a stream of online requests;
* :mod:`.checks`: :func:`figure_problems`, the paper-readiness check (title, axis labels with units,
  a legend where there is more than one series) every problem's picture passes;
* :mod:`.crosscut`: :func:`plot_ratios`, :func:`plot_anytime`, :func:`plot_competitive`.
"""

from __future__ import annotations

from .checks import figure_problems
from .crosscut import plot_anytime, plot_competitive, plot_ratios
from .style import (DEFAULT_STYLE, FORMATS, METHOD_COLORS, PALETTE, color_for, legend, log_scale_if_wide,
                    method_color, new_figure, reset_style, set_style, style_context)

__all__ = ["DEFAULT_STYLE", "FORMATS", "METHOD_COLORS", "PALETTE", "color_for", "method_color", "legend",
           "log_scale_if_wide", "new_figure", "set_style", "reset_style", "style_context", "figure_problems",
           "plot_ratios", "plot_anytime", "plot_competitive"]
