"""Instances of ``intra-op``: the IOPDDL importer and solution exporter, OneFlow-style SBP
candidates for operator graphs and transformer blocks, and random graphs for tests.

SBP cost model (every constant tagged with its source):

* signatures: one SBP per mesh axis, ``S(0)`` (split the first tensor axis: rows/batch),
  ``S(1)`` (split the second: features), ``B`` (broadcast), ``P`` (partial sum; outputs of
  matmuls and inputs of linear ``add`` ops only) [paper: OneFlow arXiv 2110.15032, section 3];
* compute cost ``COMPUTE_COST_RATIO * comp / prod(p_a over axes a where the op is split)``
  with ``COMPUTE_COST_RATIO = 0.05`` [code: oneflow job_conf.proto
  ``auto_parallel_computation_cost_ratio``], comp = ``2 |A| n`` for a matmul [code: oneflow
  matmul_op.cpp ``GetComputationCost``] and the summed tensor elements otherwise [code: oneflow
  ``Operator::GetComputeComplexity``]; for dnn-partitioning graphs comp = latency x
  ``FLOP_PER_MS`` = 0.015 * 1024^4 FLOP/ms [code: alibaba/TePDist evaluator.h, "V100"];
* transfer cost of a tensor of ``T`` bytes along one mesh axis of ``p`` devices [code: oneflow
  sbp_infer_util.cpp ``ComputCopyCostBetweenTwoSbpParallel``]: equal 0; ``B -> S`` 1
  (``B_TO_S``, "free"); ``S(i) -> S(j)`` T(p-1)/p; ``P -> S`` and ``S -> B`` T(p-1); ``P -> B``
  2T(p-1); ``-> P`` from anything else forbidden (the default
  ``ONEFLOW_PENALTY_FOR_PARTIAL_IN_CONSUMER_POLICY``), stored as :data:`SENTINEL` = 1e18 like
  the contest's; plus ``TRANSFER_OVERHEAD = 1.65e4`` on every nonzero transfer [code: oneflow
  ``AUTO_PARALLEL_TRANSFER_COST``];
* 2-D meshes: the sum over the axes whose SBP differs of the 1-D cost on that axis, with T
  divided by the producer's split factor on the other axis [ours: OneFlow reduces to the one
  differing axis, ``ComputCopyCostBetweenTwoNdSbp``; both differing is our extension];
* memory per device: weights / (split factor of the weight) + output / (split factor of the
  output; ``P`` holds the full tensor), live from the op's topological position to its last
  consumer's [ours]; the limit is ``memory_ratio`` (1.1) times the peak of the least-memory plan
  [ours: on the public IOPDDL instances the limit is 1.10 times that peak, measured];
* bytes per element 2 (fp16) [ours].
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng

from .instance import IntraOpInstance, solution_vector

__all__ = ["generate", "PRESETS", "tiny_instances", "load_iopddl", "detect_iopddl", "parse_iopddl", "export_iopddl_solution",
           "write_iopddl_solution", "sbp_instance", "transformer_ops", "operator_graph_ops", "Op",
           "transfer_cost", "SENTINEL"]

PROBLEM = "intra-op"
COMPUTE_COST_RATIO = 0.05        # [code: oneflow auto_parallel_computation_cost_ratio]
TRANSFER_OVERHEAD = 1.65e4       # [code: oneflow AUTO_PARALLEL_TRANSFER_COST]
B_TO_S = 1.0                     # [code: oneflow ComputCopyCostBetweenTwoSbpParallel, B -> S]
SENTINEL = 1e18                  # [code: google/iopddl benchmarks' forbidden cost]
FLOP_PER_MS = 0.015 * 1024 ** 4  # [code: alibaba/TePDist evaluator.h]
BYTES_PER_ELEMENT = 2            # [ours: fp16]
MEMORY_RATIO = 1.1               # [ours: as measured on the public IOPDDL instances]

PRESETS: dict[str, dict] = {
    "tiny": {"graph": "tiny", "mesh": "2"},
    "small": {"graph": "transformer", "layers": 1, "mesh": "4"},
    "transformer-1d": {"graph": "transformer", "layers": 4, "mesh": "8"},
    "transformer-2d": {"graph": "transformer", "layers": 2, "mesh": "2x4"},
    "random-sp": {"graph": "random-sp", "nodes": 12, "strategies": 4},
    "random": {"graph": "random", "nodes": 12, "strategies": 4},
    "bert-3": {"graph": "graphs/dnn-partitioning/latency-inputs/OperatorGraphs/bert_l-3_inference.json",
               "mesh": "4"},
    "resnet50": {"graph": "graphs/dnn-partitioning/latency-inputs/OperatorGraphs/resnet50_inference.json",
                 "mesh": "2x2"},
}


# -- IOPDDL ------------------------------------------------------------------------------------
def _bad(field: str, rule: str, got=...):
    return InvalidInstanceError(PROBLEM, field, rule, got)


def _numbers(values, field: str):
    """``values``, each checked to be a finite JSON number (not a boolean, a string, null or
    ``json``'s NaN / Infinity extension, which numpy would turn into 1.0, 7.0 or nan without a
    word)."""
    for x in values:
        if type(x) is not float and type(x) is not int:
            raise _bad(field, "must hold numbers", x)
        if type(x) is float and not math.isfinite(x):
            raise _bad(field, "must hold finite numbers (NaN and Infinity are not JSON)", x)
        yield x


def parse_iopddl(doc, name: str = "") -> IntraOpInstance:
    """An instance from a decoded IOPDDL document (format: ``shared/data/README.md``)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("problem"), dict):
        raise _bad("problem", 'the file must be an object {"problem": {...}}')
    p = doc["problem"]
    nodes, edges = p.get("nodes"), p.get("edges", {"nodes": [], "costs": []})
    if not isinstance(nodes, dict):
        raise _bad("problem.nodes", "must be an object with intervals, costs and usages")
    if not isinstance(edges, dict):
        raise _bad("problem.edges", "must be an object with nodes and costs")
    for key in ("intervals", "costs", "usages"):
        if not isinstance(nodes.get(key), list):
            raise _bad(f"problem.nodes.{key}", "must be a list")
    costs, usages, intervals = nodes["costs"], nodes["usages"], nodes["intervals"]
    n = len(costs)
    if len(usages) != n or len(intervals) != n:
        raise _bad("problem.nodes", f"intervals, costs and usages must have equal lengths",
                   (len(intervals), n, len(usages)))
    k = np.empty(n, dtype=np.int64)
    for v in range(n):
        if not isinstance(costs[v], list) or not isinstance(usages[v], list):
            raise _bad(f"problem.nodes.costs[{v}]", "must be a list of numbers")
        if len(costs[v]) != len(usages[v]):
            raise _bad(f"problem.nodes.usages[{v}]", f"must have one usage per strategy ({len(costs[v])})",
                       len(usages[v]))
        if not costs[v]:
            raise _bad(f"problem.nodes.costs[{v}]", "a node needs at least one strategy")
        k[v] = len(costs[v])
        iv = intervals[v]
        if not isinstance(iv, list) or len(iv) != 2:
            raise _bad(f"problem.nodes.intervals[{v}]", "must be [start, end]", iv)
    try:
        iv = np.fromiter(_numbers(itertools.chain.from_iterable(intervals), "problem.nodes.intervals"),
                         dtype=np.float64, count=2 * n).reshape(n, 2)
        cost = np.fromiter(_numbers(itertools.chain.from_iterable(costs), "problem.nodes.costs"),
                           dtype=np.float64, count=int(k.sum()))
        usage = np.fromiter(_numbers(itertools.chain.from_iterable(usages), "problem.nodes.usages"),
                            dtype=np.float64, count=int(k.sum()))
    except InvalidInstanceError:
        raise
    except (TypeError, ValueError) as exc:
        raise _bad("problem.nodes", f"costs, usages and intervals must hold numbers ({exc})") from None
    if not np.all(iv == np.round(iv)):
        raise _bad("problem.nodes.intervals", "must hold integer times")
    enodes, ecosts = edges.get("nodes", []), edges.get("costs", [])
    if not isinstance(enodes, list) or not isinstance(ecosts, list) or len(enodes) != len(ecosts):
        raise _bad("problem.edges", "nodes and costs must be lists of equal length")
    m = len(enodes)
    eu = np.empty(m, dtype=np.int64)
    ev = np.empty(m, dtype=np.int64)
    for e, pair in enumerate(enodes):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _bad(f"problem.edges.nodes[{e}]", "must be a pair [u, v] (optsched reads edges of two nodes)",
                       pair)
        for x in pair:
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < n:
                raise _bad(f"problem.edges.nodes[{e}]", f"must hold node indices 0..{n - 1}", pair)
        eu[e], ev[e] = pair
        if not isinstance(ecosts[e], list) or len(ecosts[e]) != k[pair[0]] * k[pair[1]]:
            raise _bad(f"problem.edges.costs[{e}]", f"must have k_u * k_v = {k[pair[0]] * k[pair[1]]} entries",
                       len(ecosts[e]) if isinstance(ecosts[e], list) else ecosts[e])
    try:
        total = int((k[eu] * k[ev]).sum()) if m else 0
        ecost = np.fromiter(_numbers(itertools.chain.from_iterable(ecosts), "problem.edges.costs"),
                            dtype=np.float64, count=total)
    except InvalidInstanceError:
        raise
    except (TypeError, ValueError) as exc:
        raise _bad("problem.edges.costs", f"must hold numbers ({exc})") from None
    limit = p.get("usage_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
        raise _bad("problem.usage_limit", "must be a number", limit)
    return _iopddl_instance(k, cost, usage, iv, eu, ev, ecost, limit, p.get("name", name), name)


def _iopddl_instance(k, cost, usage, iv, eu, ev, ecost, limit, title, name: str) -> IntraOpInstance:
    """The instance of checked IOPDDL arrays (both readers end here: the same instance). The
    readers' fresh value arrays are handed over, not copied."""
    from .instance import _Adopt

    return IntraOpInstance(num_strategies=k, cost=_Adopt(cost), usage=_Adopt(usage),
                           start=iv[:, 0].astype(np.int64),
                           end=iv[:, 1].astype(np.int64), edge_u=eu, edge_v=ev, edge_cost=_Adopt(ecost),
                           usage_limit=None if limit is None else float(limit),
                           name=str(title), provenance=f"IOPDDL file {name}")


def load_iopddl(path, index: int | None = None, *, fast: bool = True) -> IntraOpInstance:
    """``optsched import iopddl FILE``: read an IOPDDL contest file (``.json`` or ``.json.gz``).

    Costs of 1e18 stay in the instance and count as forbidden (see :data:`.instance.FORBIDDEN`).
    The file is read by the block-wise reader of :mod:`.iopddl_io` (1.1 GB files in seconds, no
    Python object per number) [ours]; a file it does not handle, valid or not, is parsed by
    ``json.loads`` and :func:`parse_iopddl` (``fast=False``: always), which name what is wrong.

    >>> import json, os, tempfile
    >>> doc = {"problem": {"name": "t", "nodes": {"intervals": [[0, 2], [1, 3]], "costs": [[1, 2], [3]],
    ...        "usages": [[5, 1], [2]]}, "edges": {"nodes": [[0, 1]], "costs": [[0, 7]]}, "usage_limit": 4}}
    >>> path = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> with open(path, "w") as fh: json.dump(doc, fh)
    >>> inst = load_iopddl(path)
    >>> inst.num_nodes, inst.edge_matrix(0).tolist(), inst.usage_limit
    (2, [[0.0], [7.0]], 4.0)
    """
    if index is not None:
        raise InvalidOptionError(PROBLEM, "--index", "an IOPDDL file holds one instance")
    from optsched.core.textfile import read_text

    path = Path(path)
    name = path.name.removesuffix(".gz").removesuffix(".json")
    if fast and path.is_file():   # (a pipe is read once, by the json.loads path)
        from .iopddl_io import read_iopddl_fast

        # gzip or plain, whatever the name says; None: a file the fast path leaves to json.loads
        arrays = read_iopddl_fast(path, PROBLEM, name)
        if arrays is not None:
            return _iopddl_instance(*arrays)
    text = read_text(path, PROBLEM)  # gzip or plain, whatever the name says
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad("(file)", f"{path.name} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except RecursionError:
        raise _bad("(file)", f"{path.name}: JSON nested too deeply") from None
    del text
    return parse_iopddl(doc, name)


#: the start of an IOPDDL contest file: an object whose first key is ``problem``, holding an object
#: (an optsched file starts with ``format_version``, and its ``problem`` is a name, not an object)
_IOPDDL_HEAD = re.compile(rb'\A\s*\{\s*"problem"\s*:\s*\{')


def detect_iopddl(head: bytes) -> bool:
    """Whether a file's first bytes (gunzipped, without BOM) are those of an IOPDDL contest file, so
    that ``optsched solve intra-op FILE.json.gz`` reads it directly (the problem's
    ``direct_formats``) [ours].

    >>> detect_iopddl(b'{"problem":{"edges":{"costs":[[0]'), detect_iopddl(b'{\\n  "problem": {\\n')
    (True, True)
    >>> detect_iopddl(b'{"format_version": 1, "problem": "intra-op", "num_strategies": [2]')
    False
    """
    return _IOPDDL_HEAD.match(head) is not None


def export_iopddl_solution(instance: IntraOpInstance, solution) -> str:
    """The contest's solution format: ``[s_0, s_1, ...]`` (one strategy index per node), as the
    contest's ``main.cc`` prints it [code: google/iopddl main.cc].

    >>> inst = generate(0, preset="tiny")
    >>> export_iopddl_solution(inst, {"strategy": [0] * inst.num_nodes})[:7]
    '[0, 0, '
    """
    s, errors = solution_vector(instance, solution)
    if s is None:
        raise _bad("solution", "; ".join(errors))
    return "[" + ", ".join(str(int(x)) for x in s) + "]"


def write_iopddl_solution(path, instance: IntraOpInstance, solution) -> None:
    Path(path).write_text(export_iopddl_solution(instance, solution) + "\n")


# -- SBP cost model ------------------------------------------------------------------------------
AXIS_OPTIONS = {"matmul": ("S(0)", "S(1)", "B", "P"), "elementwise": ("S(0)", "S(1)", "B"),
                "add": ("S(0)", "S(1)", "B", "P")}
MATMUL_INPUT = {"S(0)": "S(0)", "S(1)": "B", "P": "S(1)", "B": "B"}  # output SBP -> input SBP
WEIGHT_SPLIT = {"S(0)": False, "S(1)": True, "P": True, "B": False}


class Op:
    """An operator: kind, output bytes, weight bytes, comp (FLOP-like work) and input ops."""

    __slots__ = ("name", "kind", "out_bytes", "weight_bytes", "comp", "inputs")

    def __init__(self, name, kind, out_bytes, weight_bytes, comp, inputs=()):
        self.name, self.kind = name, kind
        self.out_bytes, self.weight_bytes, self.comp = float(out_bytes), float(weight_bytes), float(comp)
        self.inputs = tuple(inputs)


def transfer_cost(src: tuple[str, ...], dst: tuple[str, ...], nbytes: float, mesh: tuple[int, ...]) -> float:
    """Boxing cost of a tensor of ``nbytes`` from SBP ``src`` to ``dst`` (one entry per mesh axis).

    >>> transfer_cost(("S(0)",), ("S(1)",), 100.0, (4,)) == 75.0 + TRANSFER_OVERHEAD
    True
    >>> transfer_cost(("B",), ("P",), 100.0, (4,)) == SENTINEL
    True
    """
    total = 0.0
    for a, (x, y) in enumerate(zip(src, dst)):
        if x == y:
            continue
        if y == "P":
            return SENTINEL
        p = mesh[a]
        other = 1
        for b, z in enumerate(src):
            if b != a and z.startswith("S"):
                other *= mesh[b]
        t = nbytes / other
        if x == "B":
            c = B_TO_S if y.startswith("S") else 0.0
        elif x.startswith("S") and y.startswith("S"):
            c = t * (p - 1) / p
        elif x == "P" and y.startswith("S"):
            c = t * (p - 1)
        elif x.startswith("S") and y == "B":
            c = t * (p - 1)
        elif x == "P" and y == "B":
            c = 2 * t * (p - 1)
        else:  # pragma: no cover - every pair is listed above
            raise AssertionError((x, y))
        total += c + (TRANSFER_OVERHEAD if c > B_TO_S else 0.0)
    return total


def _signatures(op: Op, mesh) -> list[tuple[str, ...]]:
    return list(itertools.product(AXIS_OPTIONS[op.kind], repeat=len(mesh)))


def _required_input(op: Op, sig) -> tuple[str, ...]:
    if op.kind == "matmul":
        return tuple(MATMUL_INPUT[x] for x in sig)
    return tuple(sig)


def _split_factor(sig, mesh, which: str) -> int:
    f = 1
    for x, p in zip(sig, mesh):
        if (which == "compute" and x != "B") or (which == "output" and x.startswith("S")) or \
                (which == "weight" and WEIGHT_SPLIT[x]):
            f *= p
    return f


def sbp_instance(ops: list[Op], mesh: tuple[int, ...], *, memory_ratio: float = MEMORY_RATIO,
                 name: str = "", provenance: str = "") -> IntraOpInstance:
    """The intra-op instance of an operator list (inputs before users) on a device mesh."""
    index = {op.name: i for i, op in enumerate(ops)}
    sigs = [_signatures(op, mesh) for op in ops]
    k, cost, usage, labels = [], [], [], []
    for op, ss in zip(ops, sigs):
        k.append(len(ss))
        for sig in ss:
            cost.append(COMPUTE_COST_RATIO * op.comp / _split_factor(sig, mesh, "compute"))
            usage.append(op.weight_bytes / _split_factor(sig, mesh, "weight")
                         + op.out_bytes / _split_factor(sig, mesh, "output"))
            labels.append(",".join(sig))
    eu, ev, ecost = [], [], []
    last_use = list(range(len(ops)))
    for j, op in enumerate(ops):
        for src in op.inputs:
            i = index[src]
            if i >= j:
                raise ValueError(f"op {op.name}: input {src} must come first")
            last_use[i] = max(last_use[i], j)
            eu.append(i)
            ev.append(j)
            t = ops[i].out_bytes
            for a in sigs[i]:
                for b in sigs[j]:
                    ecost.append(transfer_cost(a, _required_input(op, b), t, mesh))
    start = np.arange(len(ops))
    end = np.asarray(last_use) + 1
    base = IntraOpInstance(num_strategies=k, cost=cost, usage=usage, start=start, end=end, edge_u=eu,
                           edge_v=ev, edge_cost=ecost, usage_limit=None)
    limit = _least_memory_peak(base) * memory_ratio
    return IntraOpInstance(num_strategies=k, cost=cost, usage=usage, start=start, end=end, edge_u=eu,
                           edge_v=ev, edge_cost=ecost, usage_limit=float(limit), labels=tuple(labels),
                           name=name, provenance=provenance)


def _least_memory_peak(inst: IntraOpInstance) -> float:
    from .instance import peak_usage

    s = np.array([int(np.lexsort((inst.node_costs(v), inst.node_usages(v)))[0]) for v in range(inst.num_nodes)])
    return peak_usage(inst, s)


def transformer_ops(layers: int = 1, hidden: int = 1024, tokens: int = 4096) -> list[Op]:
    """Ops of ``layers`` transformer blocks (pre-LN; attention as one op) [ours: shapes only].

    Per block: ln1, qkv (h -> 3h), attention (3h -> h, 4 N s h FLOP with s = 512), proj (h -> h),
    add (residual), ln2, fc1 (h -> 4h), gelu, fc2 (4h -> h), add.
    """
    b, h, N = BYTES_PER_ELEMENT, hidden, tokens
    ops = [Op("embed", "elementwise", N * h * b, 0, N * h)]
    x = "embed"
    for L in range(layers):
        p = f"l{L}."

        def mm(nm, src, fin, fout):
            ops.append(Op(p + nm, "matmul", N * fout * b, fin * fout * b, 2 * N * fin * fout, (src,)))
            return p + nm

        def ew(nm, srcs, width, comp=None, kind="elementwise"):
            ops.append(Op(p + nm, kind, N * width * b, 0, comp if comp is not None else 2 * N * width, srcs))
            return p + nm

        a = ew("ln1", (x,), h)
        a = mm("qkv", a, h, 3 * h)
        a = ew("attn", (a,), h, comp=4 * N * 512 * h)
        a = mm("proj", a, h, h)
        x = ew("add1", (x, a), h, kind="add")
        a = ew("ln2", (x,), h)
        a = mm("fc1", a, h, 4 * h)
        a = ew("gelu", (a,), 4 * h)
        a = mm("fc2", a, 4 * h, h)
        x = ew("add2", (x, a), h, kind="add")
    return ops


def operator_graph_ops(path) -> list[Op]:
    """Ops of a dnn-partitioning operator graph (shared loader), in topological order: a node
    with weights (``size`` > 0) is a matmul, one with two or more inputs an add, others
    elementwise; output bytes = the largest outgoing edge ``size`` (incoming for sinks); comp =
    accelerator latency x FLOP_PER_MS [ours: the mapping; constants tagged above]."""
    from optsched.workloads.operator_graphs import load_operator_graph

    og = load_operator_graph(path)
    g = og.graph
    order = g.topological_order()
    out_bytes = np.zeros(og.num_nodes)
    in_bytes = np.zeros(og.num_nodes)
    np.maximum.at(out_bytes, g.src, g.weight)
    np.maximum.at(in_bytes, g.dst, g.weight)
    preds = [[] for _ in range(og.num_nodes)]
    for u, v in zip(g.src.tolist(), g.dst.tolist()):
        if u not in preds[v]:
            preds[v].append(u)
    names = [f"n{int(i)}" for i in og.ids]
    ops = []
    for v in order.tolist():
        kind = "matmul" if og.size[v] > 0 and len(preds[v]) <= 1 else ("add" if len(preds[v]) >= 2 else "elementwise")
        ob = out_bytes[v] if out_bytes[v] > 0 else in_bytes[v]
        ops.append(Op(names[v], kind, ob, og.size[v], og.accel_latency[v] * FLOP_PER_MS,
                      tuple(names[u] for u in preds[v])))
    return ops


def _parse_mesh(mesh: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in str(mesh).lower().split("x"))
    except ValueError:
        raise InvalidOptionError(PROBLEM, "mesh", "must be P or P1xP2 (devices per mesh axis)", mesh) from None
    if not 1 <= len(dims) <= 2 or any(d < 2 for d in dims):
        raise InvalidOptionError(PROBLEM, "mesh", "must have one or two axes of >= 2 devices (OneFlow supports at most 2)", mesh)
    if any(d > MAX_MESH_AXIS for d in dims):   # 10**400 devices: costs divided by it overflow
        raise InvalidOptionError(PROBLEM, "mesh", f"must have at most {MAX_MESH_AXIS} devices per axis", mesh)
    return dims


#: the most devices per mesh axis [ours]: far beyond any cluster (OneFlow's meshes have a few
#: dozen), small enough that split costs and memories stay ordinary floats
MAX_MESH_AXIS = 1 << 20


# -- random graphs (tests) ---------------------------------------------------------------------------
def _random_costs(rng, inst_k, edges, *, forbidden: float = 0.05):
    k = np.asarray(inst_k)
    cost = rng.integers(0, 20, size=int(k.sum())).astype(float)
    usage = rng.integers(1, 10, size=int(k.sum())).astype(float)
    ecost = []
    for u, v in edges:
        mat = rng.integers(0, 30, size=(k[u], k[v])).astype(float)
        mask = rng.random((k[u], k[v])) < forbidden
        mask[0, 0] = False  # keep strategy 0 everywhere allowed: a feasible plan always exists
        mat[mask] = SENTINEL
        ecost.extend(mat.ravel().tolist())
    return cost, usage, ecost


def _series_parallel_edges(rng, nodes: int) -> list[tuple[int, int]]:
    """A random two-terminal series-parallel graph on ``nodes`` nodes (series and parallel
    compositions of edges, then subdivisions), edges oriented by node index."""
    edges = [(0, 1)]
    n = 2
    while n < nodes:
        i = int(rng.integers(len(edges)))
        u, v = edges[i]
        if rng.random() < 0.5:   # series: subdivide the edge
            edges[i] = (u, n)
            edges.append((n, v))
        else:                    # parallel: a new path of length 2 beside the edge
            edges.append((u, n))
            edges.append((n, v))
        n += 1
    return [(min(a, b), max(a, b)) for a, b in edges]


def _random_instance(seed: int, graph: str, nodes: int, strategies: int, memory_ratio: float) -> IntraOpInstance:
    rng = make_rng(seed, PROBLEM, graph, nodes, strategies)
    if nodes < 2:
        raise InvalidOptionError(PROBLEM, "nodes", "must be >= 2", nodes)
    if strategies < 1:
        raise InvalidOptionError(PROBLEM, "strategies", "must be >= 1", strategies)
    if graph == "random-sp":
        edges = _series_parallel_edges(rng, nodes)
    else:
        edges = [(int(rng.integers(v)), v) for v in range(1, nodes)]
        extra = nodes // 2 + 1
        for _ in range(extra):
            a, b = sorted(rng.choice(nodes, size=2, replace=False).tolist())
            edges.append((a, b))
    k = rng.integers(1, strategies + 1, size=nodes)
    k[0] = strategies
    cost, usage, ecost = _random_costs(rng, k, edges)
    start = rng.integers(0, nodes, size=nodes)
    end = start + rng.integers(0, 4, size=nodes)
    base = IntraOpInstance(num_strategies=k, cost=cost, usage=usage, start=start, end=end,
                           edge_u=[e[0] for e in edges], edge_v=[e[1] for e in edges], edge_cost=ecost)
    s0 = np.zeros(nodes, dtype=np.int64)  # strategy 0: allowed everywhere
    from .instance import peak_usage
    limit = max(peak_usage(base, s0), _least_memory_peak(base) * memory_ratio)
    return IntraOpInstance(num_strategies=k, cost=cost, usage=usage, start=start, end=end,
                           edge_u=base.edge_u, edge_v=base.edge_v, edge_cost=ecost, usage_limit=float(limit),
                           name=f"{graph}-{nodes}x{strategies}-s{seed}",
                           provenance=f"optsched intra-op random generator ({graph}), seed {seed}")


def _tiny_ops() -> list[Op]:
    """Five ops with a residual (series-parallel): x -> mm -> ew -> add(x, .) -> mm [ours]."""
    b = BYTES_PER_ELEMENT
    return [Op("x", "elementwise", 64 * 32 * b, 0, 64 * 32),
            Op("mm1", "matmul", 64 * 32 * b, 32 * 32 * b, 2 * 64 * 32 * 32, ("x",)),
            Op("act", "elementwise", 64 * 32 * b, 0, 2 * 64 * 32, ("mm1",)),
            Op("add", "add", 64 * 32 * b, 0, 64 * 32, ("x", "act")),
            Op("mm2", "matmul", 64 * 16 * b, 32 * 16 * b, 2 * 64 * 32 * 16, ("add",))]


def generate(seed: int = 0, *, preset: str | None = None, graph: str = "transformer", layers: int = 1,
             hidden: int = 1024, tokens: int = 4096, mesh: str = "4", nodes: int = 12, strategies: int = 4,
             memory_ratio: float = MEMORY_RATIO) -> IntraOpInstance:
    """An instance. ``graph``: ``tiny`` (5 ops), ``transformer`` (``layers`` blocks), a
    dnn-partitioning operator-graph file (a path, absolute or inside ``OPTSCHED_DATA_DIR``),
    ``random-sp`` / ``random`` (random costs on a series-parallel / general graph; seeded).
    The SBP graphs are deterministic (the seed only affects the random graphs).

    >>> inst = generate(0, preset="tiny")
    >>> inst.num_nodes, inst.labels[:4]
    (5, ('S(0)', 'S(1)', 'B', 'S(0)'))
    """
    if preset is not None:
        if preset not in PRESETS:
            raise InvalidOptionError(PROBLEM, "preset", "unknown preset (known: " + ", ".join(PRESETS) + ")", preset)
        opts = dict(PRESETS[preset])
        return generate(seed, graph=opts.pop("graph"), **{**dict(layers=layers, hidden=hidden, tokens=tokens,
                                                                  mesh=mesh, nodes=nodes, strategies=strategies,
                                                                  memory_ratio=memory_ratio), **opts})
    if not memory_ratio >= 1:
        raise InvalidOptionError(PROBLEM, "memory_ratio", "must be >= 1 (the least-memory plan must fit)", memory_ratio)
    if graph in ("random-sp", "random"):
        return _random_instance(seed, graph, nodes, strategies, memory_ratio)
    dims = _parse_mesh(mesh)
    meshname = "x".join(map(str, dims))
    if graph == "tiny":
        return sbp_instance(_tiny_ops(), dims, memory_ratio=memory_ratio, name=f"tiny-mesh{meshname}",
                            provenance="optsched intra-op tiny SBP graph")
    if graph == "transformer":
        if layers < 1 or hidden < 1 or tokens < 1:
            raise InvalidOptionError(PROBLEM, "layers", "layers, hidden and tokens must be >= 1", (layers, hidden, tokens))
        return sbp_instance(transformer_ops(layers, hidden, tokens), dims, memory_ratio=memory_ratio,
                            name=f"transformer-L{layers}-h{hidden}-N{tokens}-mesh{meshname}",
                            provenance="optsched intra-op transformer-block SBP generator")
    path = Path(graph)
    try:
        is_file = path.is_file()
    except OSError:   # e.g. a name longer than the system allows: no file of that name
        is_file = False
    if not is_file:
        from optsched.core.data import DataUnavailable, data_file
        try:
            path = data_file(graph)
        except (DataUnavailable, OSError) as exc:
            raise InvalidOptionError(PROBLEM, "graph", f"neither a graph kind (tiny, transformer, random-sp, random) nor a file: {exc}",
                       graph) from None
    stem = path.name.removesuffix(".json")
    return sbp_instance(operator_graph_ops(path), dims, memory_ratio=memory_ratio, name=f"{stem}-mesh{meshname}",
                        provenance=f"dnn-partitioning operator graph {path.name} with OneFlow SBP candidates")


def tiny_instances(seed: int) -> IntraOpInstance:
    """Conformance instances: the 5-op SBP graph (even seeds: 1-D mesh of 2; odd: random
    series-parallel or general graphs of 6 nodes with up to 3 strategies)."""
    if seed % 4 == 0:
        return generate(seed, preset="tiny")
    if seed % 4 == 1:
        return generate(seed, graph="random-sp", nodes=6, strategies=3)
    if seed % 4 == 2:
        return generate(seed, graph="tiny", mesh="3")
    return generate(seed, graph="random", nodes=6, strategies=3)
