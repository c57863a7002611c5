"""Brute force and the topological-order DP of ``dag-pipeline``.

* :func:`brute`: every map of nodes to stages (K^n, n <= 10), feasibility decided here from
  the rules directly (not by the checker).
* :func:`order_dp`: fix a topological order and choose K contiguous segments of it optimally
  (a chain partition whose costs are the DAG's: a boundary at position p is crossed by every
  edge from before p to p or later). Exact over the plans contiguous in that order, hence exact
  on a chain; a heuristic on a DAG [ours].
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .instance import DagPipelineInstance

__all__ = ["brute", "order_dp", "BRUTE_MAX_ASSIGNMENTS", "greedy_balance", "segment_tables"]

BRUTE_MAX_ASSIGNMENTS = 200_000
#: order-dp's segment tables are (n + 1)^2 floats, about 4 of them alive at once: 0.8 GB at 5,000
#: nodes [ours: the memory rule; the O(K n^2) sweep itself is stopped by the time limit]
ORDER_DP_MAX_NODES = 5_000


def _value(instance: DagPipelineInstance, s: np.ndarray) -> float | None:
    """The objective of stage vector ``s`` or None if it breaks a rule (own arithmetic)."""
    K = instance.stages
    g = instance.graph
    su, sv = s[g.src], s[g.dst]
    if np.any(su > sv):
        return None
    W = np.zeros(K)
    np.add.at(W, s, instance.compute_array)
    counts = np.bincount(s, minlength=K)
    if np.any(counts == 0) or np.any(W > instance.stage_budget * (1 + 1e-9)):
        return None
    if instance.objective == "cut-bytes":
        return float(g.weight[su != sv].sum())
    X = np.array([g.weight[(su <= k) & (sv > k)].sum() for k in range(K - 1)]) / instance.bandwidth
    if instance.objective == "bottleneck":
        return float(max(W.max(), X.max() if X.size else 0.0))
    return float(W.sum() + 2 * X.sum() + (instance.microbatches - 1) * W.max())


def brute(instance: DagPipelineInstance) -> tuple[list[int] | None, float | None]:
    """Exact by enumeration of K^n maps; (None, None) when no map is feasible."""
    best, best_s = None, None
    for combo in itertools.product(range(instance.stages), repeat=instance.num_nodes):
        s = np.asarray(combo)
        v = _value(instance, s)
        if v is not None and (best is None or v < best):
            best, best_s = v, list(combo)
    return best_s, best


def segment_tables(instance: DagPipelineInstance, order: np.ndarray):
    """For the order: prefix compute P (n+1), crossing bytes X[p] at boundary p (before position p,
    p = 1..n-1) and out[i][j] = bytes of edges leaving segment [i, j) forward (for cut-bytes)."""
    n = instance.num_nodes
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    g = instance.graph
    pu, pv = pos[g.src], pos[g.dst]
    P = np.concatenate([[0.0], np.cumsum(instance.compute_array[order])])
    # edge crosses boundary p iff pu < p <= pv
    diff = np.zeros(n + 1)
    np.add.at(diff, pu + 1, g.weight)
    np.add.at(diff, pv + 1, -g.weight)
    X = np.cumsum(diff)[:n + 1]
    # G[a, b] = bytes of edges with pu = a, pv = b; out(i, j) = sum_{i<=a<j, b>=j} G[a, b]
    G = np.zeros((n, n))
    np.add.at(G, (pu, pv), g.weight)
    tail = np.cumsum(G[:, ::-1], axis=1)[:, ::-1]  # tail[a, j] = sum_{b >= j} G[a, b]
    tail = np.concatenate([tail, np.zeros((n, 1))], axis=1)
    return P, X, tail


def order_dp(instance: DagPipelineInstance, order=None, caps=None, check=None):
    """Best plan contiguous in ``order`` (default: the graph's topological order): returns
    (stages, value) or (None, None) when none is feasible.

    ``check(plan, value)`` (raising at a method's time limit) is called at every end position of
    every stage with the best plan of the caps swept so far (None, None before the first), so a
    time limit stops the O(K n^2) sweep inside one stage. The segment tables hold O(n^2) floats:
    the method refuses more than :data:`ORDER_DP_MAX_NODES` nodes before building them.

    cut-bytes and bottleneck: exact DP over (stage, end position), O(K n^2) (plus O(n^2) per
    segment's out-bytes via prefix sums). sync-estimate: for each cap C on max_k W_k in ``caps``
    (default: every distinct segment compute when there are few, else at most 400 quantiles, fewer
    for large n so that the sweep stays near 2e7 DP steps)
    minimize 2/bw sum_k X_k under W_k <= C, then add the constant terms; exact over contiguous
    plans when every distinct value is tried.
    """
    n, K = instance.num_nodes, instance.stages
    order = instance.graph.topological_order() if order is None else np.asarray(order)
    P, X, tail = segment_tables(instance, order)
    budget = instance.stage_budget * (1 + 1e-9)
    bw, obj = instance.bandwidth, instance.objective
    colsum = np.cumsum(np.vstack([np.zeros((1, n + 1)), tail]), axis=0)  # colsum[a, j] = sum_{a' < a} tail[a', j]

    def out_bytes(i, j):  # edges leaving [i, j) to positions >= j
        return colsum[j, j] - colsum[i, j]

    def run(cap):
        INF = math.inf
        best = np.full((K + 1, n + 1), INF)
        arg = np.zeros((K + 1, n + 1), dtype=np.int64)
        best[0, 0] = 0.0
        for k in range(1, K + 1):
            for j in range(k, n - (K - k) + 1):
                if check is not None:
                    check(best_plan, best_val)
                bj = INF
                for i in range(k - 1, j):
                    if best[k - 1, i] == INF:
                        continue
                    w = P[j] - P[i]
                    if w > budget or w > cap:
                        continue
                    if obj == "cut-bytes":
                        val = best[k - 1, i] + out_bytes(i, j)
                    elif obj == "bottleneck":
                        val = max(best[k - 1, i], w, X[j] / bw if j < n else 0.0)
                    else:
                        val = best[k - 1, i] + (2.0 * X[j] / bw if j < n else 0.0)
                    if val < bj:
                        bj, arg[k, j] = val, i
                best[k, j] = bj
        if best[K, n] == INF:
            return None, None
        cuts, j = [], n
        for k in range(K, 0, -1):
            i = int(arg[k, j])
            cuts.append((i, j))
            j = i
        stages = np.empty(n, dtype=np.int64)
        for k, (i, j) in enumerate(reversed(cuts)):
            stages[order[i:j]] = k
        return stages.tolist(), float(best[K, n])

    best_plan, best_val = None, None
    if obj != "sync-estimate":
        return run(math.inf)
    if caps is None:
        values = np.unique((P[None, :] - P[:, None])[np.triu_indices(n + 1, 1)])
        values = values[values <= budget]
        limit = int(max(8, min(400, 2e7 / max(1.0, K * n * n / 2))))
        if values.size > limit:
            values = np.unique(np.quantile(values, np.linspace(0, 1, limit), method="higher"))
        caps = values
    for cap in caps:
        stages, part = run(float(cap))
        if stages is None:
            continue
        W = np.bincount(stages, weights=instance.compute_array, minlength=K)
        val = part + float(W.sum()) + (instance.microbatches - 1) * float(W.max())
        if best_val is None or val < best_val:
            best_plan, best_val = stages, val
    return best_plan, best_val


def greedy_balance(instance: DagPipelineInstance):
    """Baseline: walk the topological order and close a stage once its compute reaches
    total / K (keeping enough nodes for the remaining stages). No guarantee; may break the
    balance budget, in which case it returns None."""
    n, K = instance.num_nodes, instance.stages
    order = instance.graph.topological_order()
    target = float(instance.compute_array.sum()) / K
    stages = np.empty(n, dtype=np.int64)
    k, acc, count = 0, 0.0, 0
    for p, v in enumerate(order):
        if k < K - 1 and count > 0 and (acc >= target or n - p == K - 1 - k):
            k, acc, count = k + 1, 0.0, 0
        stages[v] = k
        acc += float(instance.compute_array[v])
        count += 1
    return stages.tolist()
