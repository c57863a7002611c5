"""Fast, low-memory reading and hashing of large ``intra-op`` files [ours].

Two readers share one structural scan of the file's bytes:

* :func:`read_iopddl_fast` reads an IOPDDL contest file (``{"problem": {"nodes": ...,
  "edges": ...}}``, nested lists);
* :func:`read_stored_fast` reads the flat-array JSON that :meth:`IntraOpInstance.dumps` writes.

How: the bytes are scanned in blocks for the structural characters (``[ ] { }`` outside strings;
quotes with their escapes), a C-speed ``bytes.translate`` and ``np.flatnonzero`` per block. A list
of lists of scalars (a *matrix*: every node's costs, every edge's matrix) and a long flat list are
cut out of the text; what remains (the keys, the name, the usage limit: a few hundred bytes) is
parsed by :func:`json.loads`. Every cut-out list must then be read (one under a repeated or an
unknown key, which the reader does not use, sends the file to ``json.loads``, which checks every
byte). A cut-out list is read by

* the compiled scan (:func:`_scan`, numba): the JSON grammar of numbers, commas, rows and white
  space, byte by byte, no Python object per number. A value is made exactly where that is
  plainly exact (an integer within int64, converted as ``float(int)``; a decimal of at most 15
  significant digits times a power of ten within 22, by one correctly rounded multiplication or
  division, the classic exact case [reconstruction: Clinger 1990, "How to read floating point
  numbers accurately", PLDI]) and by ``float()`` of the token's text otherwise, which is what
  ``json.loads`` does; or, when the scan meets anything else (``true``, ``null``, a string, an
  integer beyond int64 where one is required),
* ``orjson`` in blocks of about 16 MB of whole rows (or, for a flat list, of whole numbers), each
  block turned into numpy at once, so no more than one block's Python numbers exist at any time;
  the text between blocks is checked by hand (only white space and one comma).

Either way the numbers are the ones ``json.loads`` gives, converted to numpy by the same rules
as the ``json.loads`` readers (``np.fromiter`` of Python numbers; ``np.asarray``'s typing of a
flat list: int64 when every value is an int, else float64), so the instance is the same, bit for
bit; the tests run both paths.

Anything the fast path does not expect (another layout, a wrong type, a stray comma) makes it
return None, and the caller falls back to the ``json.loads`` reader, which gives its typed error
naming the field, or the same instance, only more slowly. The fast path therefore never decides
that a file is invalid.

:func:`array_json_chunks` writes an array's canonical JSON text in blocks (one compiled pass:
integers and integral floats below 1e16 by integer arithmetic, other floats from a table of
their ``repr``): what :meth:`IntraOpInstance.sha256` hashes, without one giant string.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any, Iterator

import numpy as np

from optsched.core.jit import HAVE_NUMBA, njit
from optsched.core.jsonfile import unique_keys

__all__ = ["read_iopddl_fast", "read_stored_fast", "array_json_chunks", "structure", "BLOCK_BYTES",
           "NotCanonical"]

#: text of one orjson call (whole rows, or whole numbers of a flat list), and of one scan block
BLOCK_BYTES = 1 << 24
SCAN_BYTES = 1 << 26
#: a leaf list longer than this (bytes of text) is cut out of the skeleton and read in blocks
FLAT_MIN_BYTES = 1 << 12

_QUOTE, _BACKSLASH, _OPEN, _CLOSE, _OBRACE, _CBRACE = 1, 2, 3, 4, 5, 6
_TABLE = bytearray(256)
for _ch, _code in ((b'"', _QUOTE), (b"\\", _BACKSLASH), (b"[", _OPEN), (b"]", _CLOSE), (b"{", _OBRACE),
                   (b"}", _CBRACE)):
    _TABLE[_ch[0]] = _code
_TABLE = bytes(_TABLE)
_WHITE = b" \t\n\r"
_BOM = b"\xef\xbb\xbf"


class _Fallback(Exception):
    """The fast path does not handle this input: use the ``json.loads`` reader."""


def _orjson():
    from optsched.core.jsonfile import _orjson as load

    return load()


# -- the structural scan ------------------------------------------------------------------------
def structure(buf: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Positions and codes (3 ``[``, 4 ``]``, 5 ``{``, 6 ``}``) of the structural characters of
    the JSON text ``buf`` that lie outside strings. Raises :class:`_Fallback` on an odd number of
    unescaped quotes."""
    pos, code = [], []
    for a in range(0, len(buf), SCAN_BYTES):
        c = np.frombuffer(buf[a:a + SCAN_BYTES].translate(_TABLE), dtype=np.uint8)
        p = np.flatnonzero(c)
        pos.append(p + a)
        code.append(c[p])
        del c
    pos = np.concatenate(pos) if pos else np.zeros(0, np.int64)
    code = np.concatenate(code) if code else np.zeros(0, np.uint8)
    quotes = pos[code == _QUOTE]
    if np.any(code == _BACKSLASH):
        # a quote preceded by an odd run of backslashes is escaped (inside a string)
        keep = []
        for q in quotes.tolist():
            run = 0
            while q - 1 - run >= 0 and buf[q - 1 - run] == 0x5C:
                run += 1
            keep.append(run % 2 == 0)
        quotes = quotes[np.asarray(keep, dtype=bool)] if keep else quotes
    if quotes.size % 2:
        raise _Fallback("unbalanced quotes")
    sel = code >= _OPEN
    pos, code = pos[sel], code[sel]
    if quotes.size:
        inside = np.searchsorted(quotes, pos) % 2 == 1
        pos, code = pos[~inside], code[~inside]
    return pos, code


class _Cut:
    """A list cut out of the skeleton: a matrix (rows of scalars) or a long flat list."""

    __slots__ = ("start", "end", "row_open", "row_close", "used")

    def __init__(self, start: int, end: int, row_open=None, row_close=None):
        self.start, self.end = start, end            # the outer brackets' positions
        self.row_open, self.row_close = row_open, row_close   # None for a flat list
        self.used = False                            # read (so its text was checked)

    @property
    def is_matrix(self) -> bool:
        return self.row_open is not None


def _skeleton(buf: bytes) -> tuple[Any, list[_Cut]]:
    """The JSON data of ``buf`` with every matrix and long flat list replaced by a placeholder
    string ``"\\u0000<i>"`` (i: its index in the returned list of cuts)."""
    pos, code = structure(buf)
    is_open = code == _OPEN
    leaf_open = np.zeros(code.size, dtype=bool)
    if code.size > 1:
        leaf_open[:-1] = is_open[:-1] & (code[1:] == _CLOSE)
    leaf = leaf_open.copy()
    leaf[1:] |= leaf_open[:-1]
    other = np.flatnonzero(~leaf)                      # tokens that are not a leaf list's brackets
    oc = code[other]
    cuts: list[_Cut] = []
    covered = np.zeros(code.size, dtype=bool)
    if other.size > 1:
        mat = np.flatnonzero((oc[:-1] == _OPEN) & (oc[1:] == _CLOSE) & (other[1:] - other[:-1] > 1))
        for j in mat.tolist():
            a, b = int(other[j]), int(other[j + 1])
            cuts.append(_Cut(int(pos[a]), int(pos[b]), pos[a + 1:b:2], pos[a + 2:b:2]))
            covered[a:b + 1] = True
    # long flat lists outside matrices (the stored format's arrays)
    lo = np.flatnonzero(leaf_open & ~covered)
    if lo.size:
        length = pos[lo + 1] - pos[lo]
        for t in lo[length > FLAT_MIN_BYTES].tolist():
            a, b = int(pos[t]), int(pos[t + 1])
            if buf.find(b'"', a, b) < 0:             # numbers only (a list of strings stays)
                cuts.append(_Cut(a, b))
    cuts.sort(key=lambda c: c.start)
    pieces, at = [], 0
    for i, cut in enumerate(cuts):
        pieces.append(buf[at:cut.start])
        pieces.append(b'"\\u0000%d"' % i)
        at = cut.end + 1
    pieces.append(buf[at:])
    if any(b"\\u0000" in p for p in pieces[::2]):
        raise _Fallback("the text holds the placeholder escape")
    try:
        # a key given twice is a ValueError: the generic reader then names it
        data = json.loads(b"".join(pieces).decode("utf-8"), object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _Fallback("the skeleton is not JSON (or gives a key twice)") from None
    return data, cuts


def _cut_of(value, cuts: list[_Cut]) -> _Cut | None:
    """The cut a placeholder stands for, or None when ``value`` is no placeholder."""
    if isinstance(value, str) and value.startswith("\x00") and value[1:].isdigit():
        i = int(value[1:])
        if i < len(cuts):
            return cuts[i]
    return None


def _all_read(cuts: list[_Cut]) -> None:
    """Every cut-out list must have been read: one that was not (under a duplicate key, an
    unknown key, nested elsewhere) was never checked, and ``json.loads`` checks every byte."""
    if not all(c.used for c in cuts):
        raise _Fallback("a list was cut out but not read")


def _blank(buf: bytes, a: int, b: int, commas: int) -> None:
    """The text ``buf[a:b]`` must be white space around exactly ``commas`` commas."""
    gap = buf[a:b]
    if gap.count(b",") != commas or gap.translate(None, _WHITE + b",") != b"":
        raise _Fallback("unexpected text between rows")


def _load_block(text: bytes):
    orjson = _orjson()
    try:
        if orjson is not None:
            return orjson.loads(text)
        return json.loads(text)
    except (ValueError, RecursionError):
        raise _Fallback("a block is not JSON") from None


# -- compiled scan of numbers ---------------------------------------------------------------------
_POW10_F = np.array([10.0 ** i for i in range(23)])   # 1e0 .. 1e22: exact doubles
#: the compiled scan is used when numba is (False: the orjson blocks alone; tests run both)
COMPILED = HAVE_NUMBA


@njit(cache=True)
def _ws(b, i, e):  # pragma: no cover - compiled
    while i < e and (b[i] == 32 or b[i] == 9 or b[i] == 10 or b[i] == 13):
        i += 1
    return i


@njit(cache=True)
def _number(b, i, e, as_int, pow10):  # pragma: no cover - compiled
    """One JSON number at ``b[i:]``: (end, code, is_float, value, int value). code 0: the value
    is exact (an integer within int64, as ``float(int)``; a decimal of at most 15 significant
    digits times a power of ten within 22, by one correctly rounded operation [the classic exact
    case]); 1: a valid number to convert by ``float()`` of its text; -1: not a JSON number, or
    (``as_int``) not an integer within int64."""
    neg = False
    if i < e and b[i] == 45:
        neg = True
        i += 1
    if i >= e or b[i] < 48 or b[i] > 57:
        return i, -1, False, 0.0, 0
    m = 0
    sig = 0
    fd = 0
    ovf = False
    if b[i] == 48:
        i += 1
    else:
        while i < e and 48 <= b[i] <= 57:
            d = b[i] - 48
            if not ovf and (m < 922337203685477580 or (m == 922337203685477580 and d <= 7)):
                m = m * 10 + d
            else:
                ovf = True
            sig += 1
            i += 1
    isf = False
    if i < e and b[i] == 46:
        isf = True
        i += 1
        if i >= e or b[i] < 48 or b[i] > 57:
            return i, -1, False, 0.0, 0
        while i < e and 48 <= b[i] <= 57:
            d = b[i] - 48
            if m > 0 or d > 0:
                sig += 1
            if not ovf and sig <= 15:
                m = m * 10 + d
                fd += 1
            else:
                ovf = True
            i += 1
    ex = 0
    if i < e and (b[i] == 101 or b[i] == 69):
        isf = True
        i += 1
        eneg = False
        if i < e and (b[i] == 43 or b[i] == 45):
            eneg = b[i] == 45
            i += 1
        if i >= e or b[i] < 48 or b[i] > 57:
            return i, -1, False, 0.0, 0
        while i < e and 48 <= b[i] <= 57:
            if ex < 100000:
                ex = ex * 10 + (b[i] - 48)
            i += 1
        if eneg:
            ex = -ex
    if as_int:
        if isf or ovf:
            return i, -1, isf, 0.0, 0
        return i, 0, False, 0.0, -m if neg else m
    if not isf:
        if ovf:
            return i, 1, False, 0.0, 0
        return i, 0, False, np.float64(-m if neg else m), 0
    k = ex - fd
    if not ovf and sig <= 15 and -22 <= k <= 22:
        v = np.float64(m)
        v = v * pow10[k] if k >= 0 else v / pow10[-k]
        return i, 0, True, -v if neg else v, 0
    return i, 1, True, 0.0, 0


@njit(cache=True)
def _put(n, nx, code, v, w, t0, i, as_int, fv, iv, cx):  # pragma: no cover - compiled
    """Store the number just parsed (token ``b[t0:i]``) as value ``n``: ``w`` in ``iv``, or ``v``
    in ``fv`` and, for :func:`_number`'s code 1, the token in ``cx[nx]``. Returns the new count of
    tokens in ``cx``, or -1 when ``cx`` is full."""
    if as_int:
        iv[n] = w
    else:
        fv[n] = v
        if code == 1:
            if nx >= cx.shape[0]:
                return -1
            cx[nx, 0] = t0
            cx[nx, 1] = i
            cx[nx, 2] = n
            nx += 1
    return nx


@njit(cache=True)
def _scan(b, a, e, matrix, as_int, fv, iv, lens, cx, pow10):  # pragma: no cover - compiled
    """Parse the JSON text ``b[a:e]``: numbers separated by commas (``matrix`` False) or rows
    ``[numbers]`` separated by commas (True), white space between tokens, by the JSON grammar.
    Values go to ``iv`` (``as_int``) or ``fv`` (:func:`_number`'s code 1: 0.0, the token's
    (start, end) in ``cx`` for ``float()``); row lengths to ``lens``. Returns (values, rows,
    tokens in ``cx``, any float token), values = -1 for anything else (the caller falls back)."""
    n = 0
    r = 0
    nx = 0
    anyf = False
    i = _ws(b, a, e)
    if i == e:
        return 0, 0, 0, False
    while True:
        if matrix:
            if b[i] != 91:
                return -1, 0, 0, False
            i = _ws(b, i + 1, e)
            start_n = n
            if i < e and b[i] == 93:
                i += 1
            else:
                while True:
                    t0 = i
                    i, code, isf, v, w = _number(b, i, e, as_int, pow10)
                    if code < 0:
                        return -1, 0, 0, False
                    anyf = anyf or isf
                    nx = _put(n, nx, code, v, w, t0, i, as_int, fv, iv, cx)
                    if nx < 0:
                        return -1, 0, 0, False
                    n += 1
                    i = _ws(b, i, e)
                    if i < e and b[i] == 44:
                        i = _ws(b, i + 1, e)
                        continue
                    if i < e and b[i] == 93:
                        i += 1
                        break
                    return -1, 0, 0, False
            if r >= lens.size:
                return -1, 0, 0, False
            lens[r] = n - start_n
            r += 1
        else:
            t0 = i
            i, code, isf, v, w = _number(b, i, e, as_int, pow10)
            if code < 0:
                return -1, 0, 0, False
            anyf = anyf or isf
            if n >= (iv.size if as_int else fv.size):
                return -1, 0, 0, False
            nx = _put(n, nx, code, v, w, t0, i, as_int, fv, iv, cx)
            if nx < 0:
                return -1, 0, 0, False
            n += 1
        i = _ws(b, i, e)
        if i == e:
            return n, r, nx, anyf
        if b[i] != 44:
            return -1, 0, 0, False
        i = _ws(b, i + 1, e)
        if i == e:
            return -1, 0, 0, False


def _compiled(buf: bytes, a: int, e: int, *, matrix: bool, as_int: bool, size: int, rows: int):
    """(values, row lengths, any float token) of ``buf[a:e]`` by :func:`_scan`, or None (the
    caller uses the orjson path: the same values, more slowly)."""
    if not COMPILED:
        return None
    b = np.frombuffer(buf, dtype=np.uint8)
    fv = np.empty(0 if as_int else size)
    iv = np.empty(size if as_int else 0, dtype=np.int64)
    lens = np.empty(rows, dtype=np.int64)
    cx = np.empty((min(size, 1 << 20), 3), dtype=np.int64)
    n, r, nx, anyf = _scan(b, a, e, matrix, as_int, fv, iv, lens, cx, _POW10_F)
    if n < 0 or n != size or r != rows:
        return None
    for t0, t1, at in cx[:nx].tolist():
        x = float(buf[t0:t1])            # what json.loads does with the token (float, or int -> float)
        if not math.isfinite(x):
            return None                  # json.loads' int would not convert: its path says so
        fv[at] = x
    return (iv if as_int else fv), lens, anyf


# -- matrices (IOPDDL) ----------------------------------------------------------------------------
def _matrix_blocks(buf: bytes, cut: _Cut) -> Iterator[list]:
    """The rows of a matrix, as Python lists, one block (about BLOCK_BYTES of text) at a time."""
    cut.used = True
    ro, rc = cut.row_open, cut.row_close
    r = ro.size
    if r == 0:
        return
    _blank(buf, cut.start + 1, int(ro[0]), 0)
    _blank(buf, int(rc[-1]) + 1, cut.end, 0)
    # block boundaries: whole rows, about BLOCK_BYTES each
    cuts_at = np.searchsorted(ro, ro[0] + np.arange(BLOCK_BYTES, int(rc[-1] - ro[0]) + 1, BLOCK_BYTES))
    bounds = np.unique(np.concatenate([[0], cuts_at, [r]]))
    for i, j in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        if i > 0:
            _blank(buf, int(rc[i - 1]) + 1, int(ro[i]), 1)
        rows = _load_block(b"[" + buf[int(ro[i]):int(rc[j - 1]) + 1] + b"]")
        if not isinstance(rows, list) or len(rows) != j - i:
            raise _Fallback("rows miscounted")
        yield rows


class _Matrix:
    """A matrix read whole: row lengths and the flat values, as today's reader converts them."""

    def __init__(self, lengths: np.ndarray, values: np.ndarray | None, ints: np.ndarray | None):
        self.lengths, self.values, self.ints = lengths, values, ints

    @property
    def rows(self) -> int:
        return self.lengths.size


def _read_matrix(buf: bytes, cut: _Cut, kind: str) -> _Matrix:
    """``kind`` "float" and "interval" (pairs): JSON numbers (not bool, str or null) by
    ``np.fromiter(..., float64)`` (as :func:`parse_iopddl`); "pairs": Python ints (not bool) by
    ``np.fromiter(..., int64)``."""
    r = cut.row_open.size
    # exact when every row is non-empty: commas inside the matrix = values - 1
    guess = buf.count(b",", cut.start, cut.end + 1) + 1 if r else 0
    fast = _compiled(buf, cut.start + 1, cut.end, matrix=True, as_int=kind == "pairs", size=guess, rows=r)
    if fast is not None:     # the compiled scan: the same values, no Python number made
        cut.used = True
        values, lengths, _ = fast
        if kind == "interval" and not np.all(lengths == 2):
            raise _Fallback("an interval is no pair")
        return _Matrix(lengths, None, values) if kind == "pairs" else _Matrix(lengths, values, None)
    lengths = np.empty(r, dtype=np.int64)
    values = np.empty(guess, dtype=np.int64 if kind == "pairs" else np.float64)
    at_row = at = 0
    for rows in _matrix_blocks(buf, cut):
        lens = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        lengths[at_row:at_row + lens.size] = lens
        at_row += lens.size
        count = int(lens.sum())
        if at + count > values.size:
            raise _Fallback("more values than commas allow")
        flat = itertools.chain.from_iterable(rows)
        try:
            if kind == "pairs":
                flat = list(flat)
                if not all(type(x) is int for x in flat):
                    raise _Fallback("a node index is no int")
                values[at:at + count] = np.fromiter(flat, dtype=np.int64, count=count)
            else:
                if kind == "interval" and not np.all(lens == 2):
                    raise _Fallback("an interval is no pair")
                flat = list(flat)
                if not all(type(x) is int or (type(x) is float and math.isfinite(x)) for x in flat):
                    raise _Fallback("a value is no finite number")  # the JSON reader names it
                values[at:at + count] = np.fromiter(flat, dtype=np.float64, count=count)
        except (TypeError, ValueError, OverflowError):
            raise _Fallback("a value the JSON reader converts differently") from None
        at += count
        del rows, flat
    if at != values.size:
        values = values[:at].copy()
    if kind == "pairs":
        return _Matrix(lengths, None, values)
    return _Matrix(lengths, values, None)


def _empty_matrix(kind: str) -> _Matrix:
    if kind == "pairs":
        return _Matrix(np.zeros(0, np.int64), None, np.zeros(0, np.int64))
    return _Matrix(np.zeros(0, np.int64), np.zeros(0), None)


def read_iopddl_fast(path, problem: str, name: str = "") -> tuple | None:
    """The checked arrays of an IOPDDL file (gzip or plain, an optional UTF-8 BOM): ``(k, cost,
    usage, intervals, edge_u, edge_v, edge_cost, usage_limit, title, name)``, the values
    :func:`parse_iopddl` takes from ``json.loads`` of its text; None when the fast path does not
    handle the file (the caller then uses the ``json.loads`` reader). The file's bytes are dropped
    on return, before the caller builds the instance (peak: the text and the arrays)."""
    from optsched.core.textfile import read_bytes

    raw = read_bytes(path, problem)
    try:
        return _read_iopddl(raw, name)
    except _Fallback:
        return None


def _read_iopddl(raw: bytes, name: str) -> tuple:
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    doc, cuts = _skeleton(raw)
    if not isinstance(doc, dict) or not isinstance(doc.get("problem"), dict):
        raise _Fallback("layout")
    p = doc["problem"]
    nodes = p.get("nodes")
    edges = p.get("edges", {"nodes": [], "costs": []})
    if not isinstance(nodes, dict) or not isinstance(edges, dict):
        raise _Fallback("layout")

    def matrix(value, kind: str) -> _Matrix:
        if value == []:
            return _empty_matrix(kind)
        cut = _cut_of(value, cuts)
        if cut is None or not cut.is_matrix:
            raise _Fallback("not a list of lists")
        return _read_matrix(raw, cut, kind)

    costs = matrix(nodes.get("costs"), "float")
    n = costs.rows
    if n == 0 or np.any(costs.lengths == 0):
        raise _Fallback("a node without strategies")
    usages = matrix(nodes.get("usages"), "float")
    if usages.rows != n or not np.array_equal(usages.lengths, costs.lengths):
        raise _Fallback("usages")
    intervals = matrix(nodes.get("intervals"), "interval")
    if intervals.rows != n:
        raise _Fallback("intervals")
    k = costs.lengths
    iv = intervals.values.reshape(n, 2)
    if not np.all(iv == np.round(iv)):
        raise _Fallback("intervals must hold integer times")
    pairs = matrix(edges.get("nodes", []), "pairs")
    m = pairs.rows
    if m and not np.all(pairs.lengths == 2):
        raise _Fallback("an edge is no pair")
    eu, ev = pairs.ints[0::2].copy(), pairs.ints[1::2].copy()
    if m and not (np.all((eu >= 0) & (eu < n)) and np.all((ev >= 0) & (ev < n))):
        raise _Fallback("an edge's node index")
    ecosts = matrix(edges.get("costs", []), "float")
    if ecosts.rows != m or (m and not np.array_equal(ecosts.lengths, k[eu] * k[ev])):
        raise _Fallback("edge costs")
    limit = p.get("usage_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
        raise _Fallback("usage_limit")
    title = p.get("name", name)
    if not isinstance(title, str) or _cut_of(title, cuts) is not None:
        raise _Fallback("name")
    _all_read(cuts)
    return k, costs.values, usages.values, iv, eu, ev, ecosts.values, limit, title, name


# -- flat lists (the stored format) --------------------------------------------------------------
def _flat_array(buf: bytes, cut: _Cut) -> np.ndarray:
    """A long flat list of numbers as ``np.asarray(json.loads(text))`` would type it (int64 when
    every value is an int, else float64; block by block into one array sized by the commas);
    other contents fall back."""
    cut.used = True
    a, b = cut.start + 1, cut.end
    size = buf.count(b",", a, b) + 1
    fast = _compiled(buf, a, b, matrix=False, as_int=False, size=size, rows=0)
    if fast is not None:     # the compiled scan: the same values, no Python number made
        if fast[2]:          # a float among them: the list is float64
            return fast[0]
        fast = _compiled(buf, a, b, matrix=False, as_int=True, size=size, rows=0)
        if fast is not None:
            return fast[0]
    out = None
    at, pos = 0, a
    while pos < b:
        stop = buf.find(b",", pos + BLOCK_BYTES, b) if pos + BLOCK_BYTES < b else -1
        stop = b if stop < 0 else stop
        values = _load_block(b"[" + buf[pos:stop] + b"]")
        if not isinstance(values, list) or not values:
            raise _Fallback("an empty block (a stray comma)")
        if any(type(x) is bool for x in values):
            raise _Fallback("true or false")  # the generic reader names the field
        try:
            arr = np.asarray(values)
        except (TypeError, ValueError, OverflowError):
            raise _Fallback("not numbers") from None
        del values
        if arr.ndim != 1 or arr.dtype not in (np.int64, np.float64):
            raise _Fallback("not plain numbers")
        if out is None:   # a valid list has exactly one more value than commas
            out = np.empty(buf.count(b",", a, b) + 1, dtype=arr.dtype)
        elif arr.dtype != out.dtype:   # a list mixing ints and floats is float64 as a whole
            if out.dtype == np.int64:
                out = out.astype(np.float64)
            arr = arr.astype(np.float64)
        if at + arr.size > out.size:
            raise _Fallback("more values than commas allow")
        out[at:at + arr.size] = arr
        at += arr.size
        pos = stop + 1
    if out is None or at != out.size:
        raise _Fallback("fewer values than commas")
    return out


def read_stored_fast(raw: bytes, fields, adopt=lambda a: a) -> dict | None:
    """The JSON data of a stored instance with its long lists as numpy arrays (typed as
    ``np.asarray`` types the list ``json.loads`` gives; each passed through ``adopt``); a long list
    is expected only under a key of ``fields``. None when the fast path does not handle the file.
    The caller builds the instance with ``from_json`` as from ``json.loads``."""
    try:
        if raw.startswith(_BOM):
            raw = raw[len(_BOM):]
        data, cuts = _skeleton(raw)
        if not isinstance(data, dict):
            raise _Fallback("layout")
        out = {}
        for key, value in data.items():
            cut = _cut_of(value, cuts)
            if cut is None:
                out[key] = value
            elif key in fields and not cut.is_matrix:
                out[key] = adopt(_flat_array(raw, cut))   # fresh: the instance may take it uncopied
            else:
                raise _Fallback(f"{key}: a long list where none is expected")
        _all_read(cuts)
        return out
    except _Fallback:
        return None


# -- canonical array text ------------------------------------------------------------------------
class NotCanonical(Exception):
    """An array the block-wise text does not render as ``json.dumps`` would (a non-finite float, a
    negative zero): the caller takes the generic path."""


@njit(cache=True)
def _digits(v, out, p, digits):  # pragma: no cover - compiled
    """Write the decimal digits of ``v >= 0`` at ``out[p:]``; the new position."""
    n = 0
    if v == 0:
        digits[0] = 48
        n = 1
    while v > 0:
        digits[n] = 48 + v % 10
        v //= 10
        n += 1
    for j in range(n):
        out[p + j] = digits[n - 1 - j]
    return p + n


@njit(cache=True)
def _format_floats(x, tvals, toff, table, out):  # pragma: no cover - compiled
    """Write ``x`` comma-separated as ``repr`` writes floats: an integral value in [0, 1e16) as
    its integer and ".0", any other as its text in the table (``tvals`` sorted, text ``i`` is
    ``table[toff[i]:toff[i + 1]]``). Returns the length, or ``-(i + 1)`` when ``x[i]`` is in
    neither form (the caller extends the table and calls again)."""
    p = 0
    digits = np.empty(20, np.uint8)
    for i in range(x.size):
        if i:
            out[p] = 44
            p += 1
        v = x[i]
        if v >= 0.0 and v < 1e16 and v == math.floor(v) and math.copysign(1.0, v) > 0:
            p = _digits(np.int64(v), out, p, digits)
            out[p] = 46
            out[p + 1] = 48
            p += 2
            continue
        lo, hi = 0, tvals.size
        while lo < hi:
            mid = (lo + hi) // 2
            if tvals[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo == tvals.size or not tvals[lo] == v:
            return -(i + 1)
        for j in range(toff[lo], toff[lo + 1]):
            out[p] = table[j]
            p += 1
    return p


@njit(cache=True)
def _format_ints(x, out):  # pragma: no cover - compiled
    """Write int64 ``x`` comma-separated; -1 when it holds the smallest int64 (the caller's)."""
    p = 0
    digits = np.empty(20, np.uint8)
    for i in range(x.size):
        if i:
            out[p] = 44
            p += 1
        v = x[i]
        if v < 0:
            if v == -9223372036854775807 - 1:
                return -1
            out[p] = 45
            p += 1
            v = -v
        p = _digits(v, out, p, digits)
    return p


class _Table:
    """The texts of the floats the integer form does not cover, sorted (grown as blocks need)."""

    def __init__(self):
        self.values = np.zeros(0)
        self.texts: list[bytes] = []
        self._pack()

    def _pack(self):
        self.toff = np.concatenate([[0], np.cumsum([len(t) for t in self.texts])]).astype(np.int64)
        self.table = np.frombuffer(b"".join(self.texts) or b" ", dtype=np.uint8)
        self.width = max([24, *map(len, self.texts)])

    def add(self, x: np.ndarray) -> None:
        """Add the block's values outside the integer form (:class:`NotCanonical` for a
        non-finite one or a negative zero)."""
        integral = (x >= 0) & (x < 1e16) & (x == np.floor(x)) & ~np.signbit(x)
        other = x[~integral]
        if not np.all(np.isfinite(other)) or np.any((other == 0) & np.signbit(other)):
            raise NotCanonical("a non-finite float or a negative zero")
        values = np.union1d(self.values, other)
        known = dict(zip(self.values.tolist(), self.texts))
        self.values = values
        self.texts = [known.get(v) or float.__repr__(v).encode() for v in values.tolist()]
        self._pack()


def _block_text(x: np.ndarray, table: _Table) -> bytes:
    """``",".join(json.dumps(value) for value in x)`` for an int64 or float64 block."""
    if not HAVE_NUMBA:
        if x.dtype.kind == "f" and (not np.all(np.isfinite(x)) or np.any((x == 0) & np.signbit(x))):
            raise NotCanonical("a non-finite float or a negative zero")
        fmt = float.__repr__ if x.dtype.kind == "f" else int.__repr__
        values, where = np.unique(x, return_inverse=True)
        text = np.array([fmt(v) for v in values.tolist()], dtype=object)
        return ",".join(text[where.ravel()].tolist()).encode()
    if x.dtype.kind != "f":
        out = np.empty(x.size * 21, dtype=np.uint8)
        n = _format_ints(x, out)
        return out[:n].tobytes() if n >= 0 else ",".join(map(str, x.tolist())).encode()
    for attempt in range(2):
        out = np.empty(x.size * (table.width + 1), dtype=np.uint8)
        n = _format_floats(x, table.values, table.toff, table.table, out)
        if n >= 0:
            return out[:n].tobytes()
        table.add(x)
    raise AssertionError("the table covers the block")  # pragma: no cover


def array_json_chunks(arr: np.ndarray, block: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of ``json.dumps(arr.tolist(), separators=(",", ":"))`` in pieces, for a 1-D int64
    or float64 array (compiled; :class:`NotCanonical` for a non-finite float or a negative zero,
    whose text the caller leaves to ``json.dumps``)."""
    yield b"["
    table = _Table()
    for a in range(0, arr.size, block):
        if a:
            yield b","
        yield _block_text(arr[a:a + block], table)
    yield b"]"
