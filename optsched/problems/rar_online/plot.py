"""The picture of an online ring-all-reduce schedule: servers x slots, one bar per job, slot and
server, coloured by job, its height the job's share of the server's GPUs."""

from __future__ import annotations

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "gadget"}


def draw(instance, result):
    servers = len(instance.servers)
    fig, ax = new_figure(width=PAGE_IN, height=0.4 * servers + 1.4)
    bars = 0
    jobs = []
    for job, slot, parts in result.solution["allocations"]:
        jobs.append(job)
        for server, workers in parts:
            ax.barh(server, 1.0, left=slot, height=0.8 * min(1.0, workers / max(1, instance.servers[server])),
                    color=color_for(job), edgecolor="black", linewidth=0.3)
            bars += 1
    ax.set_yticks(range(servers), [str(s) for s in range(servers)])
    ax.invert_yaxis()
    ax.set_ylabel("server (index)")
    ax.set_xlabel(f"time (slot of {instance.slot_s:g} s)")
    ax.set_title(f"{result.method}: objective {result.objective:.4g} (bar height: share of the server's GPUs)")
    key_legend(ax, sorted(set(jobs)), "job")
    fig.optsched = {"bars": bars}
    return fig
