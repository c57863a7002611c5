"""The picture of a core split: cores per preprocessing stage, and each stage's throughput
(rate per core x cores) with the pipeline's throughput, the slowest stage, dashed."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "milp"}


def draw(instance, result):
    cores = np.asarray(result.solution["cores"], float)
    rates = np.asarray(instance.rate_per_core, float) * cores
    x = np.arange(cores.size)
    colours = [color_for(i) for i in x]
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.4)
    left.bar(x, cores, color="#4477aa", edgecolor="black", linewidth=0.3)
    left.set_xticks(x, list(instance.stages))
    left.set_xlabel("stage (name)")
    left.set_ylabel("cores (count)")
    left.set_title(f"{result.method}: {int(cores.sum())} of {instance.cores} cores")
    right.bar(x, rates, color=colours, edgecolor="black", linewidth=0.3)
    right.axhline(rates.min(), color="black", linestyle="--", linewidth=0.8,
                  label=f"pipeline throughput {rates.min():.4g}")
    right.set_xticks(x, list(instance.stages))
    right.set_xlabel("stage (name)")
    right.set_ylabel("throughput (items/s)")
    right.set_title("stage throughput (the slowest stage sets it)")
    legend(right, [(str(n), c) for n, c in zip(instance.stages, colours)] + right.get_legend_handles_labels()[0],
           loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.optsched = {"stages": int(cores.size), "throughput": float(rates.min())}
    return fig
