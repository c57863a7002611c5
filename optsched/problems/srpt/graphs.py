"""Job-graph generators: data-parallel rings, pipeline chains, 2-D tensor-parallel grids [ours].

Nodes are GPU workers (or stages) ``0..g-1``; an edge carries its bytes per iteration.

* ``ring``: edges ``(k, k+1 mod g)``; ring all-reduce moves ``2 (g - 1) / g`` model sizes through
  every edge per iteration (Patarasuk & Yuan 2009 [classical]).
* ``chain``: edges ``(k, k+1)``: activations (forward) and gradients (backward) between stages.
* ``grid``: ``r x c`` grid (``r`` the largest divisor of g up to sqrt(g)), edges to the right and
  lower neighbours.

>>> make_job_edges("ring", 3, 2.0)
((0, 1, 2.0), (1, 2, 2.0), (2, 0, 2.0))
>>> make_job_edges("grid", 4, 1.0)
((0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0))
"""

from __future__ import annotations

import math

__all__ = ["make_job_edges", "GRAPHS", "PLAN_GRAPH"]

GRAPHS = ("ring", "chain", "grid")
#: the graph of each parallel plan [ours]
PLAN_GRAPH = {"data": "ring", "pipeline": "chain", "tensor": "grid"}


def make_job_edges(graph: str, gpus: int, edge_bytes: float) -> tuple[tuple[int, int, float], ...]:
    """Edges ``(u, v, bytes)`` of a ``graph`` job on ``gpus`` nodes, every edge ``edge_bytes``."""
    if graph not in GRAPHS:
        raise ValueError(f"graph must be one of {GRAPHS}, not {graph!r}")
    if gpus <= 1:
        return ()
    if graph == "ring":
        if gpus == 2:
            return ((0, 1, 2 * edge_bytes),)  # both ring directions share the one link
        return tuple((k, (k + 1) % gpus, edge_bytes) for k in range(gpus))
    if graph == "chain":
        return tuple((k, k + 1, edge_bytes) for k in range(gpus - 1))
    rows = max(r for r in range(1, math.isqrt(gpus) + 1) if gpus % r == 0)
    cols = gpus // rows
    edges = []
    for r in range(rows):
        for c in range(cols):
            k = r * cols + c
            if c + 1 < cols:
                edges.append((k, k + 1, edge_bytes))
            if r + 1 < rows:
                edges.append((k, k + cols, edge_bytes))
    return tuple(edges)
