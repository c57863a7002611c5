"""The picture of an intra-operator sharding plan: the plan's memory in use over time against
the limit, and how many nodes chose each strategy (SBP signature when the instance names them)."""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.plotting.style import PAGE_IN, color_for, legend, new_figure

EXAMPLE = {"seed": 0, "preset": "transformer-2d", "method": "local-search"}


def draw(instance, result):
    from .instance import solution_vector, usage_profile

    strategy, problems = solution_vector(instance, result.solution)
    if strategy is None:
        raise InvalidInstanceError(instance.problem, "result", "; ".join(problems[:2]))
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.6)
    profile = usage_profile(instance, strategy)
    left.plot(np.arange(profile.size), profile, color=color_for(0), label="memory in use")
    if instance.usage_limit is not None:
        left.axhline(instance.usage_limit, color="black", linestyle="--", label="limit")
    left.set_xlabel("time step (index)")
    # the README's unit: bytes for the generated operator graphs (weights and outputs over their
    # splits); an imported contest file's usages are its own integers, with no unit stated
    left.set_ylabel("memory in use (bytes for operator graphs; other instances: their usage unit)")
    left.set_title("memory profile of the plan")
    legend(left)
    if len(instance.labels):
        # generated instances name their strategies (SBP signatures): count nodes per name
        chosen = [str(instance.labels[int(o) + int(k)]) for o, k in zip(instance.offsets[:-1], strategy)]
        names, counts = np.unique(np.asarray(chosen, dtype=object), return_counts=True)
        names = [str(n) for n in names]
        right.set_xlabel("chosen strategy (SBP signature)")
    else:
        counts = np.bincount(strategy)
        names = [str(i) for i in range(counts.size)]
        right.set_xlabel("chosen strategy (index; imported instances carry no names)")
    right.bar(np.arange(len(names)), counts, color=color_for(1))
    right.set_xticks(np.arange(len(names)), names, rotation=45 if len(names) > 6 else 0,
                     ha="right" if len(names) > 6 else "center")
    right.set_ylabel("nodes (count)")
    right.set_title(f"{result.method}: cost {result.objective:.6g}")
    fig.optsched = {"bars": len(names), "peak": float(profile.max()) if profile.size else 0.0}
    return fig
