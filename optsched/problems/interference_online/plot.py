"""The picture of an online interference-aware schedule: GPUs x time, one lane per GPU of each
server, every job's bar on the GPUs it holds from its start to its end, coloured by job."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "least-interference"}


def draw(instance, result):
    gpus = list(instance.gpus_per_server)
    servers = len(gpus)
    fig, ax = new_figure(width=PAGE_IN, height=0.4 * servers + 1.4)
    lanes = [np.zeros(g) for g in gpus]
    bars = 0
    for job in sorted(result.solution["jobs"], key=lambda j: (j["start"], j["id"])):
        for server, need in job["servers"]:
            free = np.flatnonzero(lanes[server] <= job["start"] + 1e-9)[:need]
            for lane in free:
                ax.barh(server + (lane + 0.5) / gpus[server] - 0.5, job["end"] - job["start"], left=job["start"],
                        height=0.9 / gpus[server], color=color_for(job["id"]), edgecolor="black", linewidth=0.2)
                lanes[server][lane] = job["end"]
                bars += 1
    ax.set_yticks(range(servers), [str(s) for s in range(servers)])
    ax.set_ylim(servers - 0.5, -0.5)
    ax.set_ylabel("server (index; one lane per GPU)")
    ax.set_xlabel("time (s)")
    ax.set_title(f"{result.method}: objective {result.objective:.4g} s")
    key_legend(ax, [job["id"] for job in result.solution["jobs"]], "job")
    fig.optsched = {"bars": bars}
    return fig
