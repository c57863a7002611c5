"""The synchronous microbatch-scheduling instance and its checker (the event simulator).

Objective (authoritative, docs ``optsched/problems/pipeline_schedule/README.md``): minimize the makespan of one iteration, as
computed by :func:`optsched.simulation.pipeline.simulate_order` for the given per-stage order,
subject to at most ``inflight_cap[k]`` microbatches in flight at stage k.

Solution schema: ``{"order": [[["F" | "B", microbatch], ...] for each stage]}``, stage 0 first,
each stage listing its 2M tasks exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import Instance
from optsched.core.registry import CheckReport
from optsched.simulation.pipeline import Timing, order_from_json, simulate_order

__all__ = ["PipelineScheduleInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize the makespan of one synchronous iteration (every backward and every "
             "all-reduce done), as simulated for the per-stage order, s.t. in-flight microbatches "
             "of stage k <= inflight_cap[k]")
#: the objective's unit, printed after its value by ``optsched solve`` (the iteration's makespan in seconds)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = '{"order": [[["F" or "B", microbatch], ...] per stage]}  (each stage: its 2M tasks once)'


@dataclass(frozen=True)
class PipelineScheduleInstance(Instance):
    """A planned pipeline of K stages and M microbatches (times in seconds).

    ``forward[k]``, ``backward[k]`` (> 0): per-microbatch compute of stage k (after speed and
    replication); ``transfer[k]`` (K - 1 entries, >= 0): delay of stage k -> k + 1 (activations)
    and k + 1 -> k (gradients) per microbatch; ``allreduce[k]`` (>= 0; 0 for an unreplicated
    stage): the once-per-iteration gradient all-reduce; ``inflight_cap[k]`` (integer >= 1, or
    None for no cap): the memory limit in microbatches. ``stash_bytes[k]`` and ``static_bytes[k]``
    (optional, both or neither) only serve to report peak memory in bytes:
    ``static_bytes[k] + peak in-flight x stash_bytes[k]``.
    """

    problem = "pipeline-schedule"
    forward: tuple[float, ...]
    backward: tuple[float, ...]
    transfer: tuple[float, ...]
    allreduce: tuple[float, ...]
    microbatches: int
    inflight_cap: tuple[int, ...] | None = None
    stash_bytes: tuple[float, ...] = ()
    static_bytes: tuple[float, ...] = ()
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        K = len(self.forward)
        self.require(K >= 1, "forward", "must list at least one stage", K)
        self.require_nonnegative("forward", self.forward, strict=True)
        self.require_nonnegative("backward", self.backward, strict=True)
        self.require_nonnegative("transfer", self.transfer)
        self.require_nonnegative("allreduce", self.allreduce)
        for name, want in (("backward", K), ("transfer", K - 1), ("allreduce", K)):
            got = len(getattr(self, name))
            self.require(got == want, name, f"must have {want} entries (K = {K} stages)", got)
        self.require(self.microbatches >= 1, "microbatches", "must be >= 1", self.microbatches)
        if self.inflight_cap is not None:
            self.require(len(self.inflight_cap) == K, "inflight_cap", f"must have {K} entries", len(self.inflight_cap))
            for k, cap in enumerate(self.inflight_cap):
                self.require(cap >= 1, f"inflight_cap[{k}]", "must be >= 1 (a stage holds the microbatch it "
                             "computes)", cap)
        self.require(len(self.stash_bytes) == len(self.static_bytes), "static_bytes",
                     "must be given together with stash_bytes (same length)", len(self.static_bytes))
        if self.stash_bytes:
            self.require(len(self.stash_bytes) == K, "stash_bytes", f"must have {K} entries", len(self.stash_bytes))
            self.require_nonnegative("stash_bytes", self.stash_bytes)
            self.require_nonnegative("static_bytes", self.static_bytes)

    @property
    def stages(self) -> int:
        return len(self.forward)

    @cached_property
    def timing(self) -> Timing:
        return Timing(np.asarray(self.forward), np.asarray(self.backward), np.asarray(self.transfer, float),
                      np.asarray(self.allreduce))

    @cached_property
    def cap_array(self) -> np.ndarray:
        """Caps as an int array (M where there is none: a stage never holds more than M)."""
        if self.inflight_cap is None:
            return np.full(self.stages, self.microbatches)
        return np.minimum(np.asarray(self.inflight_cap), self.microbatches)

    def peak_memory_bytes(self, peak_inflight: np.ndarray) -> list[float] | None:
        if not self.stash_bytes:
            return None
        return (np.asarray(self.static_bytes) + peak_inflight * np.asarray(self.stash_bytes)).tolist()


def check(instance: PipelineScheduleInstance, solution) -> CheckReport:
    """Simulate the order and check the in-flight caps.

    Every defect of the solution is a violation (CLI ``check`` exit 1, as in every problem): a
    solution that is not ``{"order": [...]}``, a malformed order (a stage's tasks missing or
    listed twice), an order whose precedences form a cycle (it deadlocks: no schedule), and an
    in-flight cap exceeded.
    """
    if not isinstance(solution, dict) or set(solution) != {"order"}:
        got = sorted(solution) if isinstance(solution, dict) else type(solution).__name__
        return CheckReport.from_violations([f'solution: must be an object {{"order": [...]}} (got {got})'], None)
    try:
        kind, mb = order_from_json(solution["order"], instance.stages, instance.microbatches)
        sim = simulate_order(instance.timing, instance.microbatches, kind, mb)
    except InvalidInstanceError as exc:  # malformed or deadlocked: no schedule to measure
        return CheckReport.from_violations([str(exc).removeprefix(f"{instance.problem}: ")], None)
    violations = []
    if instance.inflight_cap is not None:
        for k in np.flatnonzero(sim.peak_inflight > np.asarray(instance.inflight_cap)):
            violations.append(f"stage {k}: {int(sim.peak_inflight[k])} microbatches in flight, cap "
                              f"{instance.inflight_cap[k]}")
    details = sim.to_dict()
    details["peak_memory_bytes"] = instance.peak_memory_bytes(sim.peak_inflight)
    return CheckReport(not violations, sim.makespan, violations, details)
