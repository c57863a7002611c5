"""Min-cut placement primitives: assign nodes to capacitated parts, minimizing the cut weight.

Problem: nodes ``0..n-1`` with edges ``(u, v, w)``, parts ``0..k-1`` with capacities; assign
every node to a part, at most ``capacity[p]`` (per weight row) on part ``p``, minimizing the total
weight of edges between parts (job graphs on servers, data graphs on machines).

* :func:`min_cut_model` -- the exact MILP [classical]: binary ``x[v, p]``, ``z[e, p] >=
  |x[u, p] - x[v, p]|``, minimize ``sum_e w_e sum_p z[e, p] / 2``; capacities as rows;
  optionally nodes fixed to parts (symmetry breaking).
* :func:`decode_assignment` -- the part of every node from a model point.
* :func:`fill_in_order` -- nodes in index order onto the given per-part counts (contiguous arcs
  of rings and chains, row-major blocks of grids).
* :func:`shuffled_fill` -- the same counts, nodes in a random order (baseline).

Refinement of a placement: :func:`optsched.graphs.refine.pairwise_kl_refine`.

>>> model, used = min_cut_model(4, [0, 1, 2], [1, 2, 3], [1.0, 5.0, 1.0], [2, 2])
>>> model.num_cols, used
(14, [0, 1])
>>> fill_in_order({1: 2, 0: 1})
[1, 1, 0]
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

__all__ = ["min_cut_model", "decode_assignment", "fill_in_order", "shuffled_fill"]


def fill_in_order(counts: Mapping[int, int]) -> list[int]:
    """Node list in index order: ``counts[p]`` consecutive nodes per part, parts in dict order."""
    out: list[int] = []
    for p, c in counts.items():
        out += [p] * c
    return out


def shuffled_fill(counts: Mapping[int, int], rng: np.random.Generator) -> list[int]:
    """The same per-part counts as :func:`fill_in_order`, nodes in a random order."""
    parts = fill_in_order(counts)
    return [parts[k] for k in rng.permutation(len(parts))]


def min_cut_model(num_nodes: int, src, dst, weight, capacities, *, name: str = "min-cut-placement",
                  node_weights=None, fixed: Mapping[int, int] | None = None):
    """The capacitated min-cut MILP over the parts with positive capacity.

    ``capacities``: one row per weight row of ``node_weights`` (``(ncon, n)``; default one row of
    ones, i.e. node counts), or a flat list for the single row. Parts whose every capacity is 0
    are left out. ``fixed`` maps nodes to parts (their ``x`` columns fixed).
    Returns ``(LinearModel, used_parts)``; blocks ``x`` (n, m) and ``z`` (edges, m); row groups
    ``assign``, ``capacity`` (then ``capacity_1``, ... for further rows) and ``cut``.
    Size: n m + e m columns, n + ncon m + 2 e m rows.
    """
    from optsched.core.linear import ModelBuilder

    caps = np.asarray(capacities, float)
    caps = caps[None, :] if caps.ndim == 1 else caps
    nw = np.ones((1, num_nodes)) if node_weights is None else np.asarray(node_weights, float)
    nw = nw[None, :] if nw.ndim == 1 else nw
    if nw.shape[0] != caps.shape[0]:
        raise ValueError(f"{caps.shape[0]} capacity rows for {nw.shape[0]} node-weight rows")
    usable = [p for p in range(caps.shape[1]) if np.any(caps[:, p] > 0)]
    g, m = int(num_nodes), len(usable)
    u = np.asarray(src, dtype=np.int64)
    v = np.asarray(dst, dtype=np.int64)
    w = np.asarray(weight, float)
    b = ModelBuilder(name, "min")
    lower = 0.0
    if fixed:
        lower = np.zeros((g, m))
        for node, part in fixed.items():
            lower[node, usable.index(part)] = 1.0
    x = b.add_block("x", (g, m), lower=lower, upper=1.0, integer=True)
    z = b.add_block("z", (len(w), m), upper=1.0, cost=np.repeat(w / 2.0, m).reshape(len(w), m))
    b.add_sparse_rows("assign", np.repeat(np.arange(g), m), x.ravel(), np.ones(g * m), g, lower=1.0, upper=1.0)
    for r in range(caps.shape[0]):
        b.add_sparse_rows("capacity" if r == 0 else f"capacity_{r}", np.tile(np.arange(m), g), x.ravel(),
                          np.repeat(nw[r], m), m, upper=caps[r, usable])
    if len(w):
        e = np.arange(len(w) * m)
        ze, xu, xv = z.ravel(), x[u].ravel(), x[v].ravel()
        rows = np.concatenate([e, e, e, len(e) + e, len(e) + e, len(e) + e])
        cols = np.concatenate([ze, xu, xv, ze, xv, xu])
        vals = np.tile(np.concatenate([np.ones(len(e)), -np.ones(len(e)), np.ones(len(e))]), 2)
        b.add_sparse_rows("cut", rows, cols, vals, 2 * len(e), lower=0.0)
    return b.build(), usable


def decode_assignment(model, x: np.ndarray, used_parts: Sequence[int]) -> list[int]:
    """The part of every node in a point of :func:`min_cut_model` (the largest ``x[v, :]``)."""
    values = model.block_values(x, "x")
    return [int(used_parts[int(k)]) for k in np.argmax(values, axis=1)]
