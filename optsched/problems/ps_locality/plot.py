"""The picture of a parameter-server allocation: machines x slots, each job's tasks on a machine
in a slot as a stacked bar (height: its share of the machine's tasks that slot; solid:
co-located, hatched: spread), coloured by job."""

from __future__ import annotations

from collections import defaultdict

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "milp"}


def draw(instance, result):
    machines = len(instance.machines)
    fig, ax = new_figure(width=PAGE_IN, height=0.45 * machines + 1.4)
    cell = defaultdict(list)
    for job, machine, slot, x, p, y, q in result.solution["allocations"]:
        cell[(machine, slot)].append((job, x + p, y + q))
    bars = 0
    for (machine, slot), parts in sorted(cell.items()):
        total = sum(a + b for _, a, b in parts) or 1
        bottom = machine - 0.4
        for job, local, spread in sorted(parts):
            for count, hatch in ((local, None), (spread, "///")):
                if count:
                    h = 0.8 * count / total
                    ax.bar(slot, h, bottom=bottom, width=0.9, align="edge", color=color_for(job), hatch=hatch,
                           edgecolor="black", linewidth=0.2)
                    bottom += h
                    bars += 1
    ax.set_yticks(range(machines), [m.name or str(i) for i, m in enumerate(instance.machines)])
    ax.set_ylim(machines - 0.5, -0.5)
    ax.set_ylabel("machine (name)")
    ax.set_xlabel(f"time (slot of {instance.slot_s:g} s)")
    ax.set_title(f"{result.method}: total completion {result.objective:.4g} slots (hatched: spread)")
    key_legend(ax, sorted({a[0] for a in result.solution["allocations"]}), "job")
    fig.optsched = {"bars": bars}
    return fig
