"""The ``hetero-sharding`` instance (HAP's heterogeneous SPMD model), its plan cost and checker.

A cluster of ``n`` devices with FLOP/s ``F_d`` runs one SPMD program: a sequence of stages.
Each stage offers one or more alternative *options* (the collective choices HAP's program search
picks among); an option shards the tensors of one *segment* ``s`` by the segment's ratios
``B_{s,d}`` (sum_d B_{s,d} = 1, B >= 0). With stage ``t`` run as option ``o`` on segment ``s``:

* compute time on d:  (sharded_flops_o * B_{s,d} + replicated_flops_o) / F_d            [code: HAP
  ``get_cost_symbolic``; the replicated term is the constant HAP's ``to_linear`` drops]
* communication on d: sum_c (ratio_elements_c * B_{s,d} + constant_elements_c) * bytes_per_element
  / bandwidth[kind_c]                                                                   [code]
* stage time = max_d compute + max_d communication                                      [code]

Objective (authoritative): minimize sum over stages of the stage time, over the program (one
option per stage) and the ratios. Units are seconds, FLOPs, elements and bytes/s throughout.

Solution schema: ``{"program": [option index per stage], "ratios": [[B_{s,0}, ..., B_{s,n-1}] per
segment]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport

__all__ = ["Collective", "StageOption", "Stage", "Bandwidths", "HeteroShardingInstance", "check",
           "plan_cost", "stage_cost", "OBJECTIVE", "SOLUTION_SCHEMA", "COLLECTIVES", "RATIO_TOL"]

OBJECTIVE = ("minimize sum_t [max_d (sharded_flops_t B_{s,d} + replicated_flops_t) / F_d + max_d sum_c "
             "(ratio_elements_c B_{s,d} + constant_elements_c) bytes_per_element / bw_c] over one option per "
             "stage and ratios B_s >= 0 with sum_d B_{s,d} = 1")
#: the objective's unit, printed after its value by ``optsched solve`` (seconds of one iteration (FLOP/s and
#: bytes/s rates))
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"program": [option index per stage], "ratios": [[B_{s,d} for each device d] for each '
                   'segment s]}')
COLLECTIVES = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all")
#: tolerance on sum_d B_{s,d} = 1 and B >= 0: LP solvers satisfy rows to 1e-7 (HiGHS' primal
#: feasibility tolerance) and the ratios are printed as floats
RATIO_TOL = 1e-6


@dataclass(frozen=True)
class Collective(Record):
    """One collective of an option: volume on device d = ratio_elements * B_{s,d} + constant_elements
    (elements; e.g. a padded all-gather of a tensor of |T| elements sharded by B has ratio_elements
    = n |T| [code: HAP's volume table])."""

    problem = "hetero-sharding"
    kind: Literal["all_gather", "all_reduce", "reduce_scatter", "all_to_all"]
    ratio_elements: float = 0.0
    constant_elements: float = 0.0

    def validate(self) -> None:
        self.require_nonnegative("ratio_elements", [self.ratio_elements])
        self.require_nonnegative("constant_elements", [self.constant_elements])


@dataclass(frozen=True)
class StageOption(Record):
    """One way to run a stage: which segment's ratios shard it, its FLOPs and collectives."""

    problem = "hetero-sharding"
    name: str
    segment: int
    sharded_flops: float
    replicated_flops: float = 0.0
    collectives: tuple[Collective, ...] = ()

    def validate(self) -> None:
        self.require_nonnegative("sharded_flops", [self.sharded_flops])
        self.require_nonnegative("replicated_flops", [self.replicated_flops])


@dataclass(frozen=True)
class Stage(Record):
    problem = "hetero-sharding"
    name: str
    options: tuple[StageOption, ...]


@dataclass(frozen=True)
class Bandwidths(Record):
    """Bytes/s of each collective (HAP measures size/time of each collective call [code: profiler.py])."""

    problem = "hetero-sharding"
    all_gather: float
    all_reduce: float
    reduce_scatter: float
    all_to_all: float

    def validate(self) -> None:
        for k in COLLECTIVES:
            self.require_nonnegative(k, [getattr(self, k)], strict=True)


@dataclass(frozen=True)
class HeteroShardingInstance(Instance):
    """Devices, collective bandwidths, and a program of stages with alternative options.

    ``segment_lengths[s]`` is the length of segment s's sharded dimension (e.g. the batch): the
    number of units integer shard sizes split (used by the rounding method only).
    """

    problem = "hetero-sharding"
    device_flops: tuple[float, ...]
    bandwidth: Bandwidths
    segment_lengths: tuple[int, ...]
    stages: tuple[Stage, ...]
    bytes_per_element: float = 4.0
    device_names: tuple[str, ...] = ()
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.device_flops)
        self.require(n >= 1, "device_flops", "must list at least one device", n)
        self.require_nonnegative("device_flops", self.device_flops, strict=True)
        self.require(not self.device_names or len(self.device_names) == n, "device_names",
                     f"must be empty or have one name per device ({n})", len(self.device_names))
        S = len(self.segment_lengths)
        self.require(S >= 1, "segment_lengths", "must list at least one segment", S)
        for s, L in enumerate(self.segment_lengths):
            self.require(L >= 1, f"segment_lengths[{s}]", "must be >= 1", L)
        self.require(len(self.stages) >= 1, "stages", "must list at least one stage", len(self.stages))
        self.require_nonnegative("bytes_per_element", [self.bytes_per_element], strict=True)
        for t, st in enumerate(self.stages):
            self.require(len(st.options) >= 1, f"stages[{t}].options", "must list at least one option",
                         len(st.options))
            for o, op in enumerate(st.options):
                self.require(0 <= op.segment < S, f"stages[{t}].options[{o}].segment",
                             f"must be a segment index in 0..{S - 1}", op.segment)

    # -- derived views ---------------------------------------------------------------------
    @property
    def num_devices(self) -> int:
        return len(self.device_flops)

    @property
    def num_segments(self) -> int:
        return len(self.segment_lengths)

    @property
    def num_stages(self) -> int:
        return len(self.stages)

    @cached_property
    def flops_array(self) -> np.ndarray:
        return np.asarray(self.device_flops, float)

    @cached_property
    def coefficients(self) -> list[list[tuple[int, float, float, float, float]]]:
        """Per stage and option: ``(segment, a, c, m, e)`` with compute time on d =
        (a B_d + c) / F_d and communication time = m B_d + e (seconds)."""
        out = []
        for st in self.stages:
            row = []
            for op in st.options:
                m = sum(col.ratio_elements * self.bytes_per_element / getattr(self.bandwidth, col.kind)
                        for col in op.collectives)
                e = sum(col.constant_elements * self.bytes_per_element / getattr(self.bandwidth, col.kind)
                        for col in op.collectives)
                row.append((op.segment, op.sharded_flops, op.replicated_flops, m, e))
            out.append(row)
        return out

    def single_program(self, program) -> "HeteroShardingInstance":
        """The instance restricted to one option per stage (the program fixed)."""
        stages = tuple(Stage(st.name, (st.options[o],)) for st, o in zip(self.stages, program))
        return HeteroShardingInstance(self.device_flops, self.bandwidth, self.segment_lengths, stages,
                                      self.bytes_per_element, self.device_names, self.name + "-fixed",
                                      self.provenance)


def stage_cost(instance: HeteroShardingInstance, t: int, o: int, ratios: np.ndarray) -> float:
    """Time of stage ``t`` run as option ``o`` under ``ratios`` (shape segments x devices)."""
    s, a, c, m, e = instance.coefficients[t][o]
    B = ratios[s]
    return float(np.max((a * B + c) / instance.flops_array) + np.max(m * B + e))


def plan_cost(instance: HeteroShardingInstance, program, ratios) -> float:
    """The objective of a program and ratios (no validation)."""
    R = np.asarray(ratios, float)
    return float(sum(stage_cost(instance, t, o, R) for t, o in enumerate(program)))


def _structure(instance: HeteroShardingInstance, solution) -> list[str]:
    if not isinstance(solution, dict) or set(solution) != {"program", "ratios"}:
        return ["solution must be an object with exactly the fields program and ratios"]
    program, ratios = solution["program"], solution["ratios"]
    if not isinstance(program, list) or len(program) != instance.num_stages or not all(
            isinstance(o, int) and not isinstance(o, bool) for o in program):
        return [f"program must be a list of {instance.num_stages} option indices"]
    out = [f"stage {t}: option {o} is not in 0..{len(instance.stages[t].options) - 1}"
           for t, o in enumerate(program) if not 0 <= o < len(instance.stages[t].options)]
    n, S = instance.num_devices, instance.num_segments
    if not isinstance(ratios, list) or len(ratios) != S or not all(
            isinstance(r, list) and len(r) == n and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                        for x in r) for r in ratios):
        out.append(f"ratios must be {S} lists of {n} numbers")
        return out
    for s, r in enumerate(ratios):
        arr = np.asarray(r, float)
        if not np.all(np.isfinite(arr)) or np.any(arr < -RATIO_TOL):
            out.append(f"ratios[{s}] has a negative or non-finite entry")
        elif abs(arr.sum() - 1.0) > RATIO_TOL:
            out.append(f"ratios[{s}] sums to {arr.sum():.9g}, not 1")
    return out


def check(instance: HeteroShardingInstance, solution) -> CheckReport:
    """Structure, ratios on the simplex (within RATIO_TOL), and the objective recomputed from the
    instance and the solution alone (negative ratios within the tolerance count as 0)."""
    violations = _structure(instance, solution)
    if violations:
        return CheckReport.from_violations(violations, None)
    R = np.maximum(np.asarray(solution["ratios"], float), 0.0)
    per_stage = [stage_cost(instance, t, o, R) for t, o in enumerate(solution["program"])]
    return CheckReport.from_violations([], float(sum(per_stage)), stage_times=per_stage)
