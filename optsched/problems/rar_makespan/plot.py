"""The picture of a ring-all-reduce plan: every GPU of every server against time (slots), each
job's bar on the GPUs it holds from its start to its completion (re-simulated), coloured by job."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "sjf-bco"}


def draw(instance, result):
    from .instance import simulate

    sched = simulate(instance, result.solution["order"], result.solution["gpus"])
    offset = np.r_[0, np.cumsum(instance.servers)]
    rows = int(offset[-1])
    fig, ax = new_figure(width=PAGE_IN, height=0.16 * rows + 1.4)
    bars = 0
    for j, placed in enumerate(result.solution["gpus"]):
        for server, gpu in placed:
            ax.barh(offset[server] + gpu, sched.completion[j] - sched.start[j], left=sched.start[j], height=0.8,
                    color=color_for(j), edgecolor="black", linewidth=0.2)
            bars += 1
    for s in offset[1:-1]:
        ax.axhline(s - 0.5, color="black", linewidth=0.6)
    ax.set_yticks(offset[:-1] + (np.asarray(instance.servers) - 1) / 2,
                  [f"server {s}" for s in range(len(instance.servers))])
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_ylabel("GPU (grouped by server)")
    ax.set_xlabel(f"time (slot of {instance.slot_s:g} s)")
    ax.set_title(f"{result.method}: makespan {sched.makespan} slots")
    key_legend(ax, range(len(result.solution["gpus"])), "job")
    fig.optsched = {"bars": bars, "makespan": int(sched.makespan)}
    return fig
