"""Operator and layer graphs in the JSON format of msr-fiddle/dnn-partitioning [code: its README].

A file holds a device budget (``maxSizePerFPGA`` bytes per accelerator, ``maxFPGAs``,
``maxCPUs``) and a DAG: ``nodes`` (``id``, ``name``, ``cpuLatency`` and ``fpgaLatency`` in ms,
``size`` in bytes (the node's weight/parameter memory), ``isBackwardNode``, ``supportedOnFpga``,
optional ``colorClass`` and ``layerId``) and ``edges`` (``sourceId``, ``destId``, ``size`` in
bytes moved, ``cost``: the transfer time the planner charges, in ms). Node ids need not be
contiguous; they are relabelled ``0..n-1`` in file order and the original ids kept.

:func:`load_operator_graph` reads any file of this format into an :class:`OperatorGraph`, whose
``graph`` is the shared :class:`~optsched.graphs.Graph` record (directed, edge weight = bytes).
Malformed input raises :class:`~optsched.core.errors.InvalidInstanceError` naming the field.

>>> import json, tempfile, os
>>> doc = {"maxSizePerFPGA": 100.0, "maxFPGAs": 2, "maxCPUs": 1,
...        "nodes": [{"id": 5, "name": "a", "cpuLatency": 2.0, "fpgaLatency": 1.0, "size": 4.0,
...                   "isBackwardNode": False, "supportedOnFpga": True},
...                  {"id": 7, "name": "b", "cpuLatency": 3.0, "fpgaLatency": 1.5, "size": 0.0,
...                   "isBackwardNode": True, "supportedOnFpga": 1}],
...        "edges": [{"sourceId": 5, "destId": 7, "cost": 0.5, "size": 8.0}]}
>>> path = os.path.join(tempfile.mkdtemp(), "g.json")
>>> with open(path, "w") as fh: json.dump(doc, fh)
>>> og = load_operator_graph(path)
>>> og.num_nodes, og.graph.num_edges, og.ids.tolist(), og.accel_latency.tolist()
(2, 1, [5, 7], [1.0, 1.5])
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import MAX_INTEGER, MAX_MAGNITUDE
from optsched.core.jsonfile import unique_keys
from optsched.graphs import Graph

__all__ = ["OperatorGraph", "load_operator_graph", "parse_operator_graph"]

SOURCE = "dnn-partitioning"


@dataclass(frozen=True, eq=False)
class OperatorGraph:
    """A DNN operator (or layer) DAG with per-node latencies and sizes, and the file's budget."""

    name: str
    graph: Graph                 # directed; edge weight = bytes moved along the edge
    ids: np.ndarray              # original node ids, in node order
    cpu_latency: np.ndarray      # ms
    accel_latency: np.ndarray    # ms ("fpgaLatency" in the file: the accelerator's latency)
    size: np.ndarray             # bytes held by the node (weights)
    is_backward: np.ndarray      # bool
    supported_on_accel: np.ndarray  # bool
    edge_cost: np.ndarray        # ms, the planner's transfer time per edge
    color_class: np.ndarray | None
    max_size_per_accel: float
    max_accels: int
    max_cpus: int

    @property
    def num_nodes(self) -> int:
        return self.graph.num_nodes

    @property
    def names(self) -> tuple[str, ...]:
        return self.graph.names or ()


def _num(obj: dict, key: str, where: str, *, integral: bool = False):
    """``obj[key]``: a finite number >= 0 of magnitude at most the core's largest
    (:data:`~optsched.core.instance.MAX_MAGNITUDE`; an integer, also a count or an id, at most
    :data:`~optsched.core.instance.MAX_INTEGER` = 2^53: beyond it a float no longer holds it exactly,
    so ``2^53 + 1`` bytes would be read as another number), else an error naming the field."""
    if key not in obj:
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", "is missing")
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", "must be a number", v)
    if isinstance(v, int) and v > MAX_INTEGER:
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", f"must be at most 2^53 = {MAX_INTEGER} (an integer a "
                                   "float holds exactly)", v)
    if not np.isfinite(v) or v < 0:
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", "must be finite and >= 0", v)
    if integral and int(v) != v:
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", "must be an integer", v)
    if v > (MAX_INTEGER if integral else MAX_MAGNITUDE):
        raise InvalidInstanceError(SOURCE, f"{where}.{key}", f"must be at most "
                                   f"{'2^53' if integral else f'{MAX_MAGNITUDE:g}'}", v)
    return int(v) if integral else float(v)


def parse_operator_graph(doc: dict, name: str = "graph") -> OperatorGraph:
    """An :class:`OperatorGraph` from the decoded JSON document (see the module docstring)."""
    if not isinstance(doc, dict):
        raise InvalidInstanceError(SOURCE, "(file)", "must be a JSON object", type(doc).__name__)
    for key in ("nodes", "edges"):
        if not isinstance(doc.get(key), list):
            raise InvalidInstanceError(SOURCE, key, "must be a list")
    nodes, edges = doc["nodes"], doc["edges"]
    index: dict[int, int] = {}
    ids, names, cpu, acc, size, back, supp, color = [], [], [], [], [], [], [], []
    for i, node in enumerate(nodes):
        where = f"nodes[{i}]"
        if not isinstance(node, dict):
            raise InvalidInstanceError(SOURCE, where, "must be an object")
        nid = _num(node, "id", where, integral=True)
        if nid in index:
            raise InvalidInstanceError(SOURCE, f"{where}.id", "duplicate node id", nid)
        index[nid] = i
        ids.append(nid)
        names.append(str(node.get("name", nid)))
        cpu.append(_num(node, "cpuLatency", where))
        acc.append(_num(node, "fpgaLatency", where))
        size.append(_num(node, "size", where))
        back.append(bool(node.get("isBackwardNode", False)))
        supp.append(bool(node.get("supportedOnFpga", True)))
        c = node.get("colorClass")
        if "colorClass" in node and (isinstance(c, bool) or not isinstance(c, int) or abs(c) > MAX_INTEGER):
            # null is no colour class: a node without one leaves the key out (never read as absent)
            raise InvalidInstanceError(SOURCE, f"{where}.colorClass", "must be an integer of magnitude at most "
                                       "2^53 (leave the key out for no class)", c)
        color.append(c)
    src, dst, nbytes, cost = [], [], [], []
    for k, edge in enumerate(edges):
        where = f"edges[{k}]"
        if not isinstance(edge, dict):
            raise InvalidInstanceError(SOURCE, where, "must be an object")
        for end, out in (("sourceId", src), ("destId", dst)):
            nid = _num(edge, end, where, integral=True)
            if nid not in index:
                raise InvalidInstanceError(SOURCE, f"{where}.{end}", "is not the id of a node", nid)
            out.append(index[nid])
        nbytes.append(_num(edge, "size", where))
        cost.append(_num(edge, "cost", where))
    try:
        graph = Graph(len(ids), src, dst, nbytes, directed=True, names=tuple(names))
        graph.topological_order()
    except ValueError as exc:
        raise InvalidInstanceError(SOURCE, "edges", str(exc)) from None
    has_color = all(c is not None for c in color)
    return OperatorGraph(
        name=name, graph=graph, ids=np.asarray(ids, dtype=np.int64),
        cpu_latency=np.asarray(cpu), accel_latency=np.asarray(acc), size=np.asarray(size),
        is_backward=np.asarray(back, dtype=bool), supported_on_accel=np.asarray(supp, dtype=bool),
        edge_cost=np.asarray(cost),
        color_class=np.asarray(color, dtype=np.int64) if has_color and color else None,
        max_size_per_accel=_num(doc, "maxSizePerFPGA", "(file)") if "maxSizePerFPGA" in doc else float("inf"),
        max_accels=_num(doc, "maxFPGAs", "(file)", integral=True) if "maxFPGAs" in doc else 0,
        max_cpus=_num(doc, "maxCPUs", "(file)", integral=True) if "maxCPUs" in doc else 0,
    )


def load_operator_graph(path: str | Path) -> OperatorGraph:
    """Read a dnn-partitioning operator/layer graph (``.json`` or ``.json.gz``)."""
    from optsched.core.textfile import read_text

    path = Path(path)
    text = read_text(path, SOURCE)  # plain or gzip, whatever the name says
    try:
        doc = json.loads(text, object_pairs_hook=unique_keys)
    except (ValueError, RecursionError) as exc:   # a syntax error or a key given twice
        raise InvalidInstanceError(SOURCE, "(file)", f"{path.name} is not valid JSON: {exc}") from None
    name = path.name.removesuffix(".gz").removesuffix(".json")
    return parse_operator_graph(doc, name)
