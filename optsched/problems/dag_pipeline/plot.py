"""The picture of a DAG pipeline plan: the operator DAG laid out by topological generation, each
operator coloured by its stage, and the compute per stage against the balance budget."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import draw_graph, load_bars
from optsched.plotting.style import PAGE_IN, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "milp"}


def draw(instance, result):
    stages = list(result.solution["stages"])
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.8, gridspec_kw={"width_ratios": [1.6, 1]})
    draw_graph(left, instance.num_nodes, [(u, v) for u, v, _ in instance.edges], stages, part_name="stage",
               layered=True)
    left.set_title(f"{result.method}: operators by stage ({instance.objective} {result.objective:.4g})")
    work = np.bincount(np.asarray(stages, int), weights=instance.compute_array, minlength=instance.stages)
    budget = instance.stage_budget() if callable(getattr(instance, "stage_budget", None)) else None
    load_bars(right, work, limit=budget if instance.balance_percent is not None else None, limit_label="balance budget")
    right.set_xlabel("stage (index)")
    right.set_ylabel("compute per microbatch (s)")
    right.set_title("stage compute")
    fig.optsched = {"stages": int(max(stages)) + 1, "nodes": instance.num_nodes}
    return fig
