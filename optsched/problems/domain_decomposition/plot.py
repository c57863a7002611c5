"""The picture of a domain decomposition: the occupied cells (projected on x-y) joined by the
Peano-Hilbert curve in chain order, each coloured by its rank (the domains), and each rank's
work over its speed (the objective is the largest)."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import load_bars
from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "dp"}


def draw(instance, result):
    owner = np.asarray(result.solution["owner"], int)
    xyz = np.asarray(instance.coords, float)
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.8)
    left.plot(xyz[:, 0], xyz[:, 1], color="#bbbbbb", linewidth=0.5, zorder=1, label="Hilbert curve (chain order)")
    ranks = sorted(set(owner.tolist()))
    for p in ranks:
        mask = owner == p
        left.scatter(xyz[mask, 0], xyz[mask, 1], s=14, color=color_for(p), edgecolors="black", linewidths=0.2,
                     zorder=2, label=f"rank {p}")
    left.set_xlabel("x (cell index)")
    left.set_ylabel("y (cell index)")
    left.set_aspect("equal", adjustable="datalim")
    left.set_title(f"{result.method}: domains along the curve (x-y projection)")
    legend(left, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    speed = instance.speed_array
    load = np.bincount(owner, weights=instance.weight_array, minlength=speed.size) / speed
    load_bars(right, load)
    right.set_xlabel("rank (index)")
    right.set_ylabel("work / speed (work units)")
    right.set_title(f"load per rank, max {result.objective:.4g}")
    fig.optsched = {"cells": int(owner.size), "ranks": len(ranks)}
    return fig
