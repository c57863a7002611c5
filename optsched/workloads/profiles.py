"""Per-layer DNN profiles: optsched's JSON profile format, PipeDream's ``graph.txt`` and the
antichain linearization of a layer DAG into the chain every partitioner works on.

A :class:`Profile` is a chain of positions (layers, or groups of layers after linearization),
each with its forward and backward time per *profiling batch* on a reference device (seconds),
its parameter bytes, the activation bytes that cross a cut placed right after it, and the
activation bytes it keeps per in-flight batch (``stash_bytes``). Other problems read profiles
through :func:`load_profile`.

JSON format (``format_version`` 1, ``"problem": "profile"``)::

    {"format_version": 1, "problem": "profile", "name": "vgg16", "batch_size": 128.0,
     "layer_names": [...], "forward_s": [...], "backward_s": [...], "parameter_bytes": [...],
     "activation_bytes": [...], "stash_bytes": [...], "device": "...", "provenance": "..."}

All arrays have one entry per position. [ours] Times and activation/stash bytes scale linearly
with the batch size (DAPPLE's assumption); parameter bytes do not (:meth:`Profile.scaled`).

>>> p = Profile(name="toy", batch_size=8, layer_names=("a", "b"), forward_s=(1.0, 2.0),
...             backward_s=(2.0, 4.0), parameter_bytes=(10, 0), activation_bytes=(16, 8),
...             stash_bytes=(16, 8))
>>> p.scaled(4).forward_s
(0.5, 1.0)
>>> Profile.from_json(p.to_json()) == p
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np

from optsched.core.data import sha256_file
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.instance import Instance, load_json_file
from optsched.core.textfile import read_text

__all__ = ["Profile", "LayerGraph", "parse_pipedream_graph", "load_pipedream_graph", "load_profile",
           "antichain_chain", "PIPEDREAM_BATCH_SIZES", "known_profiles", "resolve_profile",
           "load_pipedream_planner_graph"]

#: profiling batch sizes of PipeDream's released profiles (data README): image models 128, GNMT 64
PIPEDREAM_BATCH_SIZES = {"vgg16": 128, "resnet50": 128, "inception_v3": 128, "densenet121": 128,
                         "resnext101": 128, "gnmt": 64, "gnmt_large": 64}


@dataclass(frozen=True)
class Profile(Instance):
    """A chain of positions with per-position costs at ``batch_size`` samples per batch."""

    problem = "profile"
    name: str
    batch_size: float
    layer_names: tuple[str, ...]
    forward_s: tuple[float, ...]
    backward_s: tuple[float, ...]
    parameter_bytes: tuple[float, ...]
    activation_bytes: tuple[float, ...]
    stash_bytes: tuple[float, ...]
    device: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.layer_names)
        self.require(n >= 1, "layer_names", "must list at least one position", n)
        self.require(self.batch_size > 0 and np.isfinite(self.batch_size), "batch_size", "must be > 0",
                     self.batch_size)
        for field in ("forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes"):
            values = getattr(self, field)
            self.require(len(values) == n, field, f"must have one entry per position ({n})", len(values))
            self.require_nonnegative(field, values)

    @property
    def num_layers(self) -> int:
        return len(self.layer_names)

    @cached_property
    def arrays(self) -> dict[str, np.ndarray]:
        """The per-position arrays as numpy vectors (read-only views for vectorized code)."""
        out = {}
        for field in ("forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes"):
            a = np.asarray(getattr(self, field), float)
            a.flags.writeable = False
            out[field] = a
        return out

    def scaled(self, batch_size: float) -> "Profile":
        """The profile at another batch size: times and activation/stash bytes scale linearly
        [ours, as DAPPLE assumes]; parameter bytes are unchanged."""
        if not batch_size > 0:
            raise InvalidOptionError("profile", "batch_size", "must be > 0", batch_size)
        f = batch_size / self.batch_size
        return replace(self, batch_size=float(batch_size),
                       forward_s=tuple(v * f for v in self.forward_s),
                       backward_s=tuple(v * f for v in self.backward_s),
                       activation_bytes=tuple(v * f for v in self.activation_bytes),
                       stash_bytes=tuple(v * f for v in self.stash_bytes))


# -- PipeDream graph.txt ------------------------------------------------------------------------
@dataclass
class LayerGraph:
    """A parsed PipeDream profile: nodes (id -> description and costs, in file order) and edges."""

    nodes: dict[str, dict]
    edges: dict[str, list[str]]

    @cached_property
    def in_edges(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {n: [] for n in self.nodes}
        for a, succ in self.edges.items():
            for b in succ:
                out[b].append(a)
        return out

    def topological_order(self) -> list[str]:
        """Kahn's algorithm; a cycle raises :class:`InvalidInstanceError` naming its nodes."""
        indeg = {n: len(v) for n, v in self.in_edges.items()}
        ready = [n for n in self.nodes if indeg[n] == 0]
        order = []
        while ready:
            n = ready.pop()
            order.append(n)
            for m in self.edges.get(n, []):
                indeg[m] -= 1
                if indeg[m] == 0:
                    ready.append(m)
        if len(order) != len(self.nodes):
            stuck = sorted(n for n in self.nodes if indeg[n] > 0)
            raise InvalidInstanceError("profile", "edges", "the layer graph has a cycle through "
                                       + ", ".join(stuck[:6]) + ("..." if len(stuck) > 6 else ""))
        return order

    def remove(self, node: str) -> None:
        del self.nodes[node]
        self.edges.pop(node, None)
        for succ in self.edges.values():
            if node in succ:
                succ.remove(node)
        self.__dict__.pop("in_edges", None)


_META = re.compile(r"\s*(\w+)=(\[[^\]]*\]|\([^)]*\)|[^,]*)\s*(?:,|$)")
_COSTS = ("forward_compute_time", "backward_compute_time", "activation_size", "parameter_size")


def _node_line(line: str, where: str):
    """``id -- description -- key=value, ... [-- stage_id=N]`` as PipeDream's ``Node.from_str``
    reads it [code: PipeDream ``graph/graph.py``]: the description may itself hold `` -- ``; the
    metadata keys may come in any order; a trailing ``-- stage_id=N`` (a partitioned graph) is
    accepted and ignored. None when the line is no node line."""
    tokens = line.strip().split(" -- ")
    k = next((i for i in range(2, len(tokens)) if "forward_compute_time=" in tokens[i]), None)
    if k is None or not tokens[0] or " " in tokens[0]:
        return None
    meta, pos = {}, 0
    text = tokens[k].strip()
    while pos < len(text):
        m = _META.match(text, pos)
        if not m or m.end() == pos:
            raise InvalidInstanceError("profile", where, "malformed key=value metadata", text[pos:pos + 40])
        meta[m.group(1)] = m.group(2).strip()
        pos = m.end()
    for extra in tokens[k + 1:]:
        if not re.fullmatch(r"\s*stage_id=\s*-?\d+\s*", extra):
            raise InvalidInstanceError("profile", where, "unexpected text after the metadata "
                                       "(only '-- stage_id=N' may follow)", extra[:40])
    missing = [key for key in _COSTS if key not in meta]
    if missing:
        raise InvalidInstanceError("profile", f"{where} {missing[0]}", "missing in the node's metadata")
    return tokens[0], " -- ".join(tokens[1:k]), *(meta[key] for key in _COSTS)


_EDGE = re.compile(r"^\s+(\S+) -- (\S+)\s*$")


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidInstanceError("profile", where, "must be a number", text) from None
    if not np.isfinite(value) or value < 0:
        raise InvalidInstanceError("profile", where, "must be >= 0 and finite", value)
    return value


def parse_pipedream_graph(text: str, source: str = "graph.txt") -> LayerGraph:
    """Parse PipeDream's ``graph.txt`` (node lines, then tab-indented edge lines).

    Times stay in milliseconds here; a negative or non-numeric value, an edge to an unknown node
    and a cycle raise :class:`InvalidInstanceError` naming the line or node.
    """
    nodes: dict[str, dict] = {}
    edges: dict[str, list[str]] = {}
    pending = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _EDGE.match(line)
        if m:
            pending.append((lineno, m.group(1), m.group(2)))
            continue
        where = f"{source}:{lineno}"
        parsed = _node_line(line, where)
        if parsed is None:
            raise InvalidInstanceError("profile", where, "not a PipeDream node or edge line",
                                       line.strip()[:50])
        node, desc, fw, bw, act, par = parsed
        if node in nodes:
            raise InvalidInstanceError("profile", where, "node defined twice", node)
        acts = re.split(r"[;,]", act[1:-1]) if act[:1] in "[(" and act[-1:] in "])" else [act]
        nodes[node] = {"desc": desc.strip(), "forward_ms": _number(fw, where + " forward_compute_time"),
                       "backward_ms": _number(bw, where + " backward_compute_time"),
                       "activation": sum(_number(a, where + " activation_size") for a in acts if a.strip()),
                       "parameter": _number(par, where + " parameter_size")}
        edges[node] = []
    for lineno, a, b in pending:
        for n in (a, b):
            if n not in nodes:
                raise InvalidInstanceError("profile", f"{source}:{lineno}", "edge names an unknown node", n)
        edges[a].append(b)
    if not nodes:
        raise InvalidInstanceError("profile", source, "no node lines")
    graph = LayerGraph(nodes, edges)
    graph.topological_order()  # raises on a cycle
    return graph


def antichain_chain(graph: LayerGraph, poll: Callable[[], None] | None = None
                    ) -> list[tuple[frozenset, tuple[str, ...]]]:
    """PipeDream's antichain linearization of a layer DAG, as one chain of states.

    [code: PipeDream ``graph.py``] Each state is an antichain (augmented with the predecessors
    whose outputs still cross it); moving one node of the augmented antichain to a successor gives
    the next states. PipeDream's DP uses every pair (ancestor, state) of the antichain DAG;
    [ours] optsched keeps one chain: the longest path of the antichain DAG from the source state
    to the full state, whose predecessor closures are nested, so a stage is the difference of
    two closures. For a chain the states are the layers themselves.

    Returns ``[(closure, augmented_antichain), ...]`` in chain order; the last closure is every
    node (the function raises if the DAG has nodes the path cannot reach). ``poll``, when given,
    is called once per node of each pass over the nodes (predecessors, successors, open
    predecessors: the last is quadratic, 55 s at 10,000 layers) and once per step of the path (a
    caller's clock check: it stops the walk by raising).
    """
    order = graph.topological_order()
    preds: dict[str, frozenset] = {}
    for n in order:
        if poll is not None:
            poll()
        s: set = set()
        for p in graph.in_edges[n]:
            s.add(p)
            s |= preds[p]
        preds[n] = frozenset(s)
    succs: dict[str, frozenset] = {}
    for n in reversed(order):
        if poll is not None:
            poll()
        s = set()
        for m in graph.edges.get(n, []):
            s.add(m)
            s |= succs[m]
        succs[n] = frozenset(s)

    # the predecessors of a whose outputs also feed a node outside a's closure: they stay "open"
    # when a is in the antichain (PipeDream's augment_antichain, computed once per node)
    def open_of(a: str) -> frozenset:
        if poll is not None:
            poll()
        return frozenset(p for p in preds[a]
                         if any(out not in preds[a] and out != a for out in graph.edges.get(p, [])))

    open_preds = {a: open_of(a) for a in order}
    augmented: dict[tuple, tuple[str, ...]] = {}

    def augment(antichain: tuple[str, ...]) -> tuple[str, ...]:
        if antichain not in augmented:
            extra = set().union(*(open_preds[a] for a in antichain))
            augmented[antichain] = tuple(sorted(extra)) + tuple(antichain)
        return augmented[antichain]

    def deaugment(nodes: list[str]) -> tuple[str, ...]:
        members = set(nodes)
        return tuple(sorted(n for n in nodes if not (succs[n] & members)))

    def closure(antichain: tuple[str, ...]) -> frozenset:
        s = set(antichain)
        for a in antichain:
            s |= preds[a]
        return frozenset(s)

    sources = [n for n in graph.nodes if not graph.in_edges[n]]
    full = frozenset(graph.nodes)
    state = (sources[0],)
    members = closure(state)
    chain = [(members, augment(state))]
    while members != full:
        if poll is not None:
            poll()
        aug = augment(state)
        inside = set(aug)
        options = []
        for a in aug:
            for b in graph.edges.get(a, []):
                if b in inside or (succs[b] & inside):
                    continue
                new = deaugment([b if x == a else x for x in aug])
                grown = closure(new)
                if grown > members:
                    options.append((len(grown) - len(members), new, grown))
        if not options:
            raise InvalidInstanceError("profile", "edges", "the layer graph is not connected from its first source "
                                       f"{sources[0]}: the antichain linearization cannot cover every node")
        _, state, members = min(options, key=lambda t: (t[0], t[1]))
        chain.append((members, augment(state)))
    return chain


def _strip_inputs(graph: LayerGraph, path: Path) -> None:
    """Remove the ``Input*`` sources (their time is data loading) and then the ``__getitem__``
    sinks (one pass), as PipeDream's planner does [code]; a graph left empty is invalid."""
    for n in [n for n in graph.nodes if not graph.in_edges[n] and graph.nodes[n]["desc"].startswith("Input")]:
        graph.remove(n)
    for n in [n for n in graph.nodes if not graph.edges.get(n) and graph.nodes[n]["desc"].startswith("__getitem__")]:
        graph.remove(n)
    if not graph.nodes:
        raise InvalidInstanceError("profile", "(file)", f"{path.name} has no layers besides inputs")


def load_pipedream_graph(path: str | Path, batch_size: float | None = None, *, name: str | None = None,
                         unknown_batch: float | None = None) -> Profile:
    """A PipeDream ``graph.txt`` as a :class:`Profile` on its antichain chain.

    As PipeDream's optimizer does [code], ``Input*`` source nodes are zeroed and removed (their
    time is data loading) and unused ``__getitem__`` sinks are dropped. ``batch_size`` defaults
    to the profiling batch of PipeDream's released profiles (:data:`PIPEDREAM_BATCH_SIZES`,
    looked up by the file or folder name); for any other file it is an error, unless
    ``unknown_batch`` is given: then that value is used and the provenance says the batch was
    unknown [ours] (``optsched import pipedream-profile`` passes 1: an instance whose microbatch
    is the profiling batch / M depends on the ratio only, not on the batch's size).
    """
    path = Path(path)
    graph = parse_pipedream_graph(read_text(path, "profile"), path.name)
    model = name or path.name.split(".")[0]
    if model in ("graph", "") and path.parent.name:
        model = path.parent.name
    note = ""
    if batch_size is None:
        if model in PIPEDREAM_BATCH_SIZES:
            batch_size = PIPEDREAM_BATCH_SIZES[model]
        elif unknown_batch is not None:
            batch_size = unknown_batch
            note = (f"; profiling batch unknown (not one of PipeDream's released profiles), taken as "
                    f"{unknown_batch:g}: sizes are in units of that batch [ours]")
        else:
            raise InvalidOptionError("profile", "batch_size", f"unknown profiling batch for {model!r}; pass it "
                                       f"explicitly (optsched import pipedream-profile FILE --batch-size N; "
                                       f"known: {', '.join(sorted(PIPEDREAM_BATCH_SIZES))})")
    _strip_inputs(graph, path)
    chain = antichain_chain(graph)
    names, fw, bw, par, act, stash = [], [], [], [], [], []
    previous: frozenset = frozenset()
    for members, augmented in chain:
        new = sorted(members - previous, key=lambda n: (int(re.sub(r"\D", "", n) or 0), n))
        names.append("+".join(new))
        fw.append(sum(graph.nodes[n]["forward_ms"] for n in new) / 1000.0)
        bw.append(sum(graph.nodes[n]["backward_ms"] for n in new) / 1000.0)
        par.append(sum(graph.nodes[n]["parameter"] for n in new))
        stash.append(sum(graph.nodes[n]["activation"] for n in new))
        act.append(sum(graph.nodes[n]["activation"] for n in augmented))
        previous = members
    return Profile(name=model, batch_size=float(batch_size), layer_names=tuple(names), forward_s=tuple(fw),
                   backward_s=tuple(bw), parameter_bytes=tuple(par), activation_bytes=tuple(act),
                   stash_bytes=tuple(stash), device="PipeDream profiler (one GPU)",
                   provenance=f"PipeDream graph.txt {path.name} (sha256 {sha256_file(path)}), antichain chain "
                              f"of {len(chain)} states from {len(graph.nodes)} layers{note}")


def known_profiles() -> dict[str, Path]:
    """Profiles that can be named instead of given as a path: ``models/<name>.json`` of the
    repository (the analytic profiles of ``optsched models``) as ``models/<name>``, and PipeDream's
    ``profiles/pipedream/<name>.graph.txt`` in the data directory as ``pipedream/<name>``; a bare
    ``<name>`` also names a profile when only one of the two folders has it."""
    from optsched.core.data import data_dir

    found: dict[str, Path] = {}
    models = Path(__file__).resolve().parents[2] / "models"
    if models.is_dir():
        found.update({f"models/{f.stem}": f for f in sorted(models.glob("*.json"))})
    root = data_dir()
    if root is not None and (root / "profiles" / "pipedream").is_dir():
        found.update({f"pipedream/{f.name[:-len('.graph.txt')]}": f
                      for f in sorted((root / "profiles" / "pipedream").glob("*.graph.txt"))})
    bare: dict[str, list[str]] = {}
    for qualified in found:
        bare.setdefault(qualified.split("/", 1)[1], []).append(qualified)
    return {**{n: found[q[0]] for n, q in bare.items() if len(q) == 1}, **found}


def resolve_profile(text: str | Path) -> Path:
    """The file of a profile given as a path or a name of :func:`known_profiles`; a typed error
    naming the known names otherwise (a bare name two folders share must be qualified)."""
    path = Path(text)
    try:
        exists = path.exists()
    except OSError:   # e.g. a name longer than the system allows: no such file, maybe a known name
        exists = False
    if exists:
        return path
    known = known_profiles()
    if str(text) in known:
        return known[str(text)]
    shared = sorted(q for q in known if "/" in q and q.split("/", 1)[1] == str(text))
    if shared:
        raise InvalidOptionError("profile", "profile", f"{str(text)!r} names several profiles; "
                                   f"say which: {', '.join(shared)}")
    names = sorted(known, key=lambda n: ("/" in n, n))
    raise InvalidOptionError("profile", "profile", f"{str(text)!r} is neither a file nor a known profile name "
                               f"(known: {', '.join(names) or 'none; set OPTSCHED_DATA_DIR for PipeDream profiles'})")


def load_pipedream_planner_graph(path: str | Path) -> tuple[LayerGraph, str]:
    """A PipeDream ``graph.txt`` as the layer DAG PipeDream's planner works on, and the model name.

    As ``optimizer_graph_hierarchical.py`` does [code], ``Input*`` sources are removed (their time
    is data loading) and then the ``__getitem__`` sinks (one pass). Node order is the file's.
    """
    path = Path(path)
    graph = parse_pipedream_graph(read_text(path, "profile"), path.name)
    model = path.name.split(".")[0]
    if model in ("graph", "") and path.parent.name:
        model = path.parent.name
    _strip_inputs(graph, path)
    return graph, model


def load_profile(path: str | Path) -> Profile:
    """A profile from optsched's JSON format, or from a PipeDream ``*.txt`` graph; ``path`` may
    also be a name of :func:`known_profiles` (``bert-large``, ``pipedream/vgg16``)."""
    path = resolve_profile(path)
    if path.suffix == ".txt":
        return load_pipedream_graph(path)
    doc = load_json_file(path, "profile")
    if isinstance(doc, dict) and doc.get("problem", Profile.problem) != Profile.problem:
        return _instance_profile(doc, path)   # an instance file (a chain-partition plan's) as a profile
    return Profile.from_json(doc)


def _instance_profile(doc: dict, path: Path) -> Profile:
    """The per-position arrays of an instance file that has them (a chain-partition plan's,
    :mod:`optsched.pipeline.partition.instance`, what ``optsched import pipedream-profile`` writes)
    as a profile at the instance's profiling batch."""
    fields = ("layer_names", "forward_s", "backward_s", "parameter_bytes", "activation_bytes", "stash_bytes")
    missing = [f for f in fields + ("profile_batch",) if f not in doc]
    if missing:
        raise InvalidInstanceError("profile", missing[0], f"{path.name}: an instance file without per-layer arrays")
    name = str(doc.get("name", path.stem)).split("@")[0] or path.stem
    try:
        return Profile(name=name, batch_size=float(doc["profile_batch"]),
                       **{f: tuple(doc[f]) for f in fields}, provenance=str(doc.get("provenance", "")))
    except TypeError as exc:
        raise InvalidInstanceError("profile", "(file)", f"{path.name}: {exc}") from None
