"""The ``dag-pipeline`` instance (Rhino's pipeline-stage problem on a DAG) and its checker.

Assign every operator v of a DAG a stage s_v in 0..K-1 with s_u <= s_v along every edge and
every stage non-empty. Stage k's compute is W_k = sum_{s_v = k} compute_v (seconds per
microbatch); the bytes crossing boundary k (between stages k and k+1) are
X_k = sum_{(u,v): s_u <= k < s_v} bytes_uv. With ``balance_percent`` set, every stage must satisfy
W_k <= (sum_v compute_v / K) (1 + balance_percent / 100) [code: TePDist hlo_graph_sketch.cc,
UNBALANCED_RATIO = 8; ceil() of integer FLOPs there, reals here].

Objectives (the instance names one):

* ``cut-bytes``: sum of bytes_uv over edges with s_u != s_v (each edge once) [code: Rhino's ILP];
* ``bottleneck``: max(max_k W_k, max_{k<K-1} X_k / bandwidth) [ours: the chain partition's
  bottleneck with one device per stage];
* ``sync-estimate``: sum_k W_k + 2 sum_k X_k / bandwidth + (M - 1) max_k W_k [ours:
  the chain partition's synchronous estimate with one device per stage, no all-reduce].

Solution schema: ``{"stages": [s_v for each node v]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport
from optsched.graphs import Graph

__all__ = ["DagPipelineInstance", "check", "plan_values", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize (objective = cut-bytes) sum_{(u,v): s_u != s_v} bytes_uv | (bottleneck) max(max_k W_k, "
             "max_k X_k / bw) | (sync-estimate) sum_k W_k + 2 sum_k X_k / bw + (M - 1) max_k W_k over stages "
             "s_v in 0..K-1, s_u <= s_v on edges, no empty stage, W_k <= (sum compute / K)(1 + balance/100)")
#: the objective's unit, printed after its value by ``optsched solve`` (by the instance's objective: cut
#: bytes, or seconds)
OBJECTIVE_UNIT = {"cut-bytes": "bytes", "bottleneck": "s", "sync-estimate": "s"}
SOLUTION_SCHEMA = '{"stages": [stage of node v in 0..K-1 for v = 0..n-1]}'


@dataclass(frozen=True)
class DagPipelineInstance(Instance):
    """A DAG of operators (compute seconds per microbatch, edges with bytes) and K stages."""

    problem = "dag-pipeline"
    compute_s: tuple[float, ...]
    edges: tuple[tuple[int, int, float], ...]
    stages: int
    objective: Literal["cut-bytes", "bottleneck", "sync-estimate"] = "bottleneck"
    balance_percent: float | None = None
    bandwidth: float = 1e10
    microbatches: int = 1
    node_names: tuple[str, ...] = ()
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.compute_s)
        self.require(n >= 1, "compute_s", "must list at least one node", n)
        self.require_nonnegative("compute_s", self.compute_s)
        self.require(1 <= self.stages <= n, "stages", f"must be in 1..number of nodes ({n})", self.stages)
        for i, (u, v, b) in enumerate(self.edges):
            self.require(0 <= u < n and 0 <= v < n, f"edges[{i}]", f"endpoints must be nodes 0..{n - 1}", (u, v))
            self.require(u != v, f"edges[{i}]", "must not be a self-loop", (u, v))
            self.require(np.isfinite(b) and b >= 0, f"edges[{i}][2]", "bytes must be >= 0 and finite", b)
        if self.balance_percent is not None:
            self.require(np.isfinite(self.balance_percent) and self.balance_percent >= 0, "balance_percent",
                         "must be >= 0 (or null for no budget)", self.balance_percent)
        self.require(self.bandwidth > 0 and np.isfinite(self.bandwidth), "bandwidth", "must be > 0", self.bandwidth)
        self.require(self.microbatches >= 1, "microbatches", "must be >= 1", self.microbatches)
        self.require(not self.node_names or len(self.node_names) == n, "node_names",
                     f"must be empty or one per node ({n})", len(self.node_names))
        try:
            self.graph.topological_order()
        except ValueError as exc:
            raise self.invalid("edges", str(exc)) from None

    @property
    def num_nodes(self) -> int:
        return len(self.compute_s)

    @cached_property
    def graph(self) -> Graph:
        return Graph.from_edges(self.num_nodes, self.edges, directed=True,
                                node_weight=list(self.compute_s))

    @cached_property
    def compute_array(self) -> np.ndarray:
        return np.asarray(self.compute_s, float)

    @cached_property
    def stage_budget(self) -> float:
        """Per-stage compute budget (inf without ``balance_percent``)."""
        if self.balance_percent is None:
            return float("inf")
        return float(self.compute_array.sum()) / self.stages * (1.0 + self.balance_percent / 100.0)

    @cached_property
    def is_chain(self) -> bool:
        """Edges exactly (i, i+1) for i = 0..n-2 (in any order, each once)."""
        pairs = sorted((u, v) for u, v, _ in self.edges)
        return pairs == [(i, i + 1) for i in range(self.num_nodes - 1)]


def plan_values(instance: DagPipelineInstance, stages) -> dict:
    """W (per stage), X (per boundary), and the three objective values of a stage vector."""
    s = np.asarray(stages, dtype=np.int64)
    K, g = instance.stages, instance.graph
    W = np.bincount(s, weights=instance.compute_array, minlength=K)
    su, sv = s[g.src], s[g.dst]
    X = np.zeros(max(K - 1, 0))
    for k in range(K - 1):
        X[k] = float(g.weight[(su <= k) & (sv > k)].sum())
    bw, M = instance.bandwidth, instance.microbatches
    return {
        "W": W, "X": X,
        "cut-bytes": float(g.weight[su != sv].sum()),
        "bottleneck": float(max(W.max(), (X / bw).max() if X.size else 0.0)),
        "sync-estimate": float(W.sum() + 2.0 * X.sum() / bw + (M - 1) * W.max()),
    }


def check(instance: DagPipelineInstance, solution) -> CheckReport:
    """Structure, precedence, non-empty stages, the balance budget, and the objective."""
    if not isinstance(solution, dict) or set(solution) != {"stages"}:
        return CheckReport.from_violations(["solution must be an object with exactly the field stages"], None)
    stages = solution["stages"]
    n, K = instance.num_nodes, instance.stages
    if not isinstance(stages, list) or len(stages) != n or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in stages):
        return CheckReport.from_violations([f"stages must be a list of {n} integers"], None)
    bad = [v for v, x in enumerate(stages) if not 0 <= x < K]
    if bad:
        return CheckReport.from_violations([f"node {bad[0]}: stage {stages[bad[0]]} not in 0..{K - 1}"], None)
    out = []
    for u, v, _ in instance.edges:
        if stages[u] > stages[v]:
            out.append(f"edge {u}->{v}: stage {stages[u]} after stage {stages[v]}")
    vals = plan_values(instance, stages)
    empty = [k for k in range(K) if not np.any(np.asarray(stages) == k)]
    if empty:
        out.append(f"stage(s) {empty} empty")
    cap = instance.stage_budget
    # 1e-9 relative: budgets are sums of floats; the exact model meets them to its 1e-7 feasibility
    # tolerance on binaries rounded to integers, so the point's own sums are exact up to ulps
    for k, w in enumerate(vals["W"]):
        if w > cap * (1 + 1e-9):
            out.append(f"stage {k} compute {w:.9g} exceeds the budget {cap:.9g}")
    return CheckReport.from_violations(out, vals[instance.objective], W=vals["W"].tolist(), X=vals["X"].tolist(),
                                       cut_bytes=vals["cut-bytes"], bottleneck=vals["bottleneck"],
                                       sync_estimate=vals["sync-estimate"])
