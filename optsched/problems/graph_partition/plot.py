"""The picture of a graph partition: the graph with each node coloured by its part (training
nodes drawn larger on big graphs is noise, so all nodes alike), and per part its nodes and
training nodes against the balance capacities."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import draw_graph
from optsched.plotting.style import PAGE_IN, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "milp"}


def draw(instance, result):
    parts = np.asarray(result.solution["parts"], int)
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.8, gridspec_kw={"width_ratios": [1.4, 1]})
    draw_graph(left, instance.num_nodes, instance.edges, parts, part_name="part", seed=0)
    left.set_title(f"{result.method}: nodes by part (cost {result.objective:.4g})")
    K = instance.num_parts
    nodes = np.bincount(parts, minlength=K)
    train = np.bincount(parts[list(instance.train_nodes)], minlength=K)
    x = np.arange(K)
    right.bar(x - 0.2, nodes, width=0.4, color="#4477aa", label="nodes")
    right.bar(x + 0.2, train, width=0.4, color="#ee6677", label="training nodes")
    right.axhline(instance.capacity_nodes, color="#4477aa", linestyle="--", linewidth=0.8, label="node capacity")
    right.axhline(instance.capacity_train, color="#ee6677", linestyle=":", linewidth=0.8, label="training capacity")
    right.set_xticks(x)
    right.set_xlabel("part (index)")
    right.set_ylabel("nodes (count)")
    right.set_title("balance per part")
    legend(right, loc="lower right")
    fig.optsched = {"parts": K, "nodes": instance.num_nodes}
    return fig
