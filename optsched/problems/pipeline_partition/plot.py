"""The picture of a pipeline partition: the layer chain cut into stages (bar heights: per-layer
forward + backward time of one microbatch, colour: stage) with each stage's devices, and the
device graph with each device coloured by its stage (edge width: bandwidth).

The bars are at the microbatch size, as the cost model scales them (the profile's times at
``profile_batch`` samples times ``microbatch_size / profile_batch``), so a stage's bars sum to the
compute part of its time per microbatch, the unit of the ``bottleneck`` objective; the title names
the objective and its unit (``sync-estimate`` and ``sync`` are the time of one iteration of all
microbatches)."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 0, "preset": "small", "method": "dp"}


def draw(instance, result):
    import networkx as nx

    sol = result.solution
    n = instance.num_positions
    starts = [0] + list(sol["cuts"])
    ends = list(sol["cuts"]) + [n]
    fig, (top, bottom) = new_figure(1, 2, width=PAGE_IN, height=2.8, gridspec_kw={"width_ratios": [1.6, 1]})
    scaled = instance.scaled  # per microbatch, as the objective (the cost model's scaling)
    work = np.asarray(scaled["forward_s"]) + np.asarray(scaled["backward_s"])
    for k, (a, b) in enumerate(zip(starts, ends)):
        top.bar(np.arange(a, b), work[a:b], width=1.0, color=color_for(k), edgecolor="none",
                label=f"stage {k}: devices {', '.join(map(str, sol['devices'][k]))}")
        top.text((a + b - 1) / 2, work.max() * 1.02, f"stage {k}", ha="center", va="bottom", fontsize=6)
    top.set_xlabel("position in the layer chain (index)")
    top.set_ylabel("forward + backward per microbatch (s)")
    top.set_ylim(0, work.max() * 1.3 if work.max() > 0 else 1)
    unit = ("s per microbatch" if instance.objective == "bottleneck"
            else f"s per iteration of {instance.microbatches} microbatches")
    top.set_title(f"{result.method}: {len(starts)} stages, {instance.objective} {result.objective:.4g} {unit}")
    legend(top, loc="upper left", bbox_to_anchor=(0.0, -0.25), ncols=2)
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.num_devices))
    for u, v, bw in instance.links:
        graph.add_edge(u, v, weight=bw)
    stage_of = {d: k for k, devs in enumerate(sol["devices"]) for d in devs}
    pos = nx.circular_layout(graph)
    widest = max([1.0] + [w for _, _, w in graph.edges(data="weight")])
    nx.draw_networkx(graph, pos, ax=bottom, node_color=[color_for(stage_of[d]) if d in stage_of else "#ffffff"
                                                       for d in graph.nodes], node_size=160,
                     edgecolors="black", font_size=6,
                     width=[0.5 + 2.5 * graph[u][v]["weight"] / widest for u, v in graph.edges])
    bottom.set_title("devices by stage\n(white: idle; edge width: bandwidth)")
    bottom.axis("off")
    legend(bottom, [(f"stage {k}", color_for(k)) for k in range(len(starts))] + [("idle", "#ffffff")],
           loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.optsched = {"stages": len(starts), "bars": n, "bar_unit": "s per microbatch"}
    return fig
