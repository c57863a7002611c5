"""Instances of ``pipeline-graph``: from a PipeDream ``graph.txt`` (the whole layer DAG), seeded
random DAGs and chains, and the tiny instances of the conformance suite.

[ours] Random DAGs: layer 0 is the only source; every later layer takes 1-2 inputs among the
``window`` layers before it (so the graph branches and joins like residual/inception blocks);
forward 1-10 ms, backward 1.5-2.5 x forward, parameters 0-50 MB, activations 1-100 MB. PipeDream's
defaults for the cluster: bandwidth 1 GB/s (``-b 1000000000``), profiling batch as microbatch.
"""

from __future__ import annotations

from pathlib import Path

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng
from optsched.workloads.profiles import PIPEDREAM_BATCH_SIZES, load_pipedream_planner_graph

from .instance import PipelineGraphInstance

__all__ = ["generate", "from_pipedream", "random_dag", "tiny_instance", "PRESETS", "PIPEDREAM_BANDWIDTH"]

#: PipeDream's planner default ``--network_bandwidths`` (bytes/s)
PIPEDREAM_BANDWIDTH = 1e9

PRESETS: dict[str, dict] = {
    "tiny": {"layers": 6, "workers": 3},
    "small": {"layers": 14, "workers": 4},
    "medium": {"layers": 60, "workers": 8},
}


def random_dag(seed: int, layers: int, workers: int, *, window: int = 3, branch: float = 0.5,
               objective: str = "bottleneck", bandwidth: float = PIPEDREAM_BANDWIDTH,
               activation_compression_ratio: float | None = None, chain: bool = False) -> PipelineGraphInstance:
    if layers < 1:
        raise InvalidOptionError("pipeline-graph", "layers", "must be >= 1", layers)
    if workers < 1:
        raise InvalidOptionError("pipeline-graph", "workers", "must be >= 1", workers)
    rng = make_rng(seed, "pipeline-graph", "dag", layers, window, branch, chain)
    edges = []
    for v in range(1, layers):
        if chain:
            edges.append((v - 1, v))
            continue
        lo = max(0, v - window)
        first = int(rng.integers(lo, v))
        edges.append((first, v))
        if v - lo > 1 and rng.random() < branch:
            other = int(rng.integers(lo, v))
            if other != first:
                edges.append((other, v))
    fw = rng.uniform(1e-3, 1e-2, layers)
    bw = fw * rng.uniform(1.5, 2.5, layers)
    par = rng.uniform(0, 50e6, layers).round()
    act = rng.uniform(1e6, 100e6, layers).round()
    kind = "chain" if chain else "dag"
    return PipelineGraphInstance(
        objective=objective, workers=workers, bandwidth=bandwidth,
        layer_names=tuple(f"layer{i}" for i in range(layers)), forward_s=tuple(map(float, fw)),
        backward_s=tuple(map(float, bw)), parameter_bytes=tuple(map(float, par)),
        activation_bytes=tuple(map(float, act)), edges=tuple(sorted(set(edges))),
        activation_compression_ratio=activation_compression_ratio,
        name=f"random-{kind}-{layers}x{workers}-s{seed}", provenance=f"optsched random {kind}, seed {seed}")


def from_pipedream(path, workers: int, *, objective: str = "pipedream", bandwidth: float = PIPEDREAM_BANDWIDTH,
                   activation_compression_ratio: float | None = None, batch_size: float | None = None,
                   microbatch_size: float | None = None) -> PipelineGraphInstance:
    """The whole layer DAG of a PipeDream ``graph.txt`` (inputs and ``__getitem__`` sinks removed
    as PipeDream's planner does; times from ms to s)."""
    from optsched.core.data import sha256_file

    graph, model = load_pipedream_planner_graph(path)
    names = list(graph.nodes)
    index = {n: i for i, n in enumerate(names)}
    nodes = [graph.nodes[n] for n in names]
    edges = tuple((index[a], index[b]) for a in names for b in graph.edges.get(a, []))
    if batch_size is None:
        batch_size = PIPEDREAM_BATCH_SIZES.get(model, 1.0)
    return PipelineGraphInstance(
        objective=objective, workers=workers, bandwidth=bandwidth, layer_names=tuple(names),
        forward_s=tuple(d["forward_ms"] / 1000.0 for d in nodes), backward_s=tuple(d["backward_ms"] / 1000.0 for d in nodes),
        parameter_bytes=tuple(d["parameter"] for d in nodes), activation_bytes=tuple(d["activation"] for d in nodes),
        edges=edges, profile_batch=float(batch_size), microbatch_size=microbatch_size,
        activation_compression_ratio=activation_compression_ratio, name=f"{model}-{workers}w",
        provenance=f"PipeDream graph.txt {Path(path).name} (sha256 {sha256_file(path)}), whole DAG of {len(names)} layers")


def generate(seed: int = 0, *, layers: int = 6, workers: int = 3, profile: str = "", objective: str = "bottleneck",
             bandwidth: float = PIPEDREAM_BANDWIDTH, activation_compression_ratio: float = 0.0,
             chain: bool = False) -> PipelineGraphInstance:
    """A PipeDream profile's DAG (``profile``) or a seeded random DAG; ``activation_compression_ratio``
    0 means none."""
    ratio = activation_compression_ratio or None
    if profile:
        return from_pipedream(profile, workers, objective=objective, bandwidth=bandwidth,
                              activation_compression_ratio=ratio)
    return random_dag(seed, layers, workers, objective=objective, bandwidth=bandwidth,
                      activation_compression_ratio=ratio, chain=chain)


def tiny_instance(seed: int) -> PipelineGraphInstance:
    """Small random DAGs, both objectives, with and without PipeDream's transfer term."""
    objective = ("bottleneck", "pipedream")[seed % 2]
    ratio = 1.0 if seed % 3 == 2 else None
    return random_dag(seed, 5 + seed % 2, 2 + seed % 2, objective=objective, activation_compression_ratio=ratio)
