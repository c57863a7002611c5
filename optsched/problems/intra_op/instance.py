"""The intra-operator sharding instance (flat arrays) and its authoritative checker.

Objective (authoritative; ``optsched/problems/intra_op/README.md`` and the IOPDDL contest's ``Evaluate``
[code: google/iopddl iopddl.cc]): choose one strategy ``s_v`` per node v to minimize

    sum_v cost[v][s_v] + sum_{e=(u,v)} edge_cost[e][s_u, s_v]

subject to, at every integer time t, ``sum_{v : start_v <= t < end_v} usage[v][s_v] <= usage_limit``.
A cost >= :data:`FORBIDDEN` (the contest's 1e18 sentinels) marks a forbidden choice [ours: the
contest adds the sentinel to the score; optsched treats it as a constraint, which only removes
solutions the contest scores at 1e18 or more].

Storage [ours]: every per-strategy number lives in one flat float64 array with offsets, so a
35k-node instance with 6 million edge-cost entries is a handful of numpy arrays (no Python object
per strategy). The JSON form is the same flat arrays; :meth:`IntraOpInstance.from_dict` converts
them with numpy directly instead of the generic per-element conversion of
:mod:`optsched.core.instance` (which would build millions of Python floats).

Solution schema: ``{"strategy": [s_0, ..., s_{n-1}]}``; the checker also accepts the contest's
bare list ``[s_0, ..., s_{n-1}]``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import weakref
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import MAX_INTEGER, MAX_MAGNITUDE, Instance
from optsched.core.registry import CheckReport

__all__ = ["IntraOpInstance", "check", "plan_cost", "peak_usage", "usage_profile", "FORBIDDEN",
           "OBJECTIVE", "SOLUTION_SCHEMA", "solution_vector"]

#: costs at or above this are forbidden choices [ours; the contest's sentinel is 1e18; the
#: model creates no column of cost >= 1e15]
FORBIDDEN = 1e15

#: relative slack of the memory check: float rounding of summed usages only (see ``check``)
MEMORY_RTOL = 1e-9

OBJECTIVE = ("minimize sum_v cost[v][s_v] + sum_(u,v) edge_cost[(u,v)][s_u, s_v]  s.t. at every time t "
             "sum_{v live at t} usage[v][s_v] <= usage_limit; costs >= 1e15 are forbidden")
#: the objective's unit, printed after its value by ``optsched solve`` (the instance's own cost unit (the
#: contest's costs have none))
OBJECTIVE_UNIT = "cost units"
SOLUTION_SCHEMA = '{"strategy": [strategy index per node, ...]} (or the contest\'s bare list)'

_ARRAYS = {  # field -> (dtype, rule)
    "num_strategies": (np.int64, "strategy counts"),
    "cost": (np.float64, "node costs"),
    "usage": (np.float64, "node usages"),
    "start": (np.int64, "interval starts"),
    "end": (np.int64, "interval ends"),
    "edge_u": (np.int64, "edge tails"),
    "edge_v": (np.int64, "edge heads"),
    "edge_cost": (np.float64, "edge costs"),
}


#: every array an instance holds (read-only), by id: another instance made from it (``dataclasses.replace``,
#: a priced copy) shares it instead of copying it (a 10^8-entry edge-cost array is 0.8 GB a copy)
_HELD: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()


class _Adopt:
    """An array handed over by a reader that keeps no other reference to it (a fresh 1-D array):
    the instance takes it, made read-only, instead of copying it (a 10^8-entry array is 0.8 GB)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


class _Shared:
    """An array the caller keeps but never writes while the instance lives (e.g. the elimination
    core's flat edge costs, which a core instance takes as its edge costs): the instance holds a
    read-only view of it instead of a copy (a 1.45e8-entry array is 1.2 GB)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


def _as_array(problem: str, name: str, value, dtype) -> np.ndarray:
    if type(value) is _Shared:
        arr = value.array
        if arr.dtype == dtype and arr.ndim == 1 and arr.flags.c_contiguous:
            view = arr.view()
            view.setflags(write=False)
            _HELD[id(view)] = view
            return view
        value = arr
    if type(value) is _Adopt:
        arr = value.array
        if arr.dtype == dtype and arr.ndim == 1 and arr.flags.c_contiguous and arr.base is None:
            arr.setflags(write=False)
            _HELD[id(arr)] = arr
            return arr
        value = arr
    if type(value) is np.ndarray and _HELD.get(id(value)) is value and value.dtype == dtype \
            and not value.flags.writeable:
        return value    # another instance's read-only array: shared
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise InvalidInstanceError(problem, name, "must be a list of numbers", type(value).__name__)
    if isinstance(value, list) and any(type(x) is bool for x in value):
        # numpy would read true / false as 1 / 0 without a word
        raise InvalidInstanceError(problem, name, "must hold numbers (not true or false)")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidInstanceError(problem, name, f"must be a flat list of numbers ({exc})") from None
    if raw.ndim != 1:
        raise InvalidInstanceError(problem, name, "must be a flat list of numbers", f"shape {raw.shape}")
    if raw.size and raw.dtype.kind == "O" and all(isinstance(x, int) and not isinstance(x, bool) for x in raw):
        bad = next((i for i, x in enumerate(raw) if abs(x) > MAX_INTEGER), 0)  # past int64: numpy keeps objects
        raise InvalidInstanceError(problem, f"{name}[{bad}]", f"magnitude must be at most 2^53 = {MAX_INTEGER}",
                                   int(raw[bad]))
    if raw.size and raw.dtype.kind not in "iuf":
        raise InvalidInstanceError(problem, name, "must hold numbers", str(raw.dtype))
    if dtype is np.int64 and raw.size:
        # [ours] an integer field holds integers of magnitude at most 2^53 (the core's MAX_INTEGER):
        # a float such as 1e308 or an unsigned 2^64 - 1 would wrap in the int64 cast; the error
        # names the first such entry with the value given, before any cast
        if raw.dtype.kind == "f":
            whole = np.isfinite(raw) & (raw == np.round(raw))
            bad = np.flatnonzero(~whole)
            if bad.size:
                i = int(bad[0])
                raise InvalidInstanceError(problem, f"{name}[{i}]", "must be an integer",
                                           value[i] if isinstance(value, (list, tuple)) else raw[i].item())
        if raw.max() > MAX_INTEGER or raw.min() < -MAX_INTEGER:   # no temporary array unless one is out
            big = np.flatnonzero((raw > MAX_INTEGER) | (raw < -MAX_INTEGER))
            i = int(big[0])
            # the value as given (a list mixing 2^64 - 1 with small ints is a float array to numpy)
            got = value[i] if isinstance(value, (list, tuple)) else raw[i].item()
            raise InvalidInstanceError(problem, f"{name}[{i}]", f"magnitude must be at most 2^53 = {MAX_INTEGER}", got)
    arr = np.array(raw, dtype=dtype, copy=True)
    arr.setflags(write=False)
    _HELD[id(arr)] = arr
    return arr


#: entries per pass of the chunked check below (its masks: 4 MB at a time, where one pass over a
#: 1.45e8-entry array would allocate three masks of 145 MB)
_CHUNK = 1 << 22


def _first_negative_or_nonfinite(arr: np.ndarray) -> int | None:
    """The first index whose value is negative, NaN, infinite or above the core's largest magnitude
    :data:`~optsched.core.instance.MAX_MAGNITUDE` (a plan's cost and peak memory are sums of up to
    millions of such entries: 1e308 each overflows them) (None if none), chunk by chunk."""
    for lo in range(0, arr.size, _CHUNK):
        seg = arr[lo:lo + _CHUNK]
        bad = np.flatnonzero(~(seg <= MAX_MAGNITUDE) | (seg < 0))
        if bad.size:
            return lo + int(bad[0])
    return None


@dataclass(frozen=True, eq=False)
class IntraOpInstance(Instance):
    """n nodes with candidate strategies, live intervals, pairwise edge costs and a memory limit.

    * ``num_strategies[v] = k_v >= 1``; node v's strategies are ``cost[off[v]:off[v+1]]`` and
      ``usage[off[v]:off[v+1]]`` with ``off = [0, cumsum(k)]``.
    * ``start[v] <= end[v]``: v is live at the integer times ``start[v] <= t < end[v]`` (an empty
      interval uses no memory).
    * edge e joins ``edge_u[e] != edge_v[e]``; its ``k_u x k_v`` matrix is stored row-major in
      ``edge_cost`` (edge offsets from the products ``k_u k_v``). Parallel edges add up.
    * ``usage_limit`` None: no memory constraint (the contest's optional field).
    * ``labels``: optional strategy names (flat, one per strategy; generated instances name their
      SBP signatures, e.g. ``"S(0)"``, ``"B,S(1)"``); empty for imported ones.

    >>> inst = IntraOpInstance(num_strategies=[2, 2], cost=[1, 3, 2, 1], usage=[1, 1, 2, 1],
    ...                        start=[0, 0], end=[1, 1], edge_u=[0], edge_v=[1],
    ...                        edge_cost=[0, 5, 5, 0], usage_limit=2)
    >>> check(inst, {"strategy": [0, 1]}).objective, check(inst, [0, 0]).feasible
    (7.0, False)
    """

    problem = "intra-op"
    num_strategies: Any
    cost: Any
    usage: Any
    start: Any
    end: Any
    edge_u: Any
    edge_v: Any
    edge_cost: Any
    usage_limit: float | None = None
    labels: tuple[str, ...] = ()
    name: str = ""
    provenance: str = ""

    def __post_init__(self):
        for name, (dtype, _) in _ARRAYS.items():
            object.__setattr__(self, name, _as_array(self.problem, name, getattr(self, name), dtype))
        super().__post_init__()

    def validate(self) -> None:
        k, n = self.num_strategies, len(self.num_strategies)
        self.require(n >= 1, "num_strategies", "must list at least one node", n)
        bad = np.flatnonzero(k < 1)
        self.require(bad.size == 0, f"num_strategies[{bad[0] if bad.size else 0}]", "must be >= 1",
                     int(k[bad[0]]) if bad.size else None)
        total = int(k.sum())
        for name in ("cost", "usage"):
            self.require(len(getattr(self, name)) == total, name,
                         f"must have sum(num_strategies) = {total} entries", len(getattr(self, name)))
        for name in ("start", "end"):
            self.require(len(getattr(self, name)) == n, name, f"must have one entry per node ({n})",
                         len(getattr(self, name)))
        for name in ("cost", "usage", "edge_cost"):
            arr = getattr(self, name)
            bad = _first_negative_or_nonfinite(arr)
            self.require(bad is None, f"{name}[{bad or 0}]", f"must be >= 0 and at most {MAX_MAGNITUDE:g}",
                         float(arr[bad]) if bad is not None else None)
        bad = np.flatnonzero((self.start < 0) | (self.end < self.start))
        self.require(bad.size == 0, f"end[{bad[0] if bad.size else 0}]", "intervals need 0 <= start <= end",
                     (int(self.start[bad[0]]), int(self.end[bad[0]])) if bad.size else None)
        m = len(self.edge_u)
        self.require(len(self.edge_v) == m, "edge_v", f"must have one entry per edge ({m})", len(self.edge_v))
        for name in ("edge_u", "edge_v"):
            arr = getattr(self, name)
            bad = np.flatnonzero((arr < 0) | (arr >= n))
            self.require(bad.size == 0, f"{name}[{bad[0] if bad.size else 0}]", f"must be a node index 0..{n - 1}",
                         int(arr[bad[0]]) if bad.size else None)
        loops = np.flatnonzero(self.edge_u == self.edge_v)
        self.require(loops.size == 0, f"edge_v[{loops[0] if loops.size else 0}]", "an edge must join two distinct nodes")
        need = int((k[self.edge_u] * k[self.edge_v]).sum()) if m else 0
        self.require(len(self.edge_cost) == need, "edge_cost",
                     f"must have sum over edges of k_u * k_v = {need} entries", len(self.edge_cost))
        if self.usage_limit is not None:
            self.require(0 <= self.usage_limit <= MAX_MAGNITUDE, "usage_limit",
                         f"must be >= 0 and at most {MAX_MAGNITUDE:g}", self.usage_limit)
        self.require(len(self.labels) in (0, total), "labels", f"must be empty or have {total} entries",
                     len(self.labels))

    # -- JSON: flat arrays, converted by numpy ----------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, path: str = "", problem: str | None = None) -> "IntraOpInstance":
        problem = problem or cls.problem
        if not isinstance(data, dict):
            raise InvalidInstanceError(problem, "(top level)", "must be a JSON object", type(data).__name__)
        names = {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
        for key in data:
            if key not in names:
                raise InvalidInstanceError(problem, key, "unknown field")
        for key in _ARRAYS:
            if key not in data:
                raise InvalidInstanceError(problem, key, "missing")
        kwargs = {k: data[k] for k in _ARRAYS}
        limit = data.get("usage_limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
            raise InvalidInstanceError(problem, "usage_limit", "must be a number or null", limit)
        if limit is not None and not -MAX_MAGNITUDE <= limit <= MAX_MAGNITUDE:   # also 10**400: no OverflowError
            raise InvalidInstanceError(problem, "usage_limit", f"must be >= 0 and at most {MAX_MAGNITUDE:g}", limit)
        kwargs["usage_limit"] = None if limit is None else float(limit)
        labels = data.get("labels", [])
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise InvalidInstanceError(problem, "labels", "must be a list of strings")
        kwargs["labels"] = tuple(labels)
        for key in ("name", "provenance"):
            value = data.get(key, "")
            if not isinstance(value, str):
                raise InvalidInstanceError(problem, key, "must be a string", value)
            kwargs[key] = value
        return cls(**kwargs)

    def to_dict(self) -> dict:
        out = {name: getattr(self, name).tolist() for name in _ARRAYS}
        out.update(usage_limit=self.usage_limit, labels=list(self.labels), name=self.name,
                   provenance=self.provenance)
        return out

    def dumps(self, indent: int | None = None) -> str:
        """JSON text; with ``indent`` one field per line (arrays stay on their line: a per-number
        indent of a 6-million-entry array would take the pure-Python encoder minutes). The arrays
        are written by ``orjson`` straight from numpy when it is installed (no Python float per
        entry: a 10^8-entry instance in seconds) [ours]; ``json.loads`` reads back the same values."""
        return "".join(self.json_chunks(indent))

    def json_chunks(self, indent: int | None = None):
        """The text of :meth:`dumps` in pieces of at most a few MB (how the command line writes a
        large instance to a file without holding its whole text)."""
        data = {"format_version": self.format_version, "problem": self.problem, **self._scalars()}
        order = ["format_version", "problem", *_ARRAYS, *list(data)[2:]]
        sep = ", " if indent is None else ",\n" + " " * indent
        yield "{" if indent is None else "{\n" + " " * indent
        for i, key in enumerate(order):
            yield (sep if i else "") + json.dumps(key) + ": "
            if key in _ARRAYS:
                yield from _array_json(getattr(self, key))
            else:
                yield json.dumps(data[key], allow_nan=False)
        yield "}" if indent is None else "\n}"

    def save(self, path, *, sidecar: bool = False) -> None:
        """Write the instance as JSON (:meth:`json_chunks`, piece by piece: no Python number per
        array entry); ``sidecar=True`` as :meth:`Instance.save` (the sidecar's encoder needs the
        lists)."""
        if sidecar:
            return super().save(path, sidecar=True)
        from optsched.core.atomic import atomic_open
        from optsched.core.sidecar import sidecar_path

        with atomic_open(path, "w") as fh:
            for piece in self.json_chunks(indent=1):
                fh.write(piece)
            fh.write("\n")
        sidecar_path(path).unlink(missing_ok=True)   # a stale sidecar would no longer match
        return None

    def _scalars(self) -> dict:
        return {"usage_limit": self.usage_limit, "labels": list(self.labels), "name": self.name,
                "provenance": self.provenance}

    @classmethod
    def load_fast(cls, path) -> "IntraOpInstance | None":
        """The instance in a stored JSON file, read block-wise (:func:`.iopddl_io.read_stored_fast`:
        the same data as ``json.loads`` gives, long lists as numpy arrays, then :meth:`from_json`);
        None when the fast path does not handle the file (a result record, another layout): the
        caller reads it the generic way, which names what is wrong [ours]."""
        from pathlib import Path

        from optsched.core.textfile import read_raw

        from .iopddl_io import read_stored_fast

        if not Path(path).is_file():   # a pipe is read once, by the generic reader
            return None
        data = read_stored_fast(read_raw(path, cls.problem), _ARRAYS, _Adopt)
        if data is None or "format_version" not in data or "method" in data:
            return None
        return cls.from_json(data)

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (all(np.array_equal(getattr(self, k), getattr(other, k)) for k in _ARRAYS)
                and (self.usage_limit, self.labels, self.name, self.provenance)
                == (other.usage_limit, other.labels, other.name, other.provenance))

    __hash__ = object.__hash__

    def sha256(self) -> str:
        """The core's instance hash (SHA-256 of the canonical JSON,
        :func:`optsched.core.instance.canonical_json`), the same bytes built faster [ours]: the
        arrays' text is made block by block (:func:`.iopddl_io.array_json_chunks`: integers and
        integral floats by compiled integer formatting, other floats by ``repr`` of their distinct
        values) and fed to the hash as it is made, never one giant string (A: 1.9 s -> 0.3 s).
        Arrays the shortcut cannot render byte for byte (a non-finite value, a negative zero)
        take the generic path; tests compare both on generated and imported instances."""
        import hashlib

        from .iopddl_io import NotCanonical

        cached = self.__dict__.get("_sha256")
        if cached is None:
            h = hashlib.sha256()
            try:
                for piece in _canonical_chunks(self):
                    h.update(piece)
            except NotCanonical:
                return super().sha256()
            cached = h.hexdigest()
            object.__setattr__(self, "_sha256", cached)
        return cached

    # -- derived views ----------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return len(self.num_strategies)

    @property
    def num_edges(self) -> int:
        return len(self.edge_u)

    @cached_property
    def offsets(self) -> np.ndarray:
        """``off[v]``: index of node v's first strategy in the flat arrays (length n + 1)."""
        return np.concatenate([[0], np.cumsum(self.num_strategies)]).astype(np.int64)

    @cached_property
    def edge_offsets(self) -> np.ndarray:
        """Index of edge e's first matrix entry in ``edge_cost`` (length m + 1)."""
        k = self.num_strategies
        return np.concatenate([[0], np.cumsum(k[self.edge_u] * k[self.edge_v])]).astype(np.int64)

    def node_costs(self, v: int) -> np.ndarray:
        return self.cost[self.offsets[v]:self.offsets[v + 1]]

    def node_usages(self, v: int) -> np.ndarray:
        return self.usage[self.offsets[v]:self.offsets[v + 1]]

    def edge_matrix(self, e: int) -> np.ndarray:
        """Edge e's ``k_u x k_v`` cost matrix (a read-only view)."""
        k = self.num_strategies
        a, b = self.edge_offsets[e], self.edge_offsets[e + 1]
        return self.edge_cost[a:b].reshape(k[self.edge_u[e]], k[self.edge_v[e]])

    @property
    def has_memory_limit(self) -> bool:
        return self.usage_limit is not None

    @property
    def horizon(self) -> int:
        return int(self.end.max()) if self.num_nodes else 0

    @property
    def search_space_size(self) -> float:
        """prod_v k_v (as a float: it overflows integers quickly)."""
        return float(np.exp(np.log(self.num_strategies.astype(float)).sum()))

    def label(self, v: int, s: int) -> str:
        return self.labels[self.offsets[v] + s] if self.labels else str(s)


def solution_vector(instance: IntraOpInstance, solution) -> tuple[np.ndarray | None, list[str]]:
    """The strategy vector of a solution (dict or bare list), or None and what is wrong."""
    if isinstance(solution, dict):
        if set(solution) != {"strategy"}:
            return None, ['solution must be an object {"strategy": [...]} or a bare list']
        solution = solution["strategy"]
    if not isinstance(solution, (list, tuple)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in solution):
        return None, ["strategy must be a list of integer strategy indices"]
    n = instance.num_nodes
    if len(solution) != n:
        return None, [f"strategy has {len(solution)} entries for {n} nodes"]
    s = np.asarray(solution, dtype=np.int64)
    bad = np.flatnonzero((s < 0) | (s >= instance.num_strategies))
    if bad.size:
        return None, [f"node {v}: strategy {int(s[v])} out of range 0..{int(instance.num_strategies[v]) - 1}"
                      for v in bad[:20]]
    return s, []


def usage_profile(instance: IntraOpInstance, s: np.ndarray) -> np.ndarray:
    """Total usage at every integer time 0..horizon-1 of the plan ``s`` (a difference array)."""
    u = instance.usage[instance.offsets[:-1] + s]
    diff = np.zeros(instance.horizon + 1)
    np.add.at(diff, instance.start, u)
    np.add.at(diff, instance.end, -u)
    return np.cumsum(diff)[:-1]


def peak_usage(instance: IntraOpInstance, s: np.ndarray) -> float:
    prof = usage_profile(instance, s)
    return float(prof.max()) if prof.size else 0.0


def _array_json(arr: np.ndarray, block: int = 1 << 21):
    """An array as JSON text in pieces (``orjson`` from numpy when installed, else ``json.dumps``)."""
    from optsched.core.jsonfile import _orjson

    orjson = _orjson()
    if orjson is None or not arr.size:
        yield json.dumps(arr.tolist(), allow_nan=False)
        return
    yield "["
    for a in range(0, arr.size, block):
        text = orjson.dumps(np.ascontiguousarray(arr[a:a + block]), option=orjson.OPT_SERIALIZE_NUMPY)
        yield ("," if a else "") + text[1:-1].decode()
    yield "]"


def _canonical_chunks(inst: IntraOpInstance):
    """The canonical JSON of ``inst.to_json()`` (sorted keys, no spaces) as a sequence of bytes;
    :class:`.iopddl_io.NotCanonical` where the block-wise array text cannot be exact."""
    from .iopddl_io import array_json_chunks

    data = {"format_version": inst.format_version, "problem": inst.problem, **inst._scalars()}
    yield b"{"
    for i, key in enumerate(sorted([*data, *_ARRAYS])):
        yield (b"," if i else b"") + json.dumps(key).encode() + b":"
        if key in _ARRAYS:
            yield from array_json_chunks(getattr(inst, key))
        else:
            yield json.dumps(data[key], sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
    yield b"}"


def _canonical_text(inst: IntraOpInstance) -> str | None:
    """The canonical JSON of ``inst.to_json()`` as one string, or None (see above)."""
    from .iopddl_io import NotCanonical

    try:
        return b"".join(_canonical_chunks(inst)).decode()
    except NotCanonical:
        return None


def plan_cost(instance: IntraOpInstance, s: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(total cost, chosen node costs, chosen edge costs) of the strategy vector ``s``."""
    node = instance.cost[instance.offsets[:-1] + s]
    k = instance.num_strategies
    if instance.num_edges:
        idx = instance.edge_offsets[:-1] + s[instance.edge_u] * k[instance.edge_v] + s[instance.edge_v]
        edge = instance.edge_cost[idx]
    else:
        edge = np.zeros(0)
    return float(math.fsum(node.tolist()) + math.fsum(edge.tolist())), node, edge


def check(instance: IntraOpInstance, solution) -> CheckReport:
    """Verify a plan from the instance alone: its total cost, forbidden choices, and the memory
    at every integer time step (exactly the contest's ``Evaluate``, with sentinels as violations).
    Sums are exact (``math.fsum``)."""
    s, errors = solution_vector(instance, solution)
    if s is None:
        return CheckReport(False, None, errors)
    total, node, edge = plan_cost(instance, s)
    violations = []
    for v in np.flatnonzero(node >= FORBIDDEN)[:20]:
        violations.append(f"node {v}: strategy {int(s[v])} is forbidden (cost {node[v]:g})")
    for e in np.flatnonzero(edge >= FORBIDDEN)[:20]:
        u, v = int(instance.edge_u[e]), int(instance.edge_v[e])
        violations.append(f"edge {e} ({u}, {v}): strategy pair ({int(s[u])}, {int(s[v])}) is forbidden "
                          f"(cost {edge[e]:g})")
    peak = 0.0
    if instance.num_nodes:
        prof = usage_profile(instance, s)
        peak = float(prof.max()) if prof.size else 0.0
        if instance.usage_limit is not None:
            # the profile is a cumulative float sum of at most 2n terms: its relative rounding
            # error is below 2n * 1.1e-16 (< 1e-10 for n < 4e5); integer data (IOPDDL) is exact
            over = np.flatnonzero(prof > instance.usage_limit * (1 + MEMORY_RTOL))
            if over.size:
                t = int(over[np.argmax(prof[over])])
                violations.append(f"memory: usage {prof[t]:g} at time {t} exceeds the limit "
                                  f"{instance.usage_limit:g} ({over.size} time step(s) over)")
    return CheckReport.from_violations(violations, total, peak_usage=peak,
                                       forbidden_choices=int((node >= FORBIDDEN).sum() + (edge >= FORBIDDEN).sum()))
