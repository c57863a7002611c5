"""The chain-partition plan instance, its solution schema and the authoritative checker.

An instance is a chain (a profile after PipeDream's antichain linearization, costs at
``profile_batch``), a device graph, the number of microbatches M and their size, the objective,
and optionally a fixed number of stages. The cost model is :mod:`optsched.pipeline.costs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import Instance
from optsched.core.registry import CheckReport
from optsched.pipeline import costs
from optsched.simulation.pipeline import simulate
from optsched.workloads.topology import DeviceGraph

__all__ = ["PipelinePartitionInstance", "check", "objective_value", "OBJECTIVE", "SOLUTION_SCHEMA", "ARRAYS",
           "FORMAT"]

#: The format's tag: the ``problem`` field of its JSON files, the first word of its errors and the
#: first key of its seeded draws. It is the name the format had before it moved into this layer,
#: kept because every stored plan file and every seeded chain derives from it (changing it changes
#: their bytes); the problem registered under the same name is the one that optimizes these plans.
FORMAT = "pipeline-partition"

OBJECTIVE = ("minimize the instance's objective over cuts, replicas and injective device groups: "
             "bottleneck = max_k max(F_k + B_k + AR_k, x_k); sync-estimate = sum_k (F_k + B_k) + "
             "2 sum_{k<K} x_k + (M - 1) max_k (F_k + B_k) + max(0, max_k (AR_k - sum_{j<k} (B_j + x_j))); "
             "sync = simulated makespan; s.t. params x optimizer_factor + in-flight x stash <= memory per device")
SOLUTION_SCHEMA = ('{"cuts": [first position of stage 2, ..., of stage K] (K - 1 increasing ints in 1..n-1), '
                   '"replicas": [r_1, ..., r_K], "devices": [[device ids of stage 1], ...] (disjoint)}')
ARRAYS = ("forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes")


@dataclass(frozen=True)
class PipelinePartitionInstance(Instance):
    """Partition a chain into stages and map them to disjoint device groups.

    Per-position costs are at ``profile_batch`` samples; the cost model scales times, activation
    and stash bytes by ``microbatch_size / profile_batch``. ``links`` are ``(device, device,
    bytes/s)``. ``stages`` fixes K (None: the planner chooses, 1 <= K <= min(n, N)).
    ``max_replicas`` bounds each stage's replication (None: no bound but N). Memory uses the
    in-flight count of ``schedule`` (``group_size`` for kFkB).
    """

    problem = FORMAT
    objective: Literal["bottleneck", "sync-estimate", "sync"]
    microbatches: int
    profile_batch: float
    microbatch_size: float
    layer_names: tuple[str, ...]
    forward_s: tuple[float, ...]
    backward_s: tuple[float, ...]
    parameter_bytes: tuple[float, ...]
    activation_bytes: tuple[float, ...]
    stash_bytes: tuple[float, ...]
    device_speed: tuple[float, ...]
    device_memory_bytes: tuple[float, ...]
    links: tuple[tuple[int, int, float], ...]
    stages: int | None = None
    max_replicas: int | None = None
    optimizer_factor: float = 4.0
    schedule: Literal["1f1b", "gpipe", "kfkb"] = "1f1b"
    group_size: int = 1
    name: str = ""
    topology: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.layer_names)
        self.require(n >= 1, "layer_names", "must list at least one position", n)
        for field in ARRAYS:
            values = getattr(self, field)
            self.require(len(values) == n, field, f"must have one entry per position ({n})", len(values))
            self.require_nonnegative(field, values)
        self.require(self.microbatches >= 1, "microbatches", "must be >= 1", self.microbatches)
        self.require(self.profile_batch > 0 and np.isfinite(self.profile_batch), "profile_batch", "must be > 0",
                     self.profile_batch)
        self.require(self.microbatch_size > 0 and np.isfinite(self.microbatch_size), "microbatch_size",
                     "must be > 0", self.microbatch_size)
        self.require(self.optimizer_factor >= 0 and np.isfinite(self.optimizer_factor), "optimizer_factor",
                     "must be >= 0", self.optimizer_factor)
        self.require(self.group_size >= 1, "group_size", "must be >= 1", self.group_size)
        try:
            graph = DeviceGraph(self.device_speed, self.device_memory_bytes, self.links)
        except InvalidInstanceError as exc:
            field = {"speed": "device_speed", "memory_bytes": "device_memory_bytes"}.get(exc.field.split("[")[0])
            field = exc.field.replace(exc.field.split("[")[0], field, 1) if field else exc.field
            raise self.invalid(field, exc.rule, exc.got) from None
        object.__setattr__(self, "_graph", graph)
        N = graph.num_devices
        if self.stages is not None:
            self.require(1 <= self.stages <= min(n, N), "stages",
                         f"must be in 1..min(positions, devices) = 1..{min(n, N)}", self.stages)
        if self.max_replicas is not None:
            self.require(self.max_replicas >= 1, "max_replicas", "must be >= 1", self.max_replicas)

    # -- derived views ---------------------------------------------------------------------
    @property
    def num_positions(self) -> int:
        return len(self.layer_names)

    @property
    def num_devices(self) -> int:
        return len(self.device_speed)

    @property
    def replica_limit(self) -> int:
        return min(self.num_devices, self.max_replicas or self.num_devices)

    @property
    def max_stages(self) -> int:
        return min(self.num_positions, self.num_devices)

    def stage_counts(self) -> range:
        return range(self.stages, self.stages + 1) if self.stages else range(1, self.max_stages + 1)

    @cached_property
    def graph(self) -> DeviceGraph:
        return self._graph  # built and validated in validate()

    @cached_property
    def widest(self) -> np.ndarray:
        return self.graph.widest

    @cached_property
    def speed_array(self) -> np.ndarray:
        return np.asarray(self.device_speed, float)

    @cached_property
    def memory_array(self) -> np.ndarray:
        return np.asarray(self.device_memory_bytes, float)

    @cached_property
    def scale(self) -> float:
        return self.microbatch_size / self.profile_batch

    @cached_property
    def scaled(self) -> dict[str, np.ndarray]:
        """Per-position arrays at the microbatch size (parameter bytes unscaled)."""
        out = {}
        for field in ARRAYS:
            a = np.asarray(getattr(self, field), float)
            out[field] = a if field == "parameter_bytes" else a * self.scale
        return out

    @cached_property
    def cumulative(self) -> dict[str, np.ndarray]:
        """Prefix sums (length n + 1) of the scaled arrays: interval [i, j) = c[j] - c[i]."""
        return {k: np.concatenate([[0.0], np.cumsum(v)]) for k, v in self.scaled.items()}

    @cached_property
    def is_uniform(self) -> bool:
        """Every device alike (speed, memory) and every pair at the same widest bandwidth."""
        w = self.widest[~np.eye(self.num_devices, dtype=bool)]
        return bool(np.all(self.speed_array == self.speed_array[0]) and np.all(self.memory_array == self.memory_array[0])
                    and (w.size == 0 or np.all(w == w[0])))

    def inflight(self, num_stages: int) -> list[int]:
        return costs.inflight(num_stages, self.microbatches, self.schedule, self.group_size)


def _structure(instance: PipelinePartitionInstance, solution) -> list[str]:
    """Violations of the solution's shape (empty when it can be costed)."""
    if not isinstance(solution, dict):
        return ["solution must be an object with cuts, replicas, devices"]
    unknown = set(solution) - {"cuts", "replicas", "devices"}
    if unknown:
        return [f"unknown solution field(s) {sorted(unknown)}"]
    cuts, devices = solution.get("cuts"), solution.get("devices")
    if not isinstance(cuts, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in cuts):
        return ["cuts must be a list of integers"]
    if not isinstance(devices, list) or not all(isinstance(g, list) and g and all(
            isinstance(d, int) and not isinstance(d, bool) for d in g) for g in devices):
        return ["devices must be a list of non-empty lists of device ids"]
    n, N = instance.num_positions, instance.num_devices
    out = []
    if len(devices) != len(cuts) + 1:
        out.append(f"{len(cuts)} cuts need {len(cuts) + 1} device groups, got {len(devices)}")
    if any(not 1 <= c <= n - 1 for c in cuts) or any(a >= b for a, b in zip(cuts, cuts[1:])):
        out.append(f"cuts must be strictly increasing in 1..{n - 1}: {cuts}")
    flat = [d for g in devices for d in g]
    if any(not 0 <= d < N for d in flat):
        out.append(f"device ids must be in 0..{N - 1}")
    elif len(set(flat)) != len(flat):
        out.append("a device serves two stages or twice in one stage (the mapping must be injective)")
    replicas = solution.get("replicas")
    if replicas is not None and replicas != [len(g) for g in devices]:
        out.append(f"replicas {replicas} disagree with the device groups' sizes {[len(g) for g in devices]}")
    K = len(cuts) + 1
    if instance.stages is not None and K != instance.stages:
        out.append(f"the instance fixes {instance.stages} stages, the solution has {K}")
    if any(len(g) > instance.replica_limit for g in devices):
        out.append(f"a stage has more than max_replicas = {instance.replica_limit} replicas")
    return out


def objective_value(instance: PipelinePartitionInstance, st: costs.StageTimes, objective: str | None = None) -> float:
    """The value of a plan's stage times under ``objective`` (default: the instance's)."""
    objective = objective or instance.objective
    if objective == "bottleneck":
        return costs.bottleneck(st)
    if objective == "sync-estimate":
        return costs.sync_estimate(st, instance.microbatches)
    schedule = instance.schedule
    return float(simulate(st, instance.microbatches, schedule=schedule, group_size=instance.group_size).makespan)


def check(instance: PipelinePartitionInstance, solution) -> CheckReport:
    """Feasibility (structure, injective mapping, stage count, replication limit, memory) and the
    objective, recomputed from the instance and the solution alone."""
    violations = _structure(instance, solution)
    if violations:
        return CheckReport.from_violations(violations, None)
    st = costs.stage_times(instance, solution)
    need = costs.memory_required(st, instance.microbatches, instance.optimizer_factor, instance.schedule,
                                 instance.group_size)
    for k, (req, cap) in enumerate(zip(need, st.memory_bytes)):
        if req > cap * (1 + 1e-12):
            violations.append(f"stage {k + 1} needs {req:.6g} bytes per device, its devices hold {cap:.6g}")
    value = objective_value(instance, st)
    return CheckReport.from_violations(violations, value,
                                       bottleneck=costs.bottleneck(st),
                                       sync_estimate=costs.sync_estimate(st, instance.microbatches))
