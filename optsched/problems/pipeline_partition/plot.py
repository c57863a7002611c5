"""The picture of a pipeline partition: the layer chain cut into stages (bar heights: per-layer
forward + backward time, colour: stage) with each stage's devices, and the device graph with each
device coloured by its stage (edge width: bandwidth)."""

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
    work = np.asarray(instance.forward_s) + np.asarray(instance.backward_s)
    for k, (a, b) in enumerate(zip(starts, ends)):
        top.bar(np.arange(a, b), work[a:b], width=1.0, color=color_for(k), edgecolor="none",
                label=f"stage {k}: devices {', '.join(map(str, sol['devices'][k]))}")
        top.text((a + b - 1) / 2, work.max() * 1.02, f"stage {k}", ha="center", va="bottom", fontsize=6)
    top.set_xlabel("position in the layer chain (index)")
    top.set_ylabel("forward + backward (s)")
    top.set_ylim(0, work.max() * 1.3 if work.max() > 0 else 1)
    top.set_title(f"{result.method}: {len(starts)} stages, objective {result.objective:.4g} s")
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
    fig.optsched = {"stages": len(starts), "bars": n}
    return fig
