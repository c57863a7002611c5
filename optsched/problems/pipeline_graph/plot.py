"""The picture of a pipeline on a layer DAG: the layers laid out by topological generation, each
coloured by its stage, and per stage its compute per replica with the replica count."""

from __future__ import annotations

import numpy as np

from optsched.plotting.draw import draw_graph, load_bars
from optsched.plotting.style import PAGE_IN, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "antichain-dp"}


def draw(instance, result):
    n = len(instance.forward_s)
    stage_of = np.full(n, -1)
    for k, layers in enumerate(result.solution["stages"]):
        stage_of[list(layers)] = k
    replicas = list(result.solution["replicas"])
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.8, gridspec_kw={"width_ratios": [1.6, 1]})
    draw_graph(left, n, [(u, v) for u, v, *_ in instance.edges], stage_of, part_name="stage", layered=True)
    left.set_title(f"{result.method}: layers by stage ({instance.objective} {result.objective:.4g} s)")
    work = np.asarray(instance.forward_s, float) + np.asarray(instance.backward_s, float)
    per_stage = np.bincount(stage_of[stage_of >= 0], weights=work[stage_of >= 0], minlength=len(replicas))
    load_bars(right, per_stage / np.asarray(replicas, float))
    right.set_xticks(range(len(replicas)), [f"{k}\nx{r}" for k, r in enumerate(replicas)])
    right.set_xlabel("stage (index; x replicas)")
    right.set_ylabel("compute per replica (s)")
    right.set_title("stage compute / replicas")
    fig.optsched = {"stages": len(replicas), "layers": n}
    return fig
