"""The picture of an online cluster schedule: GPUs x time. Server s is a band of
``gpus_per_server[s]`` lanes; each segment of a job takes as many lanes on a server as it has graph
nodes there (first free lanes), coloured by job; a job that returns after a gap was preempted."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 0, "preset": "tiny", "method": "a-srpt"}


def draw(instance, result):
    gpus = list(instance.gpus_per_server)
    servers = len(gpus)
    fig, ax = new_figure(width=PAGE_IN, height=0.45 * servers + 1.4)
    lanes = [np.zeros(g) for g in gpus]             # end time of the last bar in each lane
    bars = 0
    segments = sorted(((seg["start"], seg["end"], job["id"], seg["servers"]) for job in result.solution["jobs"]
                       for seg in job["segments"]), key=lambda s: (s[0], s[2]))
    for start, end, job_id, placed in segments:
        for s in sorted(set(placed)):
            need = placed.count(s)
            free = np.flatnonzero(lanes[s] <= start + 1e-9)[:need]
            for lane in free:
                ax.barh(s + (lane + 0.5) / gpus[s] - 0.5, end - start, left=start, height=0.9 / gpus[s],
                        color=color_for(job_id), edgecolor="black", linewidth=0.2)
                lanes[s][lane] = end
                bars += 1
    ax.set_yticks(range(servers), [str(s) for s in range(servers)])
    ax.set_ylim(servers - 0.5, -0.5)
    ax.set_ylabel("server (index; one lane per GPU)")
    ax.set_xlabel("time (s)")
    ax.set_title(f"{result.method}: total flow time {result.objective:.4g} s (a gap in a job's bars: preempted)")
    key_legend(ax, [job["id"] for job in result.solution["jobs"]], "job")
    fig.optsched = {"bars": bars}
    return fig
