"""Read sequences from real fan-out neighbour sampling, generators and the planetoid importer.

:func:`access_sequence` [ours, after BGL's description: training seeds visited in random order or in
proximity (BFS) order, cut into mini-batches, each mini-batch sampled k hops with the given
fan-outs (:func:`optsched.graphs.sampling.sample_neighbourhoods`)]: the reads are the distinct
nodes of each mini-batch's sampled neighbourhood, mini-batch after mini-batch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optsched.core.data import sha256_file
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng
from optsched.graphs import Graph
from optsched.graphs.io import read_planetoid_graph
from optsched.graphs.sampling import bfs_order, power_law_graph, sample_neighbourhoods

from .instance import FeatureCacheInstance

__all__ = ["access_sequence", "from_graph", "generate", "import_planetoid_cache", "PRESETS", "tiny_instances"]

PRESETS = {
    "tiny": dict(nodes=12, train_fraction=0.5, batch_size=2, fanouts=(2,), cache_fraction=0.25),
    "small": dict(nodes=500, train_fraction=0.2, batch_size=16, fanouts=(5, 3), cache_fraction=0.1),
    "medium": dict(nodes=5000, train_fraction=0.2, batch_size=64, fanouts=(10, 5), cache_fraction=0.1),
}


def access_sequence(graph: Graph, train_nodes, batch_size: int, fanouts, order: str,
                    rng: np.random.Generator) -> np.ndarray:
    """The feature reads of one epoch: seeds in ``order`` (``random`` or ``proximity``), batches of
    ``batch_size``, each batch's sampled neighbourhood (distinct nodes, first-visit order)."""
    train = np.asarray(train_nodes, dtype=np.int64)
    if order == "random":
        seq = train[rng.permutation(len(train))]
    elif order == "proximity":
        seq = bfs_order(graph, train, rng)
    else:
        raise ValueError(f"order must be random or proximity, got {order!r}")
    batches = [seq[i:i + batch_size] for i in range(0, len(seq), batch_size)]
    reads = sample_neighbourhoods(graph, batches, fanouts, rng)
    return np.concatenate(reads) if reads else np.zeros(0, np.int64)


def from_graph(graph: Graph, train_nodes, *, capacity: int, batch_size: int = 64, fanouts=(10, 5),
               order: str = "proximity", seed: int = 0, name: str = "", provenance: str = "") -> FeatureCacheInstance:
    rng = make_rng(seed, "feature-cache", order)
    reads = access_sequence(graph, train_nodes, batch_size, fanouts, order, rng)
    prov = (f"{provenance}; " if provenance else "") + (f"{order} seed order, batch {batch_size}, fan-outs "
                                                         f"{tuple(fanouts)}, sampling seed {seed}")
    return FeatureCacheInstance(num_nodes=graph.num_nodes, accesses=tuple(int(x) for x in reads), capacity=capacity,
                                priority=tuple(float(d) for d in graph.degree()), name=name, provenance=prov)


def generate(seed: int = 0, nodes: int = 500, train_fraction: float = 0.2, batch_size: int = 16, fanouts=(5, 3),
             cache_fraction: float = 0.1, order: str = "proximity", mean_degree: float = 6.0) -> FeatureCacheInstance:
    """A Chung-Lu power-law graph, random training nodes, one epoch of reads."""
    if nodes < 2:
        raise InvalidOptionError("feature-cache", "nodes", "must be >= 2", nodes)
    if not 0 < cache_fraction <= 1:
        raise InvalidOptionError("feature-cache", "cache_fraction", "must be in (0, 1]", cache_fraction)
    rng = make_rng(seed, "feature-cache", "graph")
    g = power_law_graph(nodes, mean_degree, rng)
    train = np.sort(rng.choice(nodes, size=max(1, int(round(train_fraction * nodes))), replace=False))
    return from_graph(g, train, capacity=max(1, int(round(cache_fraction * nodes))), batch_size=batch_size,
                      fanouts=tuple(fanouts), order=order, seed=seed, name=f"powerlaw-n{nodes}-{order}-s{seed}",
                      provenance=f"optsched Chung-Lu graph n={nodes}, mean degree {mean_degree}, seed {seed}")


def tiny_instances(seed: int) -> FeatureCacheInstance:
    """About a dozen reads over a few nodes: small enough for the exact DP."""
    inst = generate(seed, **PRESETS["tiny"], order="random" if seed % 2 else "proximity")
    reads = inst.accesses[:14]
    return FeatureCacheInstance(num_nodes=inst.num_nodes, accesses=reads, capacity=2 + seed % 2, priority=inst.priority,
                                name=inst.name + "-tiny", provenance=inst.provenance + "; first 14 reads")


def import_planetoid_cache(path, index: int | None = None) -> FeatureCacheInstance:
    """One epoch of reads on a planetoid graph: training nodes = the non-test nodes (the test
    nodes listed beside the graph, :func:`optsched.graphs.io.read_planetoid_graph`), proximity order, batch 64, fan-outs (10, 5), capacity 10% of the nodes."""
    if index not in (None, 0):
        raise InvalidOptionError("feature-cache", "--index", "must be 0: the file holds one graph", index)
    path = Path(path)
    test_path = None
    for suffix in (".graph", ".graph.gz"):  # the test index beside a plain or gzipped graph (the planetoid layout)
        if path.name.endswith(suffix):
            stem = path.name[: -len(suffix)]
            test_path = next((c for c in (path.with_name(stem + ".test.index"), path.with_name(stem + ".test.index.gz"))
                              if c.is_file()), None)
            break
    try:
        gf, test = read_planetoid_graph(path, test_path)
    except ValueError as exc:
        raise InvalidInstanceError("feature-cache", "(file)", f"planetoid-cache: {exc}") from None
    n = gf.graph.num_nodes
    is_test = np.zeros(n, bool)
    if test is not None:
        is_test[test] = True
    train = np.flatnonzero(~is_test)
    if len(train) == 0:
        raise InvalidInstanceError("feature-cache", "(file)", "every node is a test node: no training seeds")
    return from_graph(gf.graph, train, capacity=max(1, n // 10), name=path.name,
                      provenance=f"{path.name} sha256 {sha256_file(path)}; "
                                 + (f"test nodes from {test_path.name} ({int(is_test.sum())}), training = the rest"
                                    if test_path else "no test index beside it: every node is a training seed"))
