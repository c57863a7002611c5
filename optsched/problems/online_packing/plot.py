"""The picture of an online packing run: the adversary's stream (value density of each request in
arrival order, accepted or rejected, the range [L, U]) and each resource's utilisation as the
requests arrive."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import request_stream
from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "threshold"}


def draw(instance, result):
    values = np.asarray(instance.values, float)
    demands = np.asarray(instance.demands, float).reshape(values.size, -1)   # requests x resources
    accepted = sorted(result.solution["accepted"])
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.6)
    take = request_stream(left, values, accepted, lower=instance.lower, upper=instance.upper)
    left.set_title(f"{result.method}: welfare {result.objective:.4g}, {len(accepted)}/{values.size} served")
    used = np.cumsum(demands * take[:, None], axis=0)
    for i in range(used.shape[1]):
        right.plot(np.arange(values.size), used[:, i], color=color_for(i), label=f"resource {i}")
    right.axhline(1.0, color="black", linestyle="--", linewidth=0.8, label="capacity")
    right.set_xlabel("arrival (request index)")
    right.set_ylabel("utilisation (fraction of capacity)")
    right.set_title("resource utilisation")
    legend(right, loc="upper left")
    fig.optsched = {"requests": int(values.size), "accepted": len(accepted)}
    return fig
