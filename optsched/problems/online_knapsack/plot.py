"""The picture of an online knapsack run: the adversary's stream (value per unit of each request
in arrival order, accepted or rejected, the range [L, U]) and the threshold price curve psi(z)
against the utilisation z with every request placed at the utilisation it met."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import request_stream
from optsched.plotting.style import PAGE_IN, legend, log_scale_if_wide, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "threshold"}


def draw(instance, result):
    from .algorithms import threshold_price

    values = np.asarray(instance.values, float)
    demands = np.asarray(instance.demands, float)
    accepted = sorted(result.solution["accepted"])
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.6)
    take = request_stream(left, values, accepted, lower=instance.lower, upper=instance.upper)
    left.set_title(f"{result.method}: welfare {result.objective:.4g}, {len(accepted)}/{values.size} served")
    met = np.r_[0.0, np.cumsum(demands * take)][:-1]          # utilisation each request met
    z = np.linspace(0, 1, 200)
    price = [threshold_price(float(v), instance.lower, instance.upper) for v in z]
    right.plot(z, price, color="black", label="threshold price psi(z)")
    right.scatter(met[take], values[take], s=10, color=method_color(result.method), label="accepted", zorder=3)
    right.scatter(met[~take], values[~take], s=10, facecolors="none", edgecolors="#ee6677", linewidths=0.6,
                  label="rejected", zorder=2)
    log_scale_if_wide(right, list(values) + price)
    right.set_xlabel("utilisation when the request arrived (fraction)")
    right.set_ylabel("value per unit demand (value/unit)")
    right.set_title(f"price curve, U/L = {instance.upper / instance.lower:g}")
    legend(right, loc="upper left")
    fig.optsched = {"requests": int(values.size), "accepted": len(accepted)}
    return fig
