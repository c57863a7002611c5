"""Seeded generators, presets and importers of real graph formats for ``graph-partition``.

* :func:`generate` -- a Chung-Lu power-law graph (:func:`optsched.graphs.sampling.power_law_graph`)
  with a seeded random training set.
* :func:`from_graph` -- an instance from any :class:`~optsched.graphs.Graph` and training nodes.
* :func:`import_planetoid` (format ``planetoid-graph``) -- ``ind.<name>.graph`` with, when the
  file ``ind.<name>.test.index`` sits beside it, the nodes it lists as test nodes; the training
  nodes are every other node [ours: planetoid's own train/unlabelled split needs the feature
  files, and every non-test node is a sampling seed in transductive training].
* :func:`import_edge_list` (format ``edge-list``) -- a text edge list; every node is a seed.

Importers use K = 4, fan-outs (10, 5) and eps = 0.05 (optsched's defaults, editable in the JSON).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optsched.core.data import sha256_file
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng
from optsched.graphs import Graph
from optsched.graphs.io import read_edge_list, read_planetoid_graph
from optsched.graphs.sampling import power_law_graph

from .instance import GraphPartitionInstance

__all__ = ["generate", "from_graph", "import_planetoid", "import_edge_list", "PRESETS", "tiny_instances"]

PRESETS = {
    "tiny": dict(nodes=8, parts=2, mean_degree=3.0, train_fraction=0.5, eps=0.25),
    "small": dict(nodes=100, parts=2, mean_degree=4.0, train_fraction=0.2, eps=0.1),
    "medium": dict(nodes=3000, parts=4, mean_degree=4.0, train_fraction=0.1, eps=0.05),
    "large": dict(nodes=100_000, parts=8, mean_degree=8.0, train_fraction=0.1, eps=0.05),
}


def from_graph(graph: Graph, train_nodes, parts: int, *, fanouts=(10, 5), eps_train: float = 0.05,
               eps_nodes: float = 0.05, name: str = "", provenance: str = "") -> GraphPartitionInstance:
    g = graph.undirected()
    edges = tuple(zip(g.src.tolist(), g.dst.tolist()))
    return GraphPartitionInstance(num_nodes=g.num_nodes, edges=edges, train_nodes=tuple(int(v) for v in train_nodes),
                                  num_parts=parts, fanouts=tuple(fanouts), eps_train=eps_train, eps_nodes=eps_nodes,
                                  name=name, provenance=provenance)


def _loosest_eps(count: int, parts: int, eps: float) -> float:
    """``eps``, raised just enough that ceil(count/K) fits (tiny instances only, stated in provenance)."""
    need = math.ceil(count / parts) * parts / count - 1
    return max(eps, need)


#: the most edges the generator is asked for (``nodes * mean_degree / 2``) [ours]: 500,000 nodes at
#: the default mean degree 4, the largest graph every method answered on within ``--time-limit 5``
#: (``make bench-bounds``: metis-fm 11.4 s of its 12.5 s there); a denser graph of as many nodes
#: would not be
MAX_EXPECTED_EDGES = 1_000_000


def generate(seed: int = 0, nodes: int = 100, parts: int = 2, mean_degree: float = 4.0, train_fraction: float = 0.2,
             eps: float = 0.1, fanouts: tuple[int, ...] = (10, 5), exponent: float = 2.5) -> GraphPartitionInstance:
    """A power-law graph with ``round(train_fraction * nodes)`` (at least 1) random training nodes.

    ``eps`` applies to both balance rows, raised where a row could not be balanced at all
    (``ceil(count/K) > (1+eps) count/K``, which happens on tiny graphs; recorded in provenance).
    """
    if nodes < 2:
        raise InvalidOptionError("graph-partition", "nodes", "must be >= 2", nodes)
    if not 0 < train_fraction <= 1:
        raise InvalidOptionError("graph-partition", "train_fraction", "must be in (0, 1]", train_fraction)
    if nodes * mean_degree / 2 > MAX_EXPECTED_EDGES:
        raise InvalidOptionError("graph-partition", "mean_degree",
                                 f"nodes x mean_degree / 2 (the expected edges) must be <= {MAX_EXPECTED_EDGES:,} "
                                 f"(the largest graph measured; got {nodes} nodes)", mean_degree)
    rng = make_rng(seed, "graph-partition", "generate")
    g = power_law_graph(nodes, mean_degree, rng, exponent)
    T = max(1, int(round(train_fraction * nodes)))
    train = np.sort(rng.choice(nodes, size=T, replace=False))
    et, en = _loosest_eps(T, parts, eps), _loosest_eps(nodes, parts, eps)
    note = "" if (et, en) == (eps, eps) else f"; eps raised to fit ceil(count/K): train {et:.4g}, nodes {en:.4g}"
    return from_graph(g, train, parts, fanouts=tuple(fanouts), eps_train=et, eps_nodes=en,
                      name=f"powerlaw-n{nodes}-s{seed}",
                      provenance=f"optsched Chung-Lu power-law graph, seed {seed}, mean degree {mean_degree}, "
                                 f"exponent {exponent}{note}")


def tiny_instances(seed: int) -> GraphPartitionInstance:
    """8 nodes, K = 2 (or 3 on odd seeds, 9 nodes): small enough for brute force."""
    if seed % 2:
        return generate(seed, nodes=9, parts=3, mean_degree=3.0, train_fraction=0.5, eps=0.25, fanouts=(2, 2))
    return generate(seed, **PRESETS["tiny"], fanouts=(2, 2))


def _invalid(fmt: str, exc: Exception) -> InvalidInstanceError:
    return InvalidInstanceError("graph-partition", "(file)", f"{fmt}: {exc}")


def import_planetoid(path, index: int | None = None) -> GraphPartitionInstance:
    """A planetoid ``ind.<name>.graph`` file (``index`` is unused, accepted for the CLI)."""
    if index not in (None, 0):
        raise InvalidOptionError("graph-partition", "--index", "must be 0: the file holds one graph", index)
    path = Path(path)
    test_path = None
    for suffix in (".graph", ".graph.gz"):
        if path.name.endswith(suffix):
            stem = path.name[: -len(suffix)]
            candidate = next((c for c in (path.with_name(stem + ".test.index"), path.with_name(stem + ".test.index.gz"))
                              if c.is_file()), None)
            if candidate is not None:
                test_path = candidate
            break
    try:
        gf, test = read_planetoid_graph(path, test_path)
    except ValueError as exc:
        raise _invalid("planetoid-graph", exc) from None
    n = gf.graph.num_nodes
    is_test = np.zeros(n, bool)
    if test is not None:
        is_test[test] = True
    train = np.flatnonzero(~is_test)
    if len(train) == 0:
        raise InvalidInstanceError("graph-partition", "(file)", "every node is a test node: no training seeds")
    parts = min(4, n)
    prov = (f"{path.name} sha256 {sha256_file(path)}; {gf.self_loops} self-loops and {gf.duplicates} repeated "
            f"list entries merged; " + (f"test nodes from {test_path.name} ({int(is_test.sum())}), training = the rest"
                                        if test_path else "no test index beside it: every node is a training seed"))
    return from_graph(gf.graph, train, parts, eps_train=_loosest_eps(len(train), parts, 0.05),
                      eps_nodes=_loosest_eps(n, parts, 0.05), name=path.name, provenance=prov)


def import_edge_list(path, index: int | None = None) -> GraphPartitionInstance:
    """A text edge list (``index`` is unused, accepted for the CLI); every node is a training seed."""
    if index not in (None, 0):
        raise InvalidOptionError("graph-partition", "--index", "must be 0: the file holds one graph", index)
    path = Path(path)
    try:
        gf = read_edge_list(path)
    except ValueError as exc:
        raise _invalid("edge-list", exc) from None
    n = gf.graph.num_nodes
    parts = min(4, n)
    prov = (f"{path.name} sha256 {sha256_file(path)}; node i = the i-th id "
            f"{'in numeric order' if all(s.isdigit() for s in gf.labels) else 'in order of first appearance'}; "
            f"{gf.self_loops} self-loops and {gf.duplicates} repeated edges merged; every node is a training seed")
    return from_graph(gf.graph, range(n), parts, eps_train=_loosest_eps(n, parts, 0.05),
                      eps_nodes=_loosest_eps(n, parts, 0.05), name=path.name, provenance=prov)
