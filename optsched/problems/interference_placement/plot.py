"""The picture of a placement: each server's free GPUs as cells, coloured by the job placed on
them (residents' servers hatched grey), rejected jobs named in the title."""

from __future__ import annotations

from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "milp"}


def draw(instance, result):
    gpus = list(instance.gpus_per_server)
    servers = len(gpus)
    fig, ax = new_figure(width=PAGE_IN, height=0.35 * servers + 1.4)
    used = [0] * servers
    keys, rejected, cells = [], [], 0
    for job in result.solution["jobs"]:
        if not job["servers"]:
            rejected.append(job["id"])
            continue
        keys.append(job["id"])
        for server, need in job["servers"]:
            for _ in range(need):
                ax.barh(server, 1.0, left=used[server], height=0.8, color=color_for(job["id"]), edgecolor="black",
                        linewidth=0.3)
                ax.text(used[server] + 0.5, server, str(job["id"]), ha="center", va="center", fontsize=6)
                used[server] += 1
                cells += 1
    for s in range(servers):
        if used[s] < gpus[s]:
            ax.barh(s, gpus[s] - used[s], left=used[s], height=0.8, color="#ffffff", edgecolor="#999999",
                    linewidth=0.3)
    resident_servers = sorted({s for r in instance.residents for s in r.servers})
    for s in resident_servers:
        ax.barh(s, 0.4, left=-0.5, height=0.8, color="#bbbbbb", hatch="///", edgecolor="black", linewidth=0.3)
    ax.set_yticks(range(servers), [str(s) for s in range(servers)])
    ax.invert_yaxis()
    ax.set_ylabel("server (index)")
    ax.set_xlabel("free GPU (index)")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    names = {j.id: instance.job_types[j.type] for j in instance.jobs}
    handles = [(f"job {k} ({names.get(k, '?')})", color_for(k)) for k in keys] + [("free", "#ffffff")]
    if resident_servers:
        handles.append(("server with a resident", "#bbbbbb"))
    legend(ax, handles, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(f"{result.method}: cost {result.objective:.4g}"
                 + (f"; rejected: {', '.join(map(str, rejected))}" if rejected else ""))
    fig.optsched = {"cells": cells, "rejected": len(rejected)}
    return fig
