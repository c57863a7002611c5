"""Seeded ``pipeline-adaptive`` instances: the example pipeline of :mod:`.adagrouper` under a
seeded preemption trace [ours]."""

from __future__ import annotations

from optsched.core.errors import InvalidOptionError

from .adagrouper import example_setting, preemption_trace
from .instance import PipelineAdaptiveInstance

__all__ = ["generate", "PRESETS", "tiny_instance"]

PRESETS: dict[str, dict] = {
    # 6 iterations, 3 memory-fitting group sizes: 3^6 = 729 sequences for brute force
    "tiny": {"iterations": 6, "periods": 4, "period": 0.15, "group_sizes": "1,2,4", "switch_cost": 0.02},
    "small": {"iterations": 120, "periods": 40, "period": 5.0, "group_sizes": "1,2,3,4,6,8", "switch_cost": 0.5},
    "long": {"iterations": 1000, "periods": 200, "period": 5.0, "group_sizes": "1,2,3,4,6,8", "switch_cost": 0.5},
}


#: the largest kFkB group size a generated instance may list (a group's stash must fit one device)
MAX_GROUP_SIZE = 4096


def generate(seed: int, *, iterations: int = 120, periods: int = 40, period: float = 5.0,
             group_sizes: str = "1,2,3,4,6,8", switch_cost: float = 0.5,
             bandwidth: float = 1.25e9) -> PipelineAdaptiveInstance:
    """The 4-stage example pipeline (:func:`.adagrouper.example_setting`) under
    :func:`.adagrouper.preemption_trace` (seeded).

    >>> inst = generate(0, iterations=6, periods=4, period=0.15, group_sizes="1,2,4")
    >>> inst.iterations, len(inst.bandwidth), inst.candidates
    (6, 4, (1, 2, 4))
    """
    try:
        sizes = tuple(int(g) for g in str(group_sizes).split(",") if g.strip())
    except ValueError:
        raise InvalidOptionError("pipeline-adaptive", "group_sizes", "must be comma-separated integers",
                                   group_sizes) from None
    if any(not 1 <= g <= MAX_GROUP_SIZE for g in sizes):  # a size that no memory can hold is named here
        raise InvalidOptionError("pipeline-adaptive", "group_sizes", f"must list integers in [1, {MAX_GROUP_SIZE}]",
                                   group_sizes)
    if periods < 1:
        raise InvalidOptionError("pipeline-adaptive", "periods", "must be >= 1", periods)
    base = example_setting(iterations=max(1, iterations), switch_cost=switch_cost)
    trace = preemption_trace(seed, links=base.stages - 1, periods=periods, period=period, base_bandwidth=bandwidth)
    return PipelineAdaptiveInstance(
        forward_per_sample=base.forward_per_sample, backward_per_sample=base.backward_per_sample,
        overhead=base.overhead, allreduce=base.allreduce,
        activation_bytes_per_sample=base.activation_bytes_per_sample,
        stash_bytes_per_sample=base.stash_bytes_per_sample, memory_bytes=base.memory_bytes,
        global_batch=base.global_batch, group_sizes=sizes, switch_cost=switch_cost, iterations=iterations,
        nominal_bandwidth=bandwidth, period=period, bandwidth=tuple(map(tuple, trace.bandwidth.tolist())),
        name=f"adaptive-{seed}", provenance=f"optsched generate pipeline-adaptive seed={seed} [ours]")


def tiny_instance(seed: int) -> PipelineAdaptiveInstance:
    """The conformance suite's instances (preset ``tiny``)."""
    return generate(seed, **PRESETS["tiny"])
