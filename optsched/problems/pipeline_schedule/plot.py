"""The picture of a pipeline schedule: a Gantt chart, stages x time, one bar per forward (light)
and backward (dark) of each microbatch, numbered and coloured by microbatch, the all-reduce after
the last backward hatched, idle time as gaps, the lower bound as a dashed line."""

from __future__ import annotations

from optsched.plotting.draw import key_legend
from optsched.plotting.style import PAGE_IN, color_for, new_figure

EXAMPLE = {"seed": 1, "preset": "hetero-small", "method": "list"}


def draw(instance, result):
    from optsched.simulation.pipeline import order_from_json, simulate_order

    kind, mb = order_from_json(result.solution["order"], instance.stages, instance.microbatches)
    sim = simulate_order(instance.timing, instance.microbatches, kind, mb)
    t = instance.timing
    K, M = instance.stages, instance.microbatches
    fig, ax = new_figure(width=PAGE_IN, height=0.35 * K + 1.4)
    bars = 0
    for k in range(K):
        for task, dur, alpha in ((0, t.forward[k], 0.5), (1, t.backward[k], 1.0)):
            for m in range(M):
                start = sim.task_start[k, task, m]
                ax.barh(k, dur, left=start, height=0.8, color=color_for(m), alpha=alpha, edgecolor="black",
                        linewidth=0.4)
                ax.text(start + dur / 2, k, str(m), ha="center", va="center", fontsize=6)
                bars += 1
        if t.allreduce[k] > 0:
            ax.barh(k, t.allreduce[k], left=sim.stage_end[k], height=0.4, color="#777777", hatch="//")
    line = ax.axvline(sim.lower_bound, color="black", linestyle="--", linewidth=1.0,
                      label=f"lower bound {sim.lower_bound:.3g} s")
    ax.set_yticks(range(K), [str(k) for k in range(K)])
    ax.invert_yaxis()
    ax.set_ylabel("stage (index)")
    ax.set_xlabel("time (s)")
    ax.set_title(f"{result.method}: makespan {sim.makespan:.4g} s (forward light, backward dark, "
                 "hatched: all-reduce)")
    leg = key_legend(ax, range(min(M, 9)), "microbatch", max_entries=10)
    ax.add_artist(leg)
    ax.legend(handles=[line], loc="lower right")
    fig.optsched = {"bars": bars, "makespan": float(sim.makespan), "lower_bound": float(sim.lower_bound)}
    return fig
