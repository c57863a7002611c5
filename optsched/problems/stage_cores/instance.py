"""The ``stage-cores`` instance (resource isolation of GNN preprocessing stages) and its checker.

Objective (authoritative; docs ``optsched/problems/stage_cores/README.md`` [recon], optsched's formulation): maximize the pipeline
throughput ``min_i rate_per_core[i] * c_i`` over integer core counts ``c_i >= min_cores`` with
``sum_i c_i <= cores``.

Solution schema: ``{"cores": [c_0, ..., c_{S-1}]}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

__all__ = ["StageCoresInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = "maximize min_i rate_per_core[i] * c_i  s.t.  sum_i c_i <= cores, c_i >= min_cores integer"
#: the objective's unit, printed after its value by ``optsched solve`` (the slowest stage's throughput)
OBJECTIVE_UNIT = "items/s"
SOLUTION_SCHEMA = '{"cores": [cores of stage i, ...]}'


@dataclass(frozen=True)
class StageCoresInstance(Instance):
    """Preprocessing stages (e.g. sampling, feature retrieval, transfer), their throughput per
    core (items/s) and the CPU cores to split between them."""

    problem = "stage-cores"
    stages: tuple[str, ...]
    rate_per_core: tuple[float, ...]
    cores: int
    min_cores: int = 1
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        S = len(self.stages)
        self.require(S >= 1, "stages", "must list at least one stage")
        self.require(len(set(self.stages)) == S, "stages", "names must be distinct")
        self.require(len(self.rate_per_core) == S, "rate_per_core", f"must have one entry per stage ({S})",
                     len(self.rate_per_core))
        self.require_nonnegative("rate_per_core", self.rate_per_core, strict=True)
        self.require(self.cores >= 1, "cores", "must be >= 1", self.cores)
        # [ours] the greedy hands out one core per heap step: 10^5 cores take ~0.1 s; a machine
        # with more cores per sampling pipeline is beyond any system the problem models
        self.require(self.cores <= 100_000, "cores", "must be <= 100000 (the greedy allocates one core per step)",
                     self.cores)
        self.require(0 <= self.min_cores <= self.cores, "min_cores", "must be in 0..cores", self.min_cores)

    @property
    def num_stages(self) -> int:
        return len(self.stages)

    @property
    def rates(self) -> np.ndarray:
        return np.asarray(self.rate_per_core, float)

    @property
    def feasible(self) -> bool:
        return self.cores >= self.num_stages * self.min_cores

    @property
    def upper_bound(self) -> float:
        """The LP relaxation's value: ``C / sum_i 1/r_i`` (every stage at the same throughput)."""
        return float(self.cores / np.sum(1.0 / self.rates))


def check(instance: StageCoresInstance, solution) -> CheckReport:
    if not isinstance(solution, dict) or set(solution) != {"cores"}:
        return CheckReport(False, None, ['solution must be an object {"cores": [...]}'])
    c = solution["cores"]
    S = instance.num_stages
    if not isinstance(c, list) or len(c) != S or not all(isinstance(x, int) and not isinstance(x, bool) for x in c):
        return CheckReport(False, None, [f"cores must list {S} integers"])
    violations = [f"stage {instance.stages[i]}: {x} cores < min_cores {instance.min_cores}"
                  for i, x in enumerate(c) if x < instance.min_cores]
    if sum(c) > instance.cores:
        violations.append(f"{sum(c)} cores used > {instance.cores} available")
    tput = [r * x for r, x in zip(instance.rate_per_core, c)]
    objective = float(min(tput))
    bottleneck = instance.stages[int(np.argmin(tput))]
    return CheckReport.from_violations(violations, objective, stage_throughput=tput, bottleneck=bottleneck)
