"""The ``pipeline-adaptive`` instance and its checker: a pipeline trained for many iterations under
a bandwidth-preemption trace, choosing the kFkB group size before every iteration (Ada-Grouper,
arXiv 2303.01675; model [ours], see :mod:`.adagrouper` and ``optsched/problems/pipeline_adaptive/README.md``).

Objective (authoritative): minimize the total training time ``sum_i (switch_cost * [g_i != g_{i-1}]
+ T(g_i, bandwidth of the period in which iteration i starts))``, where ``T`` is the exact
simulated kFkB makespan (:mod:`optsched.simulation.pipeline`) with the fewest microbatches that
fit memory at group size ``g``; only memory-fitting group sizes are allowed.

Solution schema: ``{"group_sizes": [g_0, ..., g_{I-1}]}``, one per iteration. The checker
re-simulates the run from the instance alone: a policy evaluated by simulation is checked by
simulation.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

from .adagrouper import AdaGrouperSetting, AdaRun, BandwidthTrace, run_policy

__all__ = ["PipelineAdaptiveInstance", "check", "replay", "ReplayPolicy", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize sum_i (switch_cost [g_i != g_(i-1)] + T(g_i, bandwidth of the period when iteration i "
             "starts)), T the simulated kFkB makespan; only memory-fitting group sizes")
#: the objective's unit, printed after its value by ``optsched solve`` (seconds over the iterations, switch
#: costs included)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = '{"group_sizes": [g per iteration, ...]}'


@dataclass(frozen=True)
class PipelineAdaptiveInstance(Instance):
    """A K-stage pipeline (per-sample costs, memory per stage) and a per-link bandwidth trace.

    ``bandwidth[p][l]`` is link l's bandwidth (bytes/s) in period p of ``period`` seconds (the last
    period extends to infinity); the other fields are those of
    :class:`~optsched.problems.pipeline_adaptive.adagrouper.AdaGrouperSetting`.
    """

    problem = "pipeline-adaptive"
    forward_per_sample: tuple[float, ...]
    backward_per_sample: tuple[float, ...]
    overhead: tuple[float, ...]
    allreduce: tuple[float, ...]
    activation_bytes_per_sample: tuple[float, ...]
    stash_bytes_per_sample: tuple[float, ...]
    memory_bytes: tuple[float, ...]
    global_batch: int
    group_sizes: tuple[int, ...]
    switch_cost: float
    iterations: int
    nominal_bandwidth: float
    period: float
    bandwidth: tuple[tuple[float, ...], ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        # [ours] the pipeline simulations run one event per micro-batch and stage, and the
        # micro-batch counts tried go up to global_batch: 65536 samples (LAMB's 64k batch, the
        # largest published) keep every method within a second; 10^6 took minutes
        self.require(1 <= self.global_batch <= 65536, "global_batch", "must be in 1..65536", self.global_batch)
        self.require(self.nominal_bandwidth > 0 and np.isfinite(self.nominal_bandwidth), "nominal_bandwidth",
                     "must be finite and > 0", self.nominal_bandwidth)
        # [ours] an infinite switch cost or period has no meaning (a total time of inf, a trace
        # without periods) and cannot be written as JSON: both are finite numbers
        self.require(0 <= self.switch_cost < np.inf, "switch_cost", "must be finite and >= 0", self.switch_cost)
        self.require(0 < self.period < np.inf, "period", "must be finite and > 0", self.period)
        self.require(len(self.group_sizes) == len(set(self.group_sizes)), "group_sizes", "must be distinct")
        self.require(self.iterations <= 100_000, "iterations", "must be <= 100000", self.iterations)
        K = len(self.forward_per_sample)
        self.require(K >= 2, "forward_per_sample", "a pipeline needs at least 2 stages", K)
        for p, row in enumerate(self.bandwidth):
            self.require(len(row) == K - 1, f"bandwidth[{p}]", f"must list one bandwidth per link ({K - 1})", len(row))
        _ = self.setting  # the setting's own validation (lengths, signs, memory fit)
        _ = self.trace

    @cached_property
    def setting(self) -> AdaGrouperSetting:
        """The pipeline part of the instance (every field of :class:`AdaGrouperSetting` is one here)."""
        names = [f.name for f in dataclasses.fields(AdaGrouperSetting) if not f.name.startswith("_")]
        return AdaGrouperSetting(**{name: getattr(self, name) for name in names})

    @cached_property
    def trace(self) -> BandwidthTrace:
        return BandwidthTrace(self.period, np.asarray(self.bandwidth, float))

    @property
    def candidates(self) -> tuple[int, ...]:
        """The memory-fitting group sizes."""
        return self.setting.candidates


class ReplayPolicy:
    """Replays a fixed sequence of group sizes (how the checker re-simulates a solution)."""

    name = "replay"

    def __init__(self, sizes):
        self.sizes = list(sizes)
        self.i = 0

    def choose(self, setting, history, current, now, period) -> int:
        g = self.sizes[self.i]
        self.i += 1
        return g


def replay(instance: PipelineAdaptiveInstance, sizes) -> AdaRun:
    """Simulate the run that uses ``sizes`` (one memory-fitting group size per iteration)."""
    return run_policy(instance.setting, instance.trace, ReplayPolicy(sizes))


def check(instance: PipelineAdaptiveInstance, solution) -> CheckReport:
    """Verify a group-size sequence from the instance alone and re-simulate its total time."""
    if not isinstance(solution, dict) or set(solution) != {"group_sizes"}:
        return CheckReport(False, None, ['solution must be an object {"group_sizes": [...]}'])
    sizes = solution["group_sizes"]
    if not isinstance(sizes, list) or not all(isinstance(g, int) and not isinstance(g, bool) for g in sizes):
        return CheckReport(False, None, ["group_sizes must be a list of integers"])
    violations = []
    if len(sizes) != instance.iterations:
        violations.append(f"group_sizes has {len(sizes)} entries for {instance.iterations} iterations")
    fitting = set(instance.candidates)
    for i, g in enumerate(sizes):
        if g not in fitting:
            violations.append(f"iteration {i}: group size {g} does not fit memory (fitting: {sorted(fitting)})")
    if violations:
        return CheckReport(False, None, violations)
    run = replay(instance, sizes)
    return CheckReport(True, float(run.total_time), [],
                       {"switches": run.switches, "mean_iteration_time": run.mean_iteration_time,
                        "peak_memory": run.peak_memory.tolist()})
