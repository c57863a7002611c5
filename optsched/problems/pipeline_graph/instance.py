"""The ``pipeline-graph`` instance, its solution schema and the authoritative checker.

An instance is a whole layer DAG (per-layer forward/backward times at ``profile_batch``
samples, parameter bytes, output activation bytes, and the edges), ``workers`` identical workers
joined at ``bandwidth`` bytes/s (PipeDream's flat cluster), the objective, and the microbatch
size (times and activations scale by ``microbatch_size / profile_batch``, parameters do not,
as in :mod:`optsched.pipeline.costs`).

A solution is a list of stages, each a non-empty set of layers with a replica count; every edge
goes from a stage to the same or a later one (so the union of the first k stages is a down-set
D_k and stage k = D_k \\ D_{k-1}); at most ``workers`` replicas in all. With W_k the stage's
forward + backward time, P_k its parameter bytes, r_k its replicas and bw the bandwidth:

* ``bottleneck`` [ours, :mod:`optsched.pipeline.costs`]: max over k of
  max(W_k / r_k + AR_k, x_k), AR_k = 2 (r_k - 1) / r_k * P_k / bw (ring all-reduce), x_k (k >= 2)
  = the activation bytes of the layers of D_{k-1} with a successor outside D_{k-1}, / bw.
* ``pipedream`` [code: PipeDream ``optimizer/optimizer_graph_hierarchical.py``,
  ``compute_partitioning``]: max over k of (W_k + 4 (r_k - 1) P_k / (bw r_k)) / r_k and, when
  ``activation_compression_ratio`` = c is set, for k >= 2 the input transfer
  2 a(D_{k-1}) / (bw r_k c) and, for 2 <= k < K, the output transfer 2 a(D_k) / (bw r_k c), with
  a(D) the activation bytes of PipeDream's augmented antichain of D (its maximal layers and their
  augmenting predecessors). As in PipeDream's recursion the first stage is charged no transfer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport
from optsched.pipeline import costs
from optsched.pipeline.antichain import LayerDag

__all__ = ["PipelineGraphInstance", "check", "stage_values", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize over chains of down-sets {} < D_1 < ... < D_K = V and replicas r_k (sum <= workers): "
             "bottleneck = max_k max(W_k / r_k + 2 (r_k - 1) / r_k P_k / bw, cut(D_{k-1}) / bw); "
             "pipedream = max_k (W_k + 4 (r_k - 1) P_k / (bw r_k)) / r_k [+ PipeDream's transfer terms "
             "2 a(D) / (bw r_k c) when activation_compression_ratio c is set]")
#: the objective's unit, printed after its value by ``optsched solve`` (seconds per microbatch in the steady
#: state)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"stages": [[layer indices of stage 1], ...] (a partition of the layers, every edge to the '
                   'same or a later stage), "replicas": [r_1, ..., r_K] (positive, sum <= workers)}')
ARRAYS = ("forward_s", "backward_s", "parameter_bytes", "activation_bytes")


@dataclass(frozen=True)
class PipelineGraphInstance(Instance):
    """Partition a layer DAG into pipeline stages (down-set differences) with replicas.

    ``microbatch_size`` None means ``profile_batch`` (PipeDream's planner plans at the profiling
    batch). ``activation_compression_ratio`` None: PipeDream's transfer term is off (its default);
    it applies to the ``pipedream`` objective and to the ``pipedream`` baseline.
    """

    problem = "pipeline-graph"
    objective: Literal["bottleneck", "pipedream"]
    workers: int
    bandwidth: float
    layer_names: tuple[str, ...]
    forward_s: tuple[float, ...]
    backward_s: tuple[float, ...]
    parameter_bytes: tuple[float, ...]
    activation_bytes: tuple[float, ...]
    edges: tuple[tuple[int, int], ...]
    profile_batch: float = 1.0
    microbatch_size: float | None = None
    activation_compression_ratio: float | None = None
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.layer_names)
        self.require(n >= 1, "layer_names", "must list at least one layer", n)
        for f in ARRAYS:
            values = getattr(self, f)
            self.require(len(values) == n, f, f"must have one entry per layer ({n})", len(values))
            self.require_nonnegative(f, values)
            self.require(all(np.isfinite(v) for v in values), f, "must be finite")
        # [ours] the dynamic programs are quadratic in the worker count (PipeDream's table is
        # layers x workers): 1024 workers keep them within seconds on the medium preset
        self.require(1 <= self.workers <= 1024, "workers", "must be in 1..1024", self.workers)
        self.require(self.bandwidth > 0 and np.isfinite(self.bandwidth), "bandwidth", "must be > 0 and finite",
                     self.bandwidth)
        self.require(self.profile_batch > 0 and np.isfinite(self.profile_batch), "profile_batch", "must be > 0",
                     self.profile_batch)
        if self.microbatch_size is not None:
            self.require(self.microbatch_size > 0 and np.isfinite(self.microbatch_size), "microbatch_size",
                         "must be > 0", self.microbatch_size)
        if self.activation_compression_ratio is not None:
            self.require(self.activation_compression_ratio > 0 and np.isfinite(self.activation_compression_ratio),
                         "activation_compression_ratio", "must be > 0 (or null: no transfer term)",
                         self.activation_compression_ratio)
        seen = set()
        for i, e in enumerate(self.edges):
            self.require(len(e) == 2, f"edges[{i}]", "must be a pair [from, to]", e)
            u, v = e
            self.require(0 <= u < n and 0 <= v < n, f"edges[{i}]", f"layer ids must be in 0..{n - 1}", e)
            self.require(u != v, f"edges[{i}]", "must join two different layers", e)
            self.require((u, v) not in seen, f"edges[{i}]", "duplicate edge", e)
            seen.add((u, v))
        object.__setattr__(self, "_dag", LayerDag.from_edges(n, self.edges, self.problem))  # raises on a cycle

    @property
    def num_layers(self) -> int:
        return len(self.layer_names)

    @cached_property
    def dag(self) -> LayerDag:
        return self._dag

    @cached_property
    def scale(self) -> float:
        return 1.0 if self.microbatch_size is None else self.microbatch_size / self.profile_batch

    @cached_property
    def work(self) -> np.ndarray:
        """Forward + backward seconds per layer at the microbatch size."""
        return (np.asarray(self.forward_s, float) + np.asarray(self.backward_s, float)) * self.scale

    @cached_property
    def act(self) -> np.ndarray:
        return np.asarray(self.activation_bytes, float) * self.scale

    @cached_property
    def params(self) -> np.ndarray:
        return np.asarray(self.parameter_bytes, float)


def _structure(instance: PipelineGraphInstance, solution) -> tuple[list[str], list[list[int]], list[int]]:
    if not isinstance(solution, dict):
        return ["solution must be an object with stages and replicas"], [], []
    unknown = set(solution) - {"stages", "replicas"}
    if unknown:
        return [f"unknown solution field(s) {sorted(unknown)}"], [], []
    stages, replicas = solution.get("stages"), solution.get("replicas")
    ints = (lambda xs: isinstance(xs, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in xs))
    if not isinstance(stages, list) or not stages or not all(ints(s) and s for s in stages):
        return ["stages must be a non-empty list of non-empty lists of layer ids"], [], []
    if not ints(replicas) or len(replicas) != len(stages):
        return [f"replicas must be a list of {len(stages)} integers (one per stage)"], [], []
    n = instance.num_layers
    out = []
    flat = [v for s in stages for v in s]
    if any(not 0 <= v < n for v in flat):
        out.append(f"layer ids must be in 0..{n - 1}")
    elif len(set(flat)) != len(flat):
        out.append("a layer is in two stages (or twice in one)")
    elif len(flat) != n:
        missing = sorted(set(range(n)) - set(flat))
        out.append(f"layers {missing[:8]} are in no stage")
    if any(r < 1 for r in replicas):
        out.append(f"replicas must be >= 1: {replicas}")
    elif sum(replicas) > instance.workers:
        out.append(f"{sum(replicas)} replicas in all, the instance has {instance.workers} workers")
    if out:
        return out, [], []
    stage_of = {v: k for k, s in enumerate(stages) for v in s}
    for u, v in instance.edges:
        if stage_of[u] > stage_of[v]:
            out.append(f"edge {u} -> {v} goes from stage {stage_of[u] + 1} back to stage {stage_of[v] + 1}")
            break
    return out, stages, replicas


def _augmented_bytes(instance: PipelineGraphInstance, members: set[int]) -> float:
    """Activation bytes of PipeDream's augmented antichain of the down-set ``members``, computed
    from the edge list (independent of :mod:`optsched.pipeline.antichain`)."""
    succ: dict[int, list[int]] = {v: [] for v in range(instance.num_layers)}
    pred: dict[int, list[int]] = {v: [] for v in range(instance.num_layers)}
    for u, v in instance.edges:
        succ[u].append(v)
        pred[v].append(u)
    maximal = [v for v in members if not any(w in members for w in succ[v])]
    chosen = set(maximal)
    for a in maximal:
        ancestors, stack = set(), list(pred[a])
        while stack:
            p = stack.pop()
            if p not in ancestors:
                ancestors.add(p)
                stack.extend(pred[p])
        for p in ancestors:
            if any(o not in ancestors and o != a for o in succ[p]):
                chosen.add(p)
    return float(sum(instance.act[v] for v in chosen))


def stage_values(instance: PipelineGraphInstance, stages: list[list[int]], replicas: list[int],
                 objective: str | None = None) -> list[float]:
    """Every term whose maximum is the plan's value under ``objective`` (default: the instance's):
    per stage its time, then its transfer terms. The plan must be structurally valid."""
    objective = objective or instance.objective
    bw = instance.bandwidth
    K = len(stages)
    W = [float(sum(instance.work[v] for v in s)) for s in stages]
    P = [float(sum(instance.params[v] for v in s)) for s in stages]
    prefixes, acc = [], set()
    for s in stages:
        acc = acc | set(s)
        prefixes.append(set(acc))
    terms = []
    if objective == "bottleneck":
        succ: dict[int, list[int]] = {v: [] for v in range(instance.num_layers)}
        for u, w in instance.edges:
            succ[u].append(w)
        for k in range(K):
            r = replicas[k]
            terms.append(W[k] / r + costs.allreduce_time(P[k], r, bw))
            if k > 0:
                D = prefixes[k - 1]
                crossing = [v for v in D if any(w not in D for w in succ[v])]
                terms.append(float(sum(instance.act[v] for v in crossing)) / bw)
        return terms
    c = instance.activation_compression_ratio
    for k in range(K):
        r = replicas[k]
        terms.append((W[k] + 4.0 * (r - 1) * P[k] / (bw * r)) / r)
        if c is not None and k > 0:
            terms.append(2.0 * _augmented_bytes(instance, prefixes[k - 1]) / (bw * r) / c)
            if k < K - 1:
                terms.append(2.0 * _augmented_bytes(instance, prefixes[k]) / (bw * r) / c)
    return terms


def check(instance: PipelineGraphInstance, solution) -> CheckReport:
    """Feasibility (a partition into down-set differences, replicas within the workers) and the
    objective, recomputed from the instance and the solution alone."""
    violations, stages, replicas = _structure(instance, solution)
    if violations:
        return CheckReport.from_violations(violations, None)
    value = max(stage_values(instance, stages, replicas))
    return CheckReport.from_violations([], value, stages=len(stages), workers_used=sum(replicas))
