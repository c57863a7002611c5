"""The picture of a cache plan: every read (node against time), hit or miss, and the cumulative
misses of the plan against the compulsory misses (first reads, which no plan avoids)."""

from __future__ import annotations

import numpy as np

from optsched.plotting.style import PAGE_IN, legend, method_color, new_figure

EXAMPLE = {"seed": 1, "preset": "small", "method": "min"}


def replay(instance, evict) -> np.ndarray:
    """Whether each read is a hit under the evictions ``evict`` (the checker's rules)."""
    cache: set[int] = set()
    hits = np.zeros(instance.num_accesses, bool)
    for t, (x, e) in enumerate(zip(instance.accesses, evict)):
        if x in cache:
            hits[t] = True
            continue
        cache.add(x)
        if e != -1:
            cache.discard(e)
    return hits


def draw(instance, result):
    hits = replay(instance, result.solution["evict"])
    reads = instance.access_array
    t = np.arange(reads.size)
    fig, (left, right) = new_figure(1, 2, width=PAGE_IN, height=2.5)
    left.scatter(t[hits], reads[hits], s=6, color=method_color(result.method), label="hit")
    left.scatter(t[~hits], reads[~hits], s=8, facecolors="none", edgecolors="#ee6677", linewidths=0.6, label="miss")
    left.set_xlabel("read (index)")
    left.set_ylabel("node read (node id)")
    left.set_title(f"{result.method}: {int((~hits).sum())} misses, capacity {instance.capacity}")
    legend(left, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    seen = np.zeros(reads.size, bool)
    _, first = np.unique(reads, return_index=True)
    seen[first] = True
    right.plot(t, np.cumsum(~hits), color=method_color(result.method), label=f"{result.method} misses")
    right.plot(t, np.cumsum(seen), color="black", linestyle="--", label="compulsory misses")
    right.set_xlabel("read (index)")
    right.set_ylabel("cumulative misses (count)")
    right.set_title(f"hit ratio {1 - (~hits).mean():.3f}")
    legend(right, loc="upper left")
    fig.optsched = {"reads": int(reads.size), "misses": int((~hits).sum())}
    return fig
