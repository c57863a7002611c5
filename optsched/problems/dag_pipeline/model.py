"""The exact stage MILP of ``dag-pipeline`` (Rhino's pipeline-stage ILP and its siblings).

Variables y_{v,k} binary for k in [asap_v, alap_v] (one-hot stage), with the cumulative
z_{v,k} = sum_{j <= k} y_{v,j} = [s_v <= k] written as expressions. Rows [code: TePDist
hlo_graph_sketch.cc, in this linearisation: ours]:

* sum_k y_{v,k} = 1; precedence z_{u,k} >= z_{v,k} for every edge and k (s_u <= s_v);
* every stage non-empty: sum_v y_{v,k} >= 1; balance: sum_v compute_v y_{v,k} <= budget.

Given precedence, z_{u,k} - z_{v,k} = [s_u <= k < s_v] exactly, so X_k is linear in y:

* cut-bytes: f_e >= z_{u,k} - z_{v,k} for all k, f_e in [0, 1]; minimize sum b_e f_e (f_e is 1
  exactly when the edge crosses a boundary; Rhino's binary f with f <= s_v - s_u <= M f is the
  same set of plans);
* bottleneck: T >= W_k, T >= X_k / bw; minimize T;
* sync-estimate: Wmax >= W_k; minimize sum W + 2/bw sum_k X_k + (M - 1) Wmax.

The window [asap_v, alap_v] [code: Rhino's stage variables live in it; its computation here is
ours]: with budget c, the ancestors of v (with v) fill stages 0..s_v, so s_v >= ceil(A_v / c) - 1;
the descendants (with v) fill s_v..K-1, so s_v <= K - ceil(D_v / c). Every feasible plan lies in
the window, so it removes no plan (this project's ``optsched/problems/dag_pipeline/README.md``, "Window").
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import Infeasible
from optsched.core.linear import LinearModel, ModelBuilder

from .instance import DagPipelineInstance

__all__ = ["stage_window", "build_model", "decode", "reach_sums"]


def reach_sums(instance: DagPipelineInstance, poll=None) -> tuple[np.ndarray, np.ndarray]:
    """(A, D): compute of the ancestors and of the descendants of each node, itself included.
    Python-int bitsets over a topological order: O(n m / 64), then O(n^2) to sum them; ``poll``
    is called once per node of each pass."""
    poll = poll or (lambda: None)
    g = instance.graph
    n = instance.num_nodes
    order = g.topological_order().tolist()
    preds = [[] for _ in range(n)]
    succs = [[] for _ in range(n)]
    for u, v in zip(g.src.tolist(), g.dst.tolist()):
        preds[v].append(u)
        succs[u].append(v)
    anc = [0] * n
    for v in order:
        poll()
        m = 1 << v
        for u in preds[v]:
            m |= anc[u]
        anc[v] = m
    desc = [0] * n
    for v in reversed(order):
        poll()
        m = 1 << v
        for w in succs[v]:
            m |= desc[w]
        desc[v] = m
    w = instance.compute_array

    def total(mask: int) -> float:
        poll()
        idx = [i for i in range(n) if mask >> i & 1]
        return float(w[idx].sum())
    return np.array([total(m) for m in anc]), np.array([total(m) for m in desc])


def stage_window(instance: DagPipelineInstance, poll=None) -> tuple[np.ndarray, np.ndarray]:
    """(asap, alap) per node; (0, K-1) everywhere without a balance budget."""
    n, K = instance.num_nodes, instance.stages
    lo, hi = np.zeros(n, dtype=np.int64), np.full(n, K - 1, dtype=np.int64)
    cap = instance.stage_budget
    if math.isfinite(cap) and cap > 0:
        A, D = reach_sums(instance, poll)
        # 1e-9 relative slack so that float sums equal to a multiple of the budget do not shrink it
        lo = np.maximum(lo, np.ceil(A / cap * (1 - 1e-9)).astype(np.int64) - 1)
        hi = np.minimum(hi, K - np.ceil(D / cap * (1 - 1e-9)).astype(np.int64))
    return lo, hi


def build_model(instance: DagPipelineInstance, poll=None, window=None) -> LinearModel:
    """The stage MILP. ``poll`` (a method's ``ctx.check_time``) is called once per node and per
    edge while the windows and rows are computed, so a time limit stops the writing of a large
    model; ``window`` is :func:`stage_window`'s answer when the caller has it."""
    n, K = instance.num_nodes, instance.stages
    poll = poll or (lambda: None)
    lo, hi = window if window is not None else stage_window(instance, poll)
    empty = np.flatnonzero(lo > hi)
    if empty.size:
        raise Infeasible(f"node {int(empty[0])} fits no stage within the balance budget "
                         f"(window [{int(lo[empty[0]])}, {int(hi[empty[0]])}])")
    b = ModelBuilder(f"dag-pipeline-{instance.objective}-{instance.name or 'instance'}", sense="min")
    cols: dict[tuple[int, int], int] = {}
    count = int(np.maximum(hi - lo + 1, 0).sum())
    Y = b.add_block("y", count, lower=0.0, upper=1.0, integer=True)
    j = 0
    for v in range(n):
        poll()
        for k in range(int(lo[v]), int(hi[v]) + 1):
            cols[v, k] = int(Y[j])
            j += 1
    w = instance.compute_array
    g = instance.graph
    bw, M = instance.bandwidth, instance.microbatches

    def z(v: int, k: int) -> list[tuple[int, float]]:
        """Entries of z_{v,k} = [s_v <= k]; constant 1 when k >= alap_v (returned as None)."""
        if k >= hi[v]:
            return []
        return [(cols[v, j], 1.0) for j in range(int(lo[v]), k + 1)]

    def zconst(v: int, k: int) -> float:
        return 1.0 if k >= hi[v] else 0.0

    obj = instance.objective
    extra = {}
    if obj == "cut-bytes":
        extra["f"] = b.add_block("f", g.num_edges, lower=0.0, upper=1.0, cost=g.weight)
    elif obj == "bottleneck":
        extra["T"] = b.add_block("T", 1, lower=0.0, cost=1.0)
    else:
        extra["Wmax"] = b.add_block("Wmax", 1, lower=0.0, cost=float(M - 1))
        b.offset = float(w.sum())
    rows = {name: ([], [], [], [], []) for name in ("one", "precedence", "nonempty", "balance", "objective")}

    def row(group, entries, lower, upper):
        r, c, val, lo_, hi_ = rows[group]
        k = len(lo_)
        merged: dict[int, float] = {}
        for col, x in entries:
            merged[col] = merged.get(col, 0.0) + x
        if not any(x != 0.0 for x in merged.values()):
            # a row the window decides on its own: dropped when it holds (Pyomo rejects empty rows),
            # the instance is infeasible when it does not
            if not lower <= 0.0 <= upper:
                raise Infeasible(f"the stage windows violate a {group} row on their own")
            return
        for col, x in merged.items():
            if x != 0.0:
                r.append(k)
                c.append(col)
                val.append(x)
        lo_.append(lower)
        hi_.append(upper)

    for v in range(n):
        poll()
        row("one", [(cols[v, k], 1.0) for k in range(int(lo[v]), int(hi[v]) + 1)], 1.0, 1.0)
    for k in range(K):
        poll()
        members = [(cols[v, k], 1.0) for v in range(n) if (v, k) in cols]
        row("nonempty", members, 1.0, np.inf)
        if math.isfinite(instance.stage_budget):
            row("balance", [(cols[v, k], w[v]) for v in range(n) if (v, k) in cols], -np.inf, instance.stage_budget)
    cross_cost: dict[int, float] = {}  # sync-estimate: sum_k X_k as a linear form
    for e, (u, v) in enumerate(zip(g.src.tolist(), g.dst.tolist())):
        poll()
        for k in range(K - 1):
            # z_{u,k} - z_{v,k} as entries plus a constant
            entries = z(u, k) + [(c, -x) for c, x in z(v, k)]
            const = zconst(u, k) - zconst(v, k)
            row("precedence", entries, -const, np.inf)  # z_u - z_v >= 0
            if obj == "cut-bytes":
                row("objective", [(int(extra["f"][e]), 1.0)] + [(c, -x) for c, x in entries], const, np.inf)
            elif obj == "sync-estimate":
                for c, x in entries:
                    cross_cost[c] = cross_cost.get(c, 0.0) + 2.0 * g.weight[e] / bw * x
                b.offset += 2.0 * g.weight[e] / bw * const
    if obj == "bottleneck":
        T = int(extra["T"][0])
        for k in range(K):
            poll()
            row("objective", [(T, 1.0)] + [(cols[v, k], -w[v]) for v in range(n) if (v, k) in cols], 0.0, np.inf)
        for k in range(K - 1):
            entries, const = [(T, 1.0)], 0.0
            for e, (u, v) in enumerate(zip(g.src.tolist(), g.dst.tolist())):
                poll()
                c_e = g.weight[e] / bw
                if c_e == 0:
                    continue
                entries += [(c, -c_e * x) for c, x in z(u, k)] + [(c, c_e * x) for c, x in z(v, k)]
                const += c_e * (zconst(u, k) - zconst(v, k))
            row("objective", entries, const, np.inf)
    elif obj == "sync-estimate":
        Wm = int(extra["Wmax"][0])
        for k in range(K):
            row("objective", [(Wm, 1.0)] + [(cols[v, k], -w[v]) for v in range(n) if (v, k) in cols], 0.0, np.inf)
    for name, (r, c, val, lo_, hi_) in rows.items():
        if lo_:
            b.add_sparse_rows(name, r, c, val, len(lo_), lower=np.asarray(lo_), upper=np.asarray(hi_))
    model = b.build()
    if cross_cost:
        cost = model.cost.copy()
        for c, x in cross_cost.items():
            cost[c] += x
        from dataclasses import replace
        model = replace(model, cost=cost, objective_granularity=None)
    return model


def decode(instance: DagPipelineInstance, model: LinearModel, x: np.ndarray, window=None) -> dict:
    lo, hi = window if window is not None else stage_window(instance)
    y = np.round(model.block_values(x, "y")).astype(int)
    stages, j = [], 0
    for v in range(instance.num_nodes):
        width = int(hi[v] - lo[v] + 1)
        stages.append(int(lo[v] + int(np.argmax(y[j:j + width]))))
        j += width
    return {"stages": stages}
