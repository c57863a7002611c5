"""The picture of an adaptive pipeline run: over wall-clock time, the kFkB group size chosen for
each iteration (step) and the slowest link's bandwidth trace (the preemption it adapts to)."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, legend, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "ada-grouper"}


def draw(instance, result):
    from .instance import replay

    run = replay(instance, list(result.solution["group_sizes"]))
    fig, (top, bottom) = new_figure(2, 1, width=PAGE_IN, height=3.6, sharex=True)
    starts = np.asarray(run.starts, float)
    ends = starts + np.asarray(run.iteration_times, float)
    top.step(np.r_[starts, ends[-1:]], np.r_[run.group_sizes, run.group_sizes[-1:]], where="post",
             color=method_color(result.method), label=f"{result.method} group size")
    top.set_ylabel("group size k (microbatches)")
    from matplotlib.ticker import MaxNLocator

    top.yaxis.set_major_locator(MaxNLocator(integer=True))
    top.set_xlabel("time (s)")
    top.set_title(f"{result.method}: total {run.total_time:.4g} s, {run.switches} switches")
    legend(top, loc="upper right")
    bw = np.asarray(instance.bandwidth, float).min(axis=1) / 1e9
    t = np.arange(bw.size) * instance.period
    end = max(float(ends[-1]), float(t[-1]) + instance.period)   # the last period lasts to the end
    bottom.step(np.r_[t, end], np.r_[bw, bw[-1:]], where="post", color="black", label="slowest link")
    bottom.axhline(instance.nominal_bandwidth / 1e9, color="#777777", linestyle="--", linewidth=0.8, label="nominal")
    bottom.set_xlabel("time (s)")
    bottom.set_ylabel("bandwidth (GB/s)")
    bottom.set_title("bandwidth trace")
    legend(bottom, loc="upper right")
    fig.optsched = {"iterations": int(len(starts)), "switches": int(run.switches)}
    return fig
