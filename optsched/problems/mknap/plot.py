"""The picture of a knapsack selection: every item by profit and total weight (selected filled),
and each knapsack constraint's load against its capacity."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, legend, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "greedy"}


def draw(instance, result):
    weights = np.asarray(instance.weights, float)             # constraints x items
    profits = np.asarray(instance.profits, float)
    chosen = np.zeros(profits.size, bool)
    chosen[list(result.solution["selected"])] = True
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.5)
    total = weights.sum(axis=0)
    left.scatter(total[chosen], profits[chosen], s=10, color=method_color(result.method), label="selected")
    left.scatter(total[~chosen], profits[~chosen], s=10, facecolors="none", edgecolors="#999999", linewidths=0.6,
                 label="not selected")
    left.set_xlabel("item weight, summed over constraints (weight units)")
    left.set_ylabel("item profit (profit units)")
    left.set_title(f"{result.method}: profit {result.objective:.6g}")
    legend(left)
    caps = np.asarray(instance.capacities, float)
    load = weights[:, chosen].sum(axis=1)
    x = np.arange(caps.size)
    right.bar(x, load / caps, color=method_color(result.method), edgecolor="black", linewidth=0.3, label="used")
    right.axhline(1.0, color="black", linestyle="--", linewidth=0.8, label="capacity")
    right.set_xticks(x)
    right.set_xlabel("constraint (index)")
    right.set_ylabel("load / capacity (fraction)")
    right.set_title("knapsack loads")
    legend(right, loc="lower right")
    fig.optsched = {"items": int(profits.size), "selected": int(chosen.sum())}
    return fig
