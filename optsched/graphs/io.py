"""Readers of data-graph files into a :class:`~optsched.graphs.Graph` (undirected, unit weights).

* :func:`read_planetoid_graph` -- ``ind.<name>.graph`` of kimiyoung/planetoid: a Python pickle of
  a ``collections.defaultdict(list)`` adjacency dict (protocol 2, Python-2 era). Read with a
  restricted unpickler that admits only ``collections.defaultdict``, ``list``, ``dict``, ``set``
  and ``int``, and numpy integer scalars (rebuilt as Python ints: dicts written from numpy arrays
  hold them) (never plain ``pickle.load``: a pickle can run arbitrary code); plain or gzip.
* :func:`read_index_file` -- one integer node id per line (``ind.<name>.test.index``).
* :func:`read_edge_list` -- a text edge list: one ``u v`` pair per line (whitespace, comma or
  tab separated; further columns ignored; ``#`` and ``%`` comment lines; an optional header
  line; MatrixMarket coordinate files), integer or string ids; plain or gzip.

Every reader raises :class:`ValueError` with the line or entry at fault; problem importers wrap it
into :class:`~optsched.core.errors.InvalidInstanceError`. Self-loops and repeated edges are merged
away (a self-loop is never cut; a repeated undirected edge is the same edge) and counted in the
returned :class:`GraphFile` so that importers can report them.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
>>> _ = open(path, "w").write("# toy\\n1 2\\n2 3\\n3 1\\n2 1\\n")
>>> gf = read_edge_list(path)
>>> gf.graph.num_nodes, gf.graph.num_edges, gf.duplicates, gf.labels
(3, 3, 1, ('1', '2', '3'))
"""

from __future__ import annotations

import io
import math
import pickle
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .record import Graph

__all__ = ["GraphFile", "read_planetoid_graph", "read_index_file", "read_edge_list", "simple_graph"]


@dataclass(frozen=True)
class GraphFile:
    """A graph read from a file: the simple undirected graph, the node labels as written (None
    when nodes are the integers ``0..n-1`` of the file), and what was merged away."""

    graph: Graph
    labels: tuple[str, ...] | None
    self_loops: int
    duplicates: int


def simple_graph(num_nodes: int, src, dst) -> tuple[Graph, int, int]:
    """The simple undirected unit-weight graph on the given endpoint pairs, with the number of
    self-loops and repeated pairs dropped."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    loops = int(np.sum(src == dst))
    keep = src != dst
    a, b = np.minimum(src[keep], dst[keep]), np.maximum(src[keep], dst[keep])
    key = np.unique(a * max(num_nodes, 1) + b)
    dup = int(keep.sum() - len(key))
    u, v = key // max(num_nodes, 1), key % max(num_nodes, 1)
    return Graph(num_nodes, u, v, np.ones(len(u))), loops, dup


_MAX_NODES = 1 << 31  # ids beyond this would overflow the int64 edge keys of simple_graph


class _RestrictedUnpickler(pickle.Unpickler):
    ALLOWED = {("collections", "defaultdict"), ("builtins", "list"), ("__builtin__", "list"),
               ("builtins", "dict"), ("__builtin__", "dict"), ("builtins", "int"), ("__builtin__", "int"),
               ("builtins", "set"), ("__builtin__", "set"), ("builtins", "frozenset"), ("__builtin__", "frozenset")}

    #: numpy integer scalars and their dtypes (a dict written from numpy arrays holds np.int64
    #: keys): rebuilt through numpy's own scalar reconstructor, which creates data only
    NUMPY = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"), ("numpy", "dtype")}

    def find_class(self, module, name):
        if (module, name) in self.ALLOWED:
            import builtins
            import collections

            return getattr(collections if module == "collections" else builtins, name)
        if (module, name) in self.NUMPY:
            if name == "dtype":
                return _integer_dtype
            return _integer_scalar
        if (module, name) == ("_codecs", "encode"):  # how protocol 2 writes a scalar's bytes
            return _latin1_bytes
        raise pickle.UnpicklingError(f"forbidden global {module}.{name} in a graph pickle")


def _latin1_bytes(text, encoding="latin1"):
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("a graph pickle may encode latin-1 bytes only")
    return text.encode("latin1")


def _integer_dtype(spec, *args):
    """``numpy.dtype`` for integer dtypes only (anything else is not a node id)."""
    dt = np.dtype(spec)
    if dt.kind not in "iu":
        raise pickle.UnpicklingError(f"a graph pickle may hold integer numpy scalars only, not {dt}")
    return dt


def _integer_scalar(dtype, data=None):
    """numpy's scalar reconstructor for an integer dtype, returned as a Python int."""
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu" or not isinstance(data, (bytes, str)):
        raise pickle.UnpicklingError("a graph pickle may hold integer numpy scalars only")
    raw = data.encode("latin1") if isinstance(data, str) else data
    if len(raw) != dtype.itemsize:
        raise pickle.UnpicklingError("a numpy scalar in the graph pickle has the wrong size")
    return int(np.frombuffer(raw, dtype=dtype)[0])


def read_planetoid_graph(path: str | Path, test_index: str | Path | None = None) -> tuple[GraphFile, np.ndarray | None]:
    """The graph of a planetoid ``ind.<name>.graph`` file, and the test node ids when
    ``test_index`` is given (nodes are the integers of the dict; ``n`` = 1 + the largest id seen
    in the dict, its lists or the test index, so isolated test nodes exist).
    """
    from optsched.core.errors import InvalidInstanceError
    from optsched.core.textfile import read_bytes

    path = Path(path)
    try:
        raw = read_bytes(path, "graph")  # plain or gzip
    except InvalidInstanceError as exc:
        raise ValueError(exc.rule) from None
    try:
        adj = _RestrictedUnpickler(io.BytesIO(raw), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError) as exc:
        raise ValueError(f"{path.name} is not a planetoid graph pickle: {exc}") from None
    if not isinstance(adj, dict):
        raise ValueError(f"{path.name}: the pickle holds a {type(adj).__name__}, not an adjacency dict")
    src, dst = [], []
    for u, nbrs in adj.items():
        if not isinstance(u, int) or u < 0:
            raise ValueError(f"{path.name}: node key {u!r} is not a non-negative integer")
        if not isinstance(nbrs, (list, tuple, set, frozenset)):
            raise ValueError(f"{path.name}: node {u}: neighbours must be a list, got {type(nbrs).__name__}")
        if isinstance(nbrs, (set, frozenset)):  # order-free: sorted for a deterministic edge order
            if not all(isinstance(v, int) for v in nbrs):
                raise ValueError(f"{path.name}: node {u}: neighbours must be non-negative integers")
            nbrs = sorted(nbrs)
        for v in nbrs:
            if not isinstance(v, int) or v < 0:
                raise ValueError(f"{path.name}: node {u}: neighbour {v!r} is not a non-negative integer")
            src.append(u)
            dst.append(v)
    test = read_index_file(test_index) if test_index is not None else None
    n = 1 + max([max(adj, default=-1), max(src + dst, default=-1), int(test.max()) if test is not None and
                 len(test) else -1])
    if n > _MAX_NODES:
        raise ValueError(f"{path.name}: node id {n - 1} implies {n} nodes (more than {_MAX_NODES}); "
                         "planetoid ids are 0..n-1")
    graph, loops, _ = simple_graph(n, src, dst)
    # an undirected edge normally appears in both endpoints' lists: count repeats within a list only
    s, d = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    dup = int(len(s) - len(np.unique(s * max(n, 1) + d)))
    return GraphFile(graph, None, loops, dup), test


def read_index_file(path: str | Path) -> np.ndarray:
    """Non-negative integers, one per line (blank lines ignored)."""
    path = Path(path)
    text = _text(path)
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if not re.fullmatch(r"\d+", line):
            raise ValueError(f"{path.name} line {lineno}: {line!r} is not a non-negative integer")
        out.append(int(line))
    return np.asarray(out, dtype=np.int64)


def _text(path: Path) -> str:
    """The file as text (plain or gzip, any line endings), errors as :class:`ValueError`."""
    from optsched.core.errors import InvalidInstanceError
    from optsched.core.textfile import read_text

    try:
        return read_text(path, "graph")
    except InvalidInstanceError as exc:
        raise ValueError(exc.rule) from None


def read_edge_list(path: str | Path) -> GraphFile:
    """A text edge list as a simple undirected graph.

    Ids that are all non-negative integers keep their order (relabelled ``0..n-1`` by rank, labels
    kept); otherwise nodes are numbered in order of first appearance. The file may be gzipped.
    A first line whose two ids are not integers while every later line's are is a column header
    (``source,target``) and is skipped. A MatrixMarket coordinate file (``%%MatrixMarket`` first
    line) has its size line ``rows cols entries`` read as such: nodes are ``1..rows`` (isolated
    ones included), the entry count is checked.
    """
    path = Path(path)
    text = _text(path)
    lines = text.splitlines()
    matrix_market = bool(lines) and lines[0].lstrip().lower().startswith("%%matrixmarket")
    pairs, where = [], []
    for lineno, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line[0] in "#%":
            continue
        fields = [f for f in re.split(r"[\s,;]+", line) if f]
        if len(fields) < 2:
            raise ValueError(f"{path.name} line {lineno}: expected two node ids, got {line!r}")
        pairs.append((fields[0], fields[1]))
        where.append((lineno, fields))
    if matrix_market:
        return _matrix_market(path, where)
    if len(pairs) > 1 and not all(re.fullmatch(r"\d+", s) for s in pairs[0]) and \
            all(re.fullmatch(r"\d+", s) for p in pairs[1:] for s in p):
        pairs, where = pairs[1:], where[1:]  # a header line
    if not pairs:
        raise ValueError(f"{path.name}: no edges")
    _check_edge_lines(path, where)
    names = [a for p in pairs for a in p]
    if all(re.fullmatch(r"\d+", s) for s in names):
        ids = sorted({int(s) for s in names})  # "007" and "7" are the same node
        by_int = {i: k for k, i in enumerate(ids)}
        src = [by_int[int(a)] for a, _ in pairs]
        dst = [by_int[int(b)] for _, b in pairs]
        labels = tuple(str(i) for i in ids)
    else:
        index: dict[str, int] = {}
        for s in names:
            index.setdefault(s, len(index))
        src = [index[a] for a, _ in pairs]
        dst = [index[b] for _, b in pairs]
        labels = tuple(index)
    graph, loops, dup = simple_graph(len(labels), src, dst)
    return GraphFile(graph, labels, loops, dup)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_edge_lines(path: Path, rows: list) -> None:
    """Every data line of an edge list, named by its number when malformed: ids are all
    non-negative integers or all names (a negative, fractional, NaN or infinite id, or a name in a
    file of integer ids, is an error, never a new node), and a value column (a weight, a time) is a
    finite number >= 0 (read, not used)."""
    integer_ids = all(re.fullmatch(r"\d+", x) for x in rows[0][1][:2])
    for lineno, fields in rows:
        for x in fields[:2]:
            if re.fullmatch(r"\d+", x):
                if not integer_ids:
                    raise ValueError(f"{path.name} line {lineno}: node id {x!r} is an integer in a file of named "
                                     "nodes")
            elif integer_ids or _looks_numeric(x):
                raise ValueError(f"{path.name} line {lineno}: node id {x!r} is not a non-negative integer")
        for x in fields[2:]:
            if not _looks_numeric(x) or not (math.isfinite(float(x)) and float(x) >= 0):
                raise ValueError(f"{path.name} line {lineno}: value {x!r} must be a finite number >= 0")


def _matrix_market(path: Path, rows: list) -> GraphFile:
    """A MatrixMarket coordinate file's pattern as a graph on nodes ``1..n`` (``n`` = rows = cols)."""
    if not rows:
        raise ValueError(f"{path.name}: MatrixMarket file without a size line")
    lineno, size = rows[0]
    if len(size) != 3 or not all(re.fullmatch(r"\d+", x) for x in size):
        raise ValueError(f"{path.name} line {lineno}: the MatrixMarket size line must be 'rows cols entries'")
    n, cols, entries = (int(x) for x in size)
    if n != cols:
        raise ValueError(f"{path.name} line {lineno}: a graph's matrix must be square, got {n} x {cols}")
    if len(rows) - 1 != entries:
        raise ValueError(f"{path.name}: the size line announces {entries} entries, the file has {len(rows) - 1}")
    src, dst = [], []
    for lineno, fields in rows[1:]:
        for x in fields[:2]:
            if not re.fullmatch(r"\d+", x) or not 1 <= int(x) <= n:
                raise ValueError(f"{path.name} line {lineno}: node id {x!r} is not in 1..{n}")
        src.append(int(fields[0]) - 1)
        dst.append(int(fields[1]) - 1)
    if n < 1:
        raise ValueError(f"{path.name}: no nodes")
    graph, loops, dup = simple_graph(n, src, dst)
    return GraphFile(graph, tuple(str(i) for i in range(1, n + 1)), loops, dup)
