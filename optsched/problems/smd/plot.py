"""The picture of an SMD allocation: workers and parameter servers per job (deferred jobs at
zero), and each pooled resource's use against its capacity."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, legend, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "smd"}


def draw(instance, result):
    w = np.asarray(result.solution["workers"], float)
    s = np.asarray(result.solution["parameter_servers"], float)
    x = np.arange(w.size)
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.5)
    left.bar(x - 0.2, w, width=0.4, color="#4477aa", label="workers")
    left.bar(x + 0.2, s, width=0.4, color="#ee6677", label="parameter servers")
    left.set_xticks(x)
    left.set_xlabel("job (index)")
    left.set_ylabel("tasks (count)")
    left.set_title(f"{result.method}: objective {result.objective:.4g}")
    legend(left)
    wd = np.asarray([j.worker_demand for j in instance.jobs], float)
    pd_ = np.asarray([j.ps_demand for j in instance.jobs], float)
    use = w @ wd + s @ pd_
    caps = np.asarray(instance.capacities, float)
    r = np.arange(caps.size)
    right.bar(r, np.divide(use, caps, out=np.zeros_like(use), where=caps > 0),
              color=method_color(result.method), edgecolor="black", linewidth=0.3, label="used")
    right.axhline(1.0, color="black", linestyle="--", linewidth=0.8, label="capacity")
    right.set_xticks(r, list(instance.resources))
    right.set_xlabel("resource (name)")
    right.set_ylabel("use / capacity (fraction)")
    right.set_title("pooled resources")
    legend(right, loc="lower right")
    fig.optsched = {"jobs": int(w.size), "deferred": int(((w == 0) & (s == 0)).sum())}
    return fig
