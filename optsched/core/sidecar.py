"""Binary sidecars: a ``.npz`` copy of a large instance's or result's JSON, next to it.

The JSON file stays the canonical, versioned form (what is shared, diffed, hashed into
``instance_sha256``); the sidecar ``<file>.json.npz`` only makes reading it faster. It holds the
same JSON data with every long homogeneous list taken out into a numpy array:

* a list of floats, of integers (within int64), of booleans or of strings (a string list is one
  UTF-8 text joined by newlines, so it is used only when no string holds a newline);
* a list of equal-length rows whose entries are all of one scalar type (a matrix);
* a list of short equal-length rows whose columns each hold one scalar type (``(u, v, bytes)``
  edges: one array per column);
* a list of objects with the same keys (records: one column per key, each encoded as above);
* a list of lists of different lengths (each job's edges): their concatenation, encoded as
  above, and the lengths;

and the rest of the data (scalars, short lists, whatever is irregular) as JSON text, with a
placeholder where each array was. Reading it back gives exactly the data ``json.loads`` gives for
the JSON file (the same Python types and the same floats: doubles are stored bit for bit), so
the instance or result is then built and validated by the same code, with the same error
messages, as from the JSON file.

The sidecar records the SHA-256 of the JSON file's bytes it was written with, and the SHA-256 of
its own content (:func:`content_sha256`: the skeleton and every array's dtype, shape and bytes,
which decode to exactly the canonical JSON data). Reading checks both (hashing is cheap next to
parsing); a sidecar that does not belong to its JSON file (the JSON was edited or replaced), whose
content was altered after writing (values changed and the zip re-packed, which zip's CRC-32 does
not catch), or that cannot be read (truncated, corrupt) is a :class:`SidecarError` naming the
file, never used silently. (A sidecar is a cache, not a signature: one forged with both digests
recomputed is not detected; ``--no-sidecar`` reads the JSON alone.) Writing goes through
:mod:`optsched.core.atomic`: a failure (full disk) leaves neither the sidecar nor a temporary file. Arrays are read with ``allow_pickle=False``: a sidecar never runs code.

Writing is explicit (``save(path, sidecar=True)``, :func:`write_sidecar`); reading is automatic
wherever a JSON file is read through :func:`read_json_data` (``Instance.load``,
``Result.load``) when ``<file>.json.npz`` exists, unless ``sidecar=False``.

>>> import json, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> data = {"format_version": 1, "sizes": [0.5 * i for i in range(100)], "names": ["a", "b"]}
>>> path = folder / "toy.json"
>>> _ = path.write_text(json.dumps(data))
>>> write_sidecar(path, data).name
'toy.json.npz'
>>> read_json_data(path, "toy") == data
True
>>> _ = path.write_text(json.dumps({**data, "names": ["a", "c"]}))
>>> read_json_data(path, "toy")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
optsched.core.sidecar.SidecarError: toy: field '(sidecar)': toy.json.npz: does not belong to toy.json (...
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidInstanceError, InvalidOptionError

__all__ = ["SidecarError", "SIDECAR_VERSION", "MIN_ARRAY", "sidecar_path", "write_sidecar", "read_sidecar",
           "read_json_data", "sync_sidecar", "encode", "decode", "file_sha256", "content_sha256"]

#: the version of the sidecar layout (independent of the instance and result format versions)
SIDECAR_VERSION = 2  # 2: the meta carries ``content_sha256``
#: lists shorter than this stay in the JSON part (an array costs a zip member: ~100 bytes)
MIN_ARRAY = 16
#: the placeholder key: a JSON object ``{MARK: [kind, ...]}`` stands for an array; data holding
#: an object with this key cannot be written as a sidecar
MARK = "\x00npz"
_INT64 = (-(2**63), 2**63 - 1)


class SidecarError(InvalidInstanceError):
    """A sidecar that cannot be used: unreadable, corrupt, or written from another JSON file.
    ``path`` is the sidecar; the CLI exits with status 2 and one line, like any invalid input."""

    def __init__(self, problem: str, path: str | Path, reason: str):
        self.path = Path(path)
        super().__init__(problem, "(sidecar)", reason)


def sidecar_path(json_path: str | Path) -> Path:
    """The sidecar of a JSON file: the same name with ``.npz`` added (``chain.json.npz``)."""
    p = Path(json_path)
    if not p.name:  # ".", "..", "/": a folder, never a JSON file; its reader says so
        return Path(f"{p}.npz")
    return p.with_name(p.name + ".npz")


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 8 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 23):
            h.update(block)
    return h.hexdigest()


# ---- encoding -------------------------------------------------------------------------------
class _Encoder:
    def __init__(self, min_array: int) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.min = max(1, int(min_array))

    def put(self, arr: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = arr
        return key

    def scalar_array(self, values) -> tuple[str, np.ndarray] | None:
        """``(kind, array)`` for a homogeneous sequence of JSON scalars, else None."""
        if isinstance(values, np.ndarray):
            if values.ndim != 1:
                return None
            k = values.dtype.kind
            if k == "f":
                return "f", values.astype(np.float64, copy=False)
            if k == "b":
                return "b", values.astype(np.bool_, copy=False)
            if k in "iu" and (values.size == 0 or (int(values.min()) >= _INT64[0] and int(values.max()) <= _INT64[1])):
                return "i", values.astype(np.int64, copy=False)
            return None
        kinds = set(map(type, values))
        if len(kinds) != 1:
            return None
        t = kinds.pop()
        if t is float:
            return "f", np.fromiter(values, dtype=np.float64, count=len(values))
        if t is int:
            try:
                return "i", np.array(values, dtype=np.int64)
            except OverflowError:
                return None
        if t is bool:
            return "b", np.fromiter(values, dtype=np.bool_, count=len(values))
        if t is str:
            if any("\n" in s for s in values):
                return None
            text = "\n".join(values).encode("utf-8", "surrogatepass")
            return "s", np.frombuffer(text, dtype=np.uint8)
        return None

    def encode(self, value: Any) -> Any:
        if isinstance(value, dict):
            if MARK in value:
                raise ValueError(f"the data holds an object with the key {MARK!r}, reserved for sidecar placeholders")
            return {k: self.encode(v) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            if value.ndim == 2 and value.shape[0] * value.shape[1] >= self.min:
                flat = self.scalar_array(value.reshape(-1))
                if flat is not None and flat[0] != "s":
                    return {MARK: ["m", flat[0], self.put(flat[1].reshape(value.shape))]}
            if value.ndim == 1 and value.size >= self.min:
                got = self.scalar_array(value)
                if got is not None:
                    return {MARK: [got[0], self.put(got[1]), int(value.size)]}
            return self.encode(value.tolist())
        if not isinstance(value, (list, tuple)):
            return value
        n = len(value)
        if n >= self.min:
            got = self.scalar_array(value)
            if got is not None:
                return {MARK: [got[0], self.put(got[1]), n]}
            encoded = self.rows(value) or self.records(value)
            if encoded is not None:
                return encoded
        elif n and all(isinstance(v, (list, tuple)) for v in value):
            matrix = self.rows(value)  # a few long rows of one type (a 10 x 100 weight matrix)
            if matrix is not None:
                return matrix
        ragged = self.ragged(value)
        if ragged is not None:
            return ragged
        return [self.encode(v) for v in value]

    def ragged(self, value) -> dict | None:
        """A list of lists of different lengths (each job's edge list): the lists concatenated and
        encoded once, with their lengths; used only when the concatenation becomes arrays (one
        array per short list would make a zip member each)."""
        if len(value) < 2 or not all(type(r) in (list, tuple) for r in value):
            return None
        flat = [x for r in value for x in r]
        if len(flat) < self.min:
            return None
        before = len(self.arrays)
        encoded = self.encode(flat)
        if not (isinstance(encoded, dict) and MARK in encoded):
            for key in list(self.arrays)[before:]:  # not worth it: undo what the attempt stored
                del self.arrays[key]
            return None
        lengths = np.fromiter(map(len, value), dtype=np.int64, count=len(value))
        return {MARK: ["j", self.put(lengths), encoded]}

    def rows(self, value) -> dict | None:
        """A list of equal-length rows: a matrix when every entry has one scalar type, else one
        array per column when each column has one (short rows only)."""
        if not value or not all(type(r) in (list, tuple) for r in value):
            return None
        widths = set(map(len, value))
        if len(widths) != 1:
            return None
        w = widths.pop()
        if w == 0 or len(value) * w < self.min:
            return None
        flat = [x for r in value for x in r]
        got = self.scalar_array(flat)
        if got is not None and got[0] != "s":
            return {MARK: ["m", got[0], self.put(got[1].reshape(len(value), w))]}
        if w > 16 or len(value) < self.min:
            return None
        cols = []
        for c in zip(*value):
            got = self.scalar_array(c)
            if got is None:
                return None
            cols.append([got[0], self.put(got[1])])
        return {MARK: ["r", len(value), cols]}

    def records(self, value) -> dict | None:
        """A list of objects with the same keys (in the same order): one column per key."""
        if not all(type(r) is dict for r in value):
            return None
        keys = list(value[0])
        if MARK in keys or any(list(r) != keys for r in value):
            return None
        cols = [self.encode([r[k] for r in value]) for k in keys]
        return {MARK: ["d", len(value), keys, cols]}


def encode(data: Any, min_array: int = MIN_ARRAY) -> tuple[str, dict[str, np.ndarray]]:
    """``(skeleton JSON text, arrays)``: the data with its homogeneous lists of at least
    ``min_array`` entries taken out."""
    enc = _Encoder(min_array)
    skeleton = enc.encode(data)
    text = json.dumps(skeleton, allow_nan=True, separators=(",", ":"), default=_jsonable)
    return text, enc.arrays


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return list(value)
    raise TypeError(f"cannot serialize {type(value).__name__}")


# ---- decoding -------------------------------------------------------------------------------
class _Corrupt(Exception):
    pass


def decode(skeleton: Any, arrays) -> Any:
    """The JSON data back from a skeleton and its arrays (``arrays[key]`` gives an array)."""

    def column(kind: str, key: str, n: int | None = None) -> list:
        arr = arrays[key]
        if kind == "s":
            if arr.dtype != np.uint8 or arr.ndim != 1:
                raise _Corrupt(f"array {key} is not a text")
            out = arr.tobytes().decode("utf-8", "surrogatepass").split("\n") if n else []
        else:
            want = {"f": "f", "i": "i", "b": "b"}.get(kind)
            if want is None or arr.dtype.kind != want or arr.ndim != 1:
                raise _Corrupt(f"array {key} has dtype {arr.dtype} and {arr.ndim} dimensions, expected kind {kind!r}")
            out = arr.tolist()
        if n is not None and len(out) != n:
            raise _Corrupt(f"array {key} holds {len(out)} values, expected {n}")
        return out

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            return [walk(x) for x in v]
        if not isinstance(v, dict):
            return v
        if MARK not in v:
            return {k: walk(x) for k, x in v.items()}
        if len(v) != 1 or not isinstance(v[MARK], list) or not v[MARK]:
            raise _Corrupt("a malformed placeholder")
        spec = v[MARK]
        kind = spec[0]
        if kind in ("f", "i", "b", "s"):
            return column(kind, spec[1], spec[2])
        if kind == "m":
            arr = arrays[spec[2]]
            if arr.ndim != 2 or arr.dtype.kind != spec[1]:
                raise _Corrupt(f"array {spec[2]} is not a {spec[1]!r} matrix")
            return arr.tolist()
        if kind == "r":
            n, cols = spec[1], spec[2]
            return [list(row) for row in zip(*(column(k, key, n) for k, key in cols))] if cols else [[]] * n
        if kind == "j":
            lengths = arrays[spec[1]]
            if lengths.dtype.kind != "i" or lengths.ndim != 1 or (lengths.size and lengths.min() < 0):
                raise _Corrupt(f"array {spec[1]} does not hold list lengths")
            flat = walk(spec[2])
            if not isinstance(flat, list) or int(lengths.sum()) != len(flat):
                raise _Corrupt(f"the list lengths in {spec[1]} do not add up to the {len(flat)} values")
            out, at = [], 0
            for size in lengths.tolist():
                out.append(flat[at:at + size])
                at += size
            return out
        if kind == "d":
            n, keys, cols = spec[1], spec[2], spec[3]
            values = [walk(c) for c in cols]
            if len(values) != len(keys) or any(not isinstance(c, list) or len(c) != n for c in values):
                raise _Corrupt("a record column has the wrong length")
            return [dict(zip(keys, row)) for row in zip(*values)] if keys else [{} for _ in range(n)]
        raise _Corrupt(f"an unknown placeholder kind {kind!r}")

    return walk(skeleton)


# ---- files ----------------------------------------------------------------------------------
def write_sidecar(json_path: str | Path, data: Any, *, min_array: int = MIN_ARRAY) -> Path:
    """Write ``<json_path>.npz`` for the JSON file just written at ``json_path`` from ``data``
    (``instance.to_json()`` or ``result.to_json()``: the same data, not re-parsed). Returns its
    path. Raises ``ValueError`` for data no sidecar can hold (an object with the key :data:`MARK`).
    """
    json_path = Path(json_path)
    skeleton, arrays = encode(data, min_array)
    meta = {"optsched_sidecar": SIDECAR_VERSION, "json_file": json_path.name,
            "json_sha256": file_sha256(json_path), "json_bytes": json_path.stat().st_size}
    out = sidecar_path(json_path)
    skeleton_bytes = skeleton.encode("utf-8", "surrogatepass")
    meta["content_sha256"] = content_sha256(skeleton_bytes, arrays)
    members = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
               "skeleton": np.frombuffer(skeleton_bytes, dtype=np.uint8), **arrays}
    from .atomic import atomic_open

    with atomic_open(out, "wb") as f:  # a reader never sees half a sidecar; a failure leaves none
        np.savez(f, **members)
    return out


def content_sha256(skeleton: bytes, arrays) -> str:
    """SHA-256 of a sidecar's content: the JSON skeleton, then every array (sorted by name) as
    its name, dtype, shape and bytes. It stands for the canonical JSON data the sidecar was made
    from (decoding is a pure function of it), without serializing that data again on every read."""
    h = hashlib.sha256()
    h.update(b"skeleton\0" + bytes(skeleton))
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(f"\0{name}\0{arr.dtype.str}\0{arr.shape}\0".encode())
        h.update(memoryview(arr).cast("B") if arr.size else b"")
    return h.hexdigest()


def read_sidecar(json_path: str | Path, problem: str) -> Any:
    """The JSON data of ``json_path`` read from its sidecar, after checking that the sidecar was
    written from exactly these JSON bytes. :class:`SidecarError` (naming the sidecar) otherwise."""
    json_path = Path(json_path)
    path = sidecar_path(json_path)

    def fail(reason: str) -> SidecarError:
        return SidecarError(problem, path, f"{path.name}: {reason}")

    try:
        with np.load(path, allow_pickle=False) as z:
            names = set(z.files)
            if not {"meta", "skeleton"} <= names:
                raise fail("not an optsched sidecar (no meta or skeleton member): delete it or write it again")
            meta = json.loads(z["meta"].tobytes().decode())
            if not isinstance(meta, dict) or meta.get("optsched_sidecar") != SIDECAR_VERSION:
                raise fail(f"sidecar version {meta.get('optsched_sidecar') if isinstance(meta, dict) else meta!r}, "
                           f"this optsched reads version {SIDECAR_VERSION}: write it again")
            try:
                actual = file_sha256(json_path)
            except OSError as exc:
                raise fail(f"its JSON file {json_path.name} cannot be read ({exc.strerror}); the JSON file "
                           "is the canonical form, a sidecar is never read alone") from None
            if meta.get("json_sha256") != actual:
                raise fail(f"does not belong to {json_path.name} (written from a JSON file with SHA-256 "
                           f"{str(meta.get('json_sha256'))[:12]}..., this one has {actual[:12]}...): "
                           "delete it, or write it again from the JSON file")
            skeleton_bytes = z["skeleton"].tobytes()
            loaded = {n: z[n] for n in names if n not in ("meta", "skeleton")}
            if meta.get("content_sha256") != content_sha256(skeleton_bytes, loaded):
                raise fail("its content does not match the SHA-256 it was written with (altered or "
                           "re-packed after writing): delete it, or write it again from the JSON file")
            skeleton = json.loads(skeleton_bytes.decode("utf-8", "surrogatepass"))
            arrays = _Members(loaded, names)
            enabled = gc.isenabled()
            gc.disable()  # millions of new lists and dicts, no cycle among them: no collection needed
            try:
                return decode(skeleton, arrays)
            finally:
                if enabled:
                    gc.enable()
    except SidecarError:
        raise
    except _Corrupt as exc:
        raise fail(f"corrupt ({exc}): delete it or write it again") from None
    except (OSError, ValueError, EOFError, KeyError, IndexError, TypeError, zipfile.BadZipFile,
            UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise fail(f"unreadable or corrupt ({type(exc).__name__}: {reason[:120]}): delete it or write it again") from None


class _Members:
    """``z[key]`` with a clear error for a missing member."""

    def __init__(self, z, names) -> None:
        self.z, self.names = z, names

    def __getitem__(self, key: str) -> np.ndarray:
        if not isinstance(key, str) or key not in self.names or key in ("meta", "skeleton"):
            raise _Corrupt(f"the array {key!r} is missing")
        return self.z[key]


def read_json_data(path: str | Path, problem: str, *, sidecar: bool = True) -> Any:
    """The JSON data in ``path``: from its sidecar when ``sidecar`` and ``<path>.npz`` exists
    (checked against the JSON bytes), else parsed (:func:`optsched.core.jsonfile.load_json_file`).
    A drop-in for ``load_json_file``: the same data either way."""
    if sidecar and sidecar_path(path).exists() and Path(path).exists():
        return read_sidecar(path, problem)
    from .jsonfile import load_json_file

    return load_json_file(path, problem)



def sync_sidecar(output: str | Path | None, data: Any, *, write: bool, problem: str = "cli") -> Path | None:
    """After a JSON file was written at ``output`` from ``data``: write its sidecar when ``write``
    (``--sidecar``), else remove a sidecar left there by an earlier file (it would no longer
    match). For the CLI's ``generate``, ``import`` and ``solve -o``; ``output`` None or ``-``
    (standard output) with ``write`` is invalid input (a sidecar sits next to its JSON file)."""
    if output in (None, "-"):
        if write:
            raise InvalidOptionError(problem, "--sidecar", "needs -o FILE (a sidecar is written next to its JSON file)")
        return None
    if write:
        return write_sidecar(output, data)
    sidecar_path(output).unlink(missing_ok=True)
    return None
