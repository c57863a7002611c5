"""The picture of a heterogeneous sharding plan: each segment's batch split over the devices
(stacked shares; equal shares would be flat), beside each device's speed."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import stacked_bars
from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "milp"}


def draw(instance, result):
    ratios = np.asarray(result.solution["ratios"], float)          # segments x devices
    names = list(instance.device_names) or [f"device {d}" for d in range(instance.num_devices)]
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.6, gridspec_kw={"width_ratios": [1.5, 1]})
    shares = ratios / np.maximum(ratios.sum(axis=1, keepdims=True), 1e-300)
    stacked_bars(left, shares, names)
    left.set_xticks(range(shares.shape[0]))
    left.set_xlabel("segment (index)")
    left.set_ylabel("share of the segment's batch (fraction)")
    left.set_title(f"{result.method}: time {result.objective:.4g} s")
    right.bar(np.arange(instance.num_devices), instance.flops_array / 1e12,
              color=[color_for(d) for d in range(instance.num_devices)], edgecolor="black", linewidth=0.3)
    right.set_xticks(np.arange(instance.num_devices), names, rotation=30, ha="right")
    right.set_xlabel("device (name)")
    right.set_ylabel("speed (TFLOP/s)")
    right.set_title("device speeds")
    legend(right, [(n, color_for(d)) for d, n in enumerate(names)], loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.optsched = {"segments": int(shares.shape[0]), "devices": instance.num_devices}
    return fig
