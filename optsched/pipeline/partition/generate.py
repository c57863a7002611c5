"""Chain-partition plan instances: from a profile (JSON or PipeDream ``graph.txt``) and a device
graph, or a seeded random chain.

[ours] Unless given, the microbatch size is the profile's batch divided by M (the global batch
is the profiling batch) and every GPU has 16 GB.
"""

from __future__ import annotations

from pathlib import Path

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng
from optsched.workloads.profiles import Profile, load_profile
from optsched.workloads.topology import GB, DeviceGraph, resolve

from .instance import FORMAT, PipelinePartitionInstance

__all__ = ["generate", "from_profile", "random_profile", "chain_instance"]

def random_profile(seed: int, layers: int) -> Profile:
    """A seeded random chain at batch 1: forward 1-10 ms, backward 1.5-2.5 x forward, parameters
    0-50 MB, activations 1-100 MB (stash = activation) [ours]."""
    if layers < 1:
        raise InvalidOptionError(FORMAT, "layers", "must be >= 1", layers)
    rng = make_rng(seed, FORMAT, "chain", layers)
    fw = rng.uniform(1e-3, 1e-2, layers)
    bw = fw * rng.uniform(1.5, 2.5, layers)
    par = rng.uniform(0, 50e6, layers).round()
    act = rng.uniform(1e6, 100e6, layers).round()
    return Profile(name=f"random-{layers}-s{seed}", batch_size=1.0, layer_names=tuple(f"layer{i}" for i in range(layers)),
                   forward_s=tuple(fw), backward_s=tuple(bw), parameter_bytes=tuple(par), activation_bytes=tuple(act),
                   stash_bytes=tuple(act), provenance=f"optsched random chain, seed {seed}")


def from_profile(profile: Profile, graph: DeviceGraph, *, microbatches: int = 4, objective: str = "bottleneck",
                 stages: int | None = None, microbatch_size: float | None = None, max_replicas: int | None = None,
                 optimizer_factor: float = 4.0, schedule: str = "1f1b", group_size: int = 1,
                 name: str | None = None, provenance: str = "") -> PipelinePartitionInstance:
    """The instance of ``profile`` on ``graph``."""
    if microbatches < 1:
        raise InvalidOptionError(FORMAT, "microbatches", "must be >= 1", microbatches)
    size = microbatch_size if microbatch_size is not None else profile.batch_size / microbatches
    return PipelinePartitionInstance(
        objective=objective, microbatches=microbatches, profile_batch=profile.batch_size, microbatch_size=size,
        layer_names=profile.layer_names, forward_s=profile.forward_s, backward_s=profile.backward_s,
        parameter_bytes=profile.parameter_bytes, activation_bytes=profile.activation_bytes,
        stash_bytes=profile.stash_bytes, device_speed=graph.speed, device_memory_bytes=graph.memory_bytes,
        links=graph.links, stages=stages, max_replicas=max_replicas, optimizer_factor=optimizer_factor,
        schedule=schedule, group_size=group_size, name=name or f"{profile.name}@{graph.name}",
        topology=graph.name, provenance=provenance or profile.provenance)


def generate(seed: int, *, profile: str = "", layers: int = 8, topology: str = "nvlink:4", stages: int = 0,
             microbatches: int = 4, objective: str = "bottleneck", microbatch_size: float = 0.0,
             max_replicas: int = 0, memory_gb: float = 0.0, schedule: str = "1f1b",
             group_size: int = 1) -> PipelinePartitionInstance:
    """An instance: ``profile`` (a file) or a random chain of ``layers`` positions, on the
    ``topology`` preset or JSON file; ``stages = 0`` lets the planner choose K, ``max_replicas
    = 0`` means no bound, ``memory_gb = 0`` keeps the graph's memory (16 GB per preset GPU).

    >>> inst = generate(1, layers=5, topology="nvlink:2", objective="sync-estimate")
    >>> inst.num_positions, inst.num_devices, inst.objective
    (5, 2, 'sync-estimate')
    """
    prof = load_profile(Path(profile)) if profile else random_profile(seed, layers)
    graph = resolve(topology, seed=seed)
    if memory_gb:
        if memory_gb < 0:
            raise InvalidOptionError(FORMAT, "memory_gb", "must be > 0", memory_gb)
        graph = DeviceGraph(graph.speed, (memory_gb * GB,) * graph.num_devices, graph.links, graph.name)
    if objective not in ("bottleneck", "sync-estimate", "sync"):
        raise InvalidOptionError(FORMAT, "objective",
                                   "must be one of 'bottleneck', 'sync-estimate', 'sync'", objective)
    return from_profile(prof, graph, microbatches=microbatches, objective=objective, stages=stages or None,
                        microbatch_size=microbatch_size or None, max_replicas=max_replicas or None,
                        schedule=schedule, group_size=group_size,
                        provenance=(prof.provenance + f"; optsched generator seed {seed}"))


def chain_instance(work, *, stages: int | None = None, topology: str = "nvlink:2", objective: str = "bottleneck",
                   microbatches: int = 1, activation=None, parameters=None,
                   max_replicas: int | None = None, memory_gb: float | None = None) -> PipelinePartitionInstance:
    """A hand-made chain (forward = work / 3, backward = 2 work / 3; batch = microbatch) for
    examples and tests."""
    n = len(work)
    act = activation if activation is not None else [0.0] * n
    par = parameters if parameters is not None else [0.0] * n
    prof = Profile(name="chain", batch_size=1.0, layer_names=tuple(f"p{i}" for i in range(n)),
                   forward_s=tuple(w / 3 for w in work), backward_s=tuple(2 * w / 3 for w in work),
                   parameter_bytes=tuple(par), activation_bytes=tuple(act), stash_bytes=tuple(act))
    graph = resolve(topology)
    if memory_gb is not None:
        graph = DeviceGraph(graph.speed, (memory_gb * GB,) * graph.num_devices, graph.links, graph.name)
    return from_profile(prof, graph, microbatches=microbatches, objective=objective, stages=stages,
                        microbatch_size=1.0, max_replicas=max_replicas)
