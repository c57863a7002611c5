"""Generators and importers of ``dag-pipeline``.

* :func:`generate`: seeded random DAGs (layered, ``shape="dag"``) or chains (``shape="chain"``),
  compute times uniform in [1, 10] ms, edge bytes log-uniform in [1e5, 1e8].
* :func:`from_operator_graph`: a dnn-partitioning operator/layer graph [data: msr-fiddle
  dnn-partitioning, via ``optsched.workloads.operator_graphs``]: compute = accelerator latency
  (s); training graphs keep their forward nodes with compute x ``backward_factor`` (fwd + bwd,
  default 3 = 1 + 2 [ours, the usual FLOP ratio]) and drop the backward nodes, whose stage is the
  mirror of their forward node's (Rhino mirrors the backward pass [code]); edges keep their bytes.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng
from optsched.workloads.operator_graphs import load_operator_graph

from .instance import DagPipelineInstance

__all__ = ["generate", "PRESETS", "from_operator_graph", "tiny_instances", "import_operator_graph",
           "RHINO_UNBALANCED_RATIO", "RHINO_INTER_NODE_BW"]

P = "dag-pipeline"
#: per-stage FLOP imbalance allowed, percent [code: TePDist hlo_graph_sketch.cc UNBALANCED_RATIO]
RHINO_UNBALANCED_RATIO = 8.0
#: inter-node bandwidth of Rhino's evaluator, 3,355,443.2 B/ms [code: TePDist evaluator.h]
RHINO_INTER_NODE_BW = 3355443.2 * 1000.0
OBJECTIVES = ("cut-bytes", "bottleneck", "sync-estimate")

PRESETS: dict[str, dict] = {
    "tiny": {"nodes": 7, "stages": 3, "shape": "dag"},
    "small": {"nodes": 20, "stages": 4, "shape": "dag"},
    "medium": {"nodes": 80, "stages": 6, "shape": "dag"},
}


def generate(seed: int, *, nodes: int = 20, stages: int = 4, shape: str = "dag", objective: str = "bottleneck",
             balance_percent: float = -1.0, bandwidth: float = 1e9, microbatches: int = 8,
             width: int = 3) -> DagPipelineInstance:
    """A random instance. ``shape="dag"``: nodes in layers of up to ``width``, each node with one
    or two predecessors in the previous layer plus occasional skip edges; ``"chain"``: a path.
    ``balance_percent < 0`` means no budget.

    >>> inst = generate(1, nodes=6, stages=2, shape="chain")
    >>> inst.is_chain, inst.stages
    (True, 2)
    """
    if nodes < 1:
        raise InvalidOptionError(P, "nodes", "must be >= 1", nodes)
    if not 1 <= stages <= nodes:
        raise InvalidOptionError(P, "stages", f"must be in 1..nodes ({nodes})", stages)
    if shape not in ("dag", "chain"):
        raise InvalidOptionError(P, "shape", "must be 'dag' or 'chain'", shape)
    if objective not in OBJECTIVES:
        raise InvalidOptionError(P, "objective", f"must be one of {OBJECTIVES}", objective)
    if width < 1:
        raise InvalidOptionError(P, "width", "must be >= 1", width)
    rng = make_rng(seed, P, nodes, stages, shape, width)
    compute = rng.uniform(1e-3, 1e-2, nodes)
    edges = []
    if shape == "chain":
        edges = [(i, i + 1) for i in range(nodes - 1)]
    else:
        layers, v = [], 0
        while v < nodes:
            k = int(rng.integers(1, width + 1))
            layers.append(list(range(v, min(nodes, v + k))))
            v += k
        for li in range(1, len(layers)):
            prev = layers[li - 1]
            for x in layers[li]:
                for u in rng.choice(prev, size=min(len(prev), int(rng.integers(1, 3))), replace=False):
                    edges.append((int(u), x))
                if li >= 2 and rng.random() < 0.3:
                    edges.append((int(rng.choice(layers[li - 2])), x))
        # every node of a layer without a successor feeds the next layer's first node
        has_out = {u for u, _ in edges}
        for li in range(len(layers) - 1):
            for u in layers[li]:
                if u not in has_out:
                    edges.append((u, layers[li + 1][0]))
    nbytes = portable.power(10.0, rng.uniform(5, 8, len(edges)))
    return DagPipelineInstance(
        compute_s=tuple(float(x) for x in compute), edges=tuple((u, v, float(b)) for (u, v), b in zip(edges, nbytes)),
        stages=stages, objective=objective, balance_percent=None if balance_percent < 0 else balance_percent,
        bandwidth=bandwidth, microbatches=microbatches, name=f"gen-{shape}-{nodes}-k{stages}-s{seed}",
        provenance=f"optsched dag-pipeline generator, seed {seed}")


def tiny_instances(seed: int) -> DagPipelineInstance:
    """Tiny instances for conformance: the objective and the budget rotate with the seed."""
    objective = OBJECTIVES[seed % 3]
    balance = RHINO_UNBALANCED_RATIO * 10 if objective == "cut-bytes" else -1.0
    return generate(seed, nodes=7, stages=3, objective=objective, balance_percent=balance,
                    shape="chain" if seed == 3 else "dag")


def from_operator_graph(path, *, stages: int | None = 4, objective: str = "bottleneck",
                        balance_percent: float | None = RHINO_UNBALANCED_RATIO, bandwidth: float = RHINO_INTER_NODE_BW,
                        microbatches: int = 8, backward_factor: float = 3.0) -> DagPipelineInstance:
    """The forward DAG of a dnn-partitioning graph as a ``dag-pipeline`` instance (see module doc);
    ``stages=None``: 4, or the number of forward nodes when the graph has fewer."""
    if not (backward_factor >= 1 and math.isfinite(backward_factor)):
        raise InvalidOptionError(P, "backward_factor", "must be >= 1", backward_factor)
    og = load_operator_graph(path)
    keep = np.flatnonzero(~og.is_backward)
    if len(keep) == 0:
        raise InvalidInstanceError(P, "nodes", f"{Path(path).name}: every node is a backward node (isBackwardNode): "
                                   "no forward DAG to pipeline")
    if stages is None:
        stages = min(4, len(keep))
    factor = backward_factor if og.is_backward.any() else 1.0
    index = {int(v): i for i, v in enumerate(keep)}
    g = og.graph
    edges = [(index[u], index[v], float(b)) for u, v, b in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist())
             if u in index and v in index]
    if not 1 <= stages <= len(keep):
        raise InvalidOptionError(P, "stages", f"must be in 1..{len(keep)} (forward nodes)", stages)
    return DagPipelineInstance(
        compute_s=tuple(float(x) for x in og.accel_latency[keep] / 1000.0 * factor), edges=tuple(edges),
        stages=stages, objective=objective, balance_percent=balance_percent, bandwidth=bandwidth,
        microbatches=microbatches, node_names=tuple(og.names[i] for i in keep),
        name=f"{og.name}-k{stages}", provenance=f"dnn-partitioning {Path(path).name}: {len(keep)} forward nodes "
                                                f"of {og.num_nodes} [data: msr-fiddle/dnn-partitioning]")


def import_operator_graph(path, index: int | None = None) -> DagPipelineInstance:
    """``optsched import dnn-partitioning-stages FILE``: 4 stages (fewer on a graph of fewer forward
    nodes), Rhino's 8% budget, cut-bytes."""
    if index is not None:
        raise InvalidOptionError(P, "--index", "a dnn-partitioning file holds one graph")
    return from_operator_graph(path, objective="cut-bytes", stages=None)
