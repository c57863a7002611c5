"""The picture of a commit-rate plan: the parameter server's training loss over simulated time
under the plan (re-simulated, deterministic) with the target loss, and the plan itself (commits
per check period for ADSP, else the scheme's one number)."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, legend, log_scale_if_wide, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "adsp-search"}


def draw(instance, result):
    from .simulate import simulate

    run = simulate(instance, result.solution, record=True)
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.5)
    times = [0.0] + list(run.times)
    losses = [run.initial_loss] + list(run.losses)
    left.plot(times, losses, color=method_color(result.method), label=f"{result.method} ({result.solution['scheme']})")
    left.axhline(instance.target_loss, color="black", linestyle="--", linewidth=0.8, label="target loss")
    if run.reached:
        left.axvline(run.objective, color="#777777", linestyle=":", linewidth=0.8,
                     label=f"reached at {run.objective:.4g} s")
    log_scale_if_wide(left, losses + [instance.target_loss])
    left.set_xlabel("simulated time (s)")
    left.set_ylabel("full-data loss (loss units)")
    left.set_title(f"{result.method}: time to target {result.objective:.4g} s" if run.reached else
                   f"{result.method}: target not reached by {instance.horizon:g} s (censored {result.objective:.4g})")
    legend(left)
    scheme = result.solution["scheme"]
    if scheme == "adsp":
        commits = np.asarray(result.solution["commits"], float)
        right.bar(np.arange(commits.size) * instance.period, commits, width=0.8 * instance.period, align="edge",
                  color=method_color(result.method), edgecolor="black", linewidth=0.3)
        right.set_xlabel("check period start (s)")
        right.set_ylabel("commits asked per period (count)")
        right.set_title(f"ADSP commit rate (period {instance.period:g} s)")
    else:
        value = {"bsp": 1, "ssp": result.solution.get("staleness"), "fixed": result.solution.get("local_steps")}[scheme]
        name = {"bsp": "local steps per commit", "ssp": "staleness bound", "fixed": "local steps per commit"}[scheme]
        right.bar([0], [value or 0], color=method_color(result.method), edgecolor="black", linewidth=0.3)
        right.set_xticks([0], [scheme])
        right.set_xlabel("scheme (name)")
        right.set_ylabel(f"{name} (count)")
        right.set_title(f"{scheme} plan")
    fig.optsched = {"updates": run.updates, "points": len(times)}
    return fig
