"""Immutable, validated instances with an exact JSON round-trip.

A problem's instance is a frozen dataclass deriving from :class:`Instance`. Field types drive
the JSON conversion (``int``, ``float``, ``str``, ``bool``, ``Literal[...]``, ``tuple[T, ...]``,
fixed tuples, ``dict[str, T]``, ``T | None`` and nested :class:`Record` dataclasses), unknown
fields are rejected with the field's path, lists become tuples, and :meth:`Instance.validate`
states the problem's rules. Floats round-trip exactly (Python writes the shortest repr).

This module is the record and its type-driven conversion; the rules every value obeys (largest
magnitudes, no NaN, one-pass checks of long columns) are :mod:`optsched.core.values`, and JSON
text and files (canonical JSON, the one reader) :mod:`optsched.core.jsonfile`; the names users
import from here (``canonical_json``, ``load_json_file``, ``MAX_MAGNITUDE``, ...) are re-exported.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Toy(Instance):
...     problem = "toy"
...     sizes: tuple[float, ...]
...     capacity: float
...     def validate(self):
...         self.require_nonnegative("sizes", self.sizes)
>>> t = Toy(sizes=[1, 2.5], capacity=3)
>>> t.sizes
(1.0, 2.5)
>>> Toy.from_json(t.to_json()) == t
True
>>> Toy.from_json({"format_version": 1, "problem": "toy", "sizes": [1], "capacity": 1, "colour": 2})
Traceback (most recent call last):
...
optsched.core.errors.InvalidInstanceError: toy: field 'colour': unknown field
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import types
import typing
from pathlib import Path
from typing import Any, ClassVar, Iterator, Literal, Union

from .errors import InvalidInstanceError
from .jsonfile import COMPACT_ABOVE, _orjson, _size_hint, canonical_json, load_json_file
from .values import (MAX_INTEGER, MAX_MAGNITUDE, _BUILDING, _checked_array, _fast_sequence, _join,
                     _origin_args, _same_types, _type_name, _walk)

__all__ = ["Record", "Instance", "canonical_json", "load_json_file", "MAX_MAGNITUDE", "MAX_INTEGER",
           "COMPACT_ABOVE"]

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


@functools.lru_cache(maxsize=None)
def _plan(cls: type) -> tuple[tuple[str, ...], frozenset[str], dict[str, Any]]:
    """A record class's field names (in order), its required fields and its type hints."""
    fields = dataclasses.fields(cls)
    required = frozenset(f.name for f in fields
                         if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
    return tuple(f.name for f in fields), required, _hints(cls)


class Record:
    """A frozen dataclass with type-driven conversion from and to JSON data.

    Subclasses are ``@dataclass(frozen=True)``. Construction normalizes lists into tuples and
    ints into floats where the annotation says so, then calls :meth:`validate`.
    """

    #: the problem name used in error messages (instances set it; nested records inherit it)
    problem: ClassVar[str] = "record"

    def __post_init__(self) -> None:
        if getattr(_BUILDING, "converted", False):
            _BUILDING.converted = False   # from_dict converted every field already
            self.validate()
            return
        outermost = getattr(_BUILDING, "arrays", None) is None
        if outermost:
            _BUILDING.arrays = {}   # float arrays made while checking, reused by validate()
        try:
            for f in dataclasses.fields(self):
                value = getattr(self, f.name)
                converted = _convert(value, _hints(type(self))[f.name], f.name, self.problem, strict=False)
                if converted is not value:
                    object.__setattr__(self, f.name, converted)
            self.validate()
        finally:
            if outermost:
                _BUILDING.arrays = None

    def validate(self) -> None:
        """Check the problem's static rules; raise through :meth:`invalid`."""

    # -- helpers for validate() -------------------------------------------------------------
    def invalid(self, field: str, rule: str, got: object = ...) -> InvalidInstanceError:
        """An :class:`InvalidInstanceError` for this record's problem."""
        return InvalidInstanceError(self.problem, field, rule, got)

    def require(self, condition: bool, field: str, rule: str, got: object = ...) -> None:
        if not condition:
            raise self.invalid(field, rule, got)

    def require_nonnegative(self, field: str, values, *, strict: bool = False) -> None:
        """Every number in a (nested) sequence is >= 0 (> 0 when ``strict``) and finite; the error
        names the first offending index. Rectangular data is checked in one vectorized pass."""
        import numpy as np

        arr = _checked_array(values)
        if arr is None:
            try:
                arr = np.asarray(values, dtype=float)
            except (TypeError, ValueError):   # ragged: element by element
                arr = None
        if arr is not None and arr.dtype == float:
            bad = ~np.isfinite(arr) | ((arr <= 0) if strict else (arr < 0))
            if not bad.any():
                return
            index = np.unravel_index(int(np.flatnonzero(bad.ravel())[0]), arr.shape)
            path = field + "".join(f"[{int(i)}]" for i in index)
            raise self.invalid(path, "must be > 0" if strict else "must be >= 0 and finite", float(arr[index]))
        for path, v in _walk(values, field):
            if not math.isfinite(v) or (v <= 0 if strict else v < 0):
                raise self.invalid(path, "must be > 0" if strict else "must be >= 0 and finite", v)

    def field_violations(self, *, at_least: dict[str, float] | None = None, nonnegative: tuple[str, ...] = (),
                         positive: tuple[str, ...] = ()) -> list[tuple[str, str, object]]:
        """``(field, rule, value)`` for every named scalar field that breaks its rule: ``at_least``
        maps fields to their minimum; ``nonnegative`` fields must be >= 0 and finite, ``positive``
        ones > 0 and finite. For records whose container reports them with its own path.

        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Job(Record):
        ...     gpus: int
        ...     size: float
        >>> Job(gpus=0, size=-1.0).field_violations(at_least={"gpus": 1}, positive=("size",))
        [('gpus', 'must be >= 1', 0), ('size', 'must be > 0 and finite', -1.0)]
        """
        out: list[tuple[str, str, object]] = []
        for name, minimum in (at_least or {}).items():
            value = getattr(self, name)
            if value < minimum:
                out.append((name, f"must be >= {minimum:g}", value))
        for name in nonnegative:
            value = getattr(self, name)
            if not 0 <= value < math.inf:
                out.append((name, "must be >= 0 and finite", value))
        for name in positive:
            value = getattr(self, name)
            if not 0 < value < math.inf:
                out.append((name, "must be > 0 and finite", value))
        return out

    def require_distinct_names(self, field: str, records, attr: str = "name") -> None:
        """Records that identify themselves by ``attr`` (a job's or machine's name) use distinct
        non-empty names; the error names the later duplicate, e.g. ``jobs[3].name``."""
        seen: dict[str, int] = {}
        for i, rec in enumerate(records):
            name = getattr(rec, attr)
            if not name:
                continue
            if name in seen:
                raise self.invalid(f"{field}[{i}].{attr}", f"duplicates {field}[{seen[name]}].{attr}: names "
                                   "identify the entries and must be distinct", name)
            seen[name] = i

    def require_shape(self, field: str, values, shape: tuple[int, ...]) -> None:
        """A nested sequence has the given shape (e.g. ``(m, n)``)."""
        def check(v, dims, path):
            if not dims:
                return
            if len(v) != dims[0]:
                raise self.invalid(path, f"must have length {dims[0]}", len(v))
            for i, item in enumerate(v):
                check(item, dims[1:], f"{path}[{i}]")
        check(values, shape, field)

    # -- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {f.name: _to_data(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Any, path: str = "", problem: str | None = None) -> "Record":
        problem = problem or cls.problem
        where = path or "(top level)"
        if not isinstance(data, dict):
            raise InvalidInstanceError(problem, where, "must be a JSON object", type(data).__name__)
        names, required, hints = _plan(cls)
        for key in data:
            if key not in names:
                raise InvalidInstanceError(problem, _join(path, key), "unknown field")
        outermost = getattr(_BUILDING, "arrays", None) is None
        if outermost:
            _BUILDING.arrays = {}   # float arrays made while checking, reused by validate()
        try:
            kwargs = {}
            for name in names:
                if name not in data:
                    if name in required:
                        raise InvalidInstanceError(problem, _join(path, name), "missing")
                    continue
                kwargs[name] = _convert(data[name], hints[name], _join(path, name), problem, strict=True)
            _BUILDING.converted = True
            try:
                return cls(**kwargs)
            finally:
                _BUILDING.converted = False
        finally:
            if outermost:
                _BUILDING.arrays = None


class Instance(Record):
    """Base of every problem instance: a :class:`Record` with a problem name and format version."""

    format_version: ClassVar[int] = 1

    def to_json(self) -> dict:
        return {"format_version": self.format_version, "problem": self.problem, **self.to_dict()}

    def dumps(self, indent: int | None = None) -> str:
        return json.dumps(self.to_json(), indent=indent, allow_nan=False)

    def json_chunks(self, indent: int | None = None) -> Iterator[str]:
        """The text of :meth:`dumps` in pieces, which the command line writes one by one: a hook for
        types with very large arrays (this default is the whole text at once)."""
        yield self.dumps(indent)

    def save(self, path: str | Path, *, sidecar: bool = False) -> None:
        """Write the instance as JSON (indented for small instances; compact, through orjson when
        installed, beyond :data:`COMPACT_ABOVE` characters of data). ``sidecar=True`` also writes
        the binary sidecar ``<path>.npz`` (:mod:`optsched.core.sidecar`), which :meth:`load` then
        reads instead of parsing the JSON; without it, a stale sidecar of an earlier file at
        ``path`` is removed (it would no longer match)."""
        from .sidecar import sidecar_path, write_sidecar

        from .atomic import write_bytes, write_text

        data = self.to_json()
        orjson = _orjson()
        if orjson is not None and _size_hint(data) > COMPACT_ABOVE:
            write_bytes(path, orjson.dumps(data) + b"\n")  # atomic: the file appears whole or not at all
        else:
            write_text(path, json.dumps(data, indent=1, allow_nan=False) + "\n")
        if sidecar:
            write_sidecar(path, data)
        else:
            sidecar_path(path).unlink(missing_ok=True)

    @classmethod
    def from_json(cls, data: Any) -> "Instance":
        if not isinstance(data, dict):
            raise InvalidInstanceError(cls.problem, "(top level)", "must be a JSON object", type(data).__name__)
        data = dict(data)
        version = data.pop("format_version", None)
        if version is None:
            raise InvalidInstanceError(cls.problem, "format_version", "missing")
        if version != cls.format_version:
            raise InvalidInstanceError(cls.problem, "format_version",
                                       f"must be {cls.format_version} (this optsched reads version "
                                       f"{cls.format_version})", version)
        problem = data.pop("problem", cls.problem)
        if problem != cls.problem:
            raise InvalidInstanceError(cls.problem, "problem", f"must be {cls.problem!r}", problem)
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path, *, sidecar: bool = True) -> "Instance":
        """Read an instance file; from its binary sidecar ``<path>.npz`` when there is one that
        belongs to it (``sidecar=False``: always parse the JSON). The same data, conversion and
        validation either way (:func:`optsched.core.sidecar.read_json_data`); without a sidecar,
        through the type's own reader first (:meth:`load_fast`)."""
        from .sidecar import read_json_data, sidecar_path

        if not (sidecar and sidecar_path(path).exists()):
            inst = cls.load_fast(path)
            if inst is not None:
                return inst
        return cls.from_json(read_json_data(path, cls.problem, sidecar=sidecar))

    @classmethod
    def load_fast(cls, path: str | Path) -> "Instance | None":
        """A hook for instance types with very large files: the instance in the JSON file ``path``
        read by the type's own faster reader, or None to use the generic one (this default). It
        must give the instance the generic reader gives, and leave every file it does not fully
        handle (invalid input included) to the generic reader, whose errors name the field."""
        return None

    def sha256(self) -> str:
        """SHA-256 of the canonical JSON of the instance (what results record); computed once per
        instance object (instances are immutable)."""
        cached = self.__dict__.get("_sha256")
        if cached is None:
            cached = hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()
            object.__setattr__(self, "_sha256", cached)
        return cached


def _convert(value: Any, tp: Any, path: str, problem: str, *, strict: bool) -> Any:
    """Convert JSON data (or constructor arguments) to the annotated type, naming the path."""
    vt = type(value)
    if vt is tp and (vt is str or (vt is int and -MAX_INTEGER <= value <= MAX_INTEGER)
                     or (vt is float and abs(value) <= MAX_MAGNITUDE)):
        return value   # the common case: a JSON scalar of the annotated type (NaN excluded)
    origin, targs = _origin_args(tp)
    if tp is Any or tp is object:
        return value
    if origin in (Union, types.UnionType):
        args = targs
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(value, arg, path, problem, strict=strict)
            except InvalidInstanceError as exc:
                errors.append(exc)
        raise errors[0]
    if origin is Literal:
        if value not in targs:
            raise InvalidInstanceError(problem, path, "must be one of " + ", ".join(map(repr, targs)), value)
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise InvalidInstanceError(problem, path, "must be true or false", value)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if not strict and hasattr(value, "__index__") and not isinstance(value, bool):
                value = int(value)  # numpy integers from generators
            else:
                raise InvalidInstanceError(problem, path, "must be an integer", value)
        if not -MAX_INTEGER <= value <= MAX_INTEGER:
            raise InvalidInstanceError(problem, path, f"magnitude must be at most 2^53 = {MAX_INTEGER} (larger "
                                       "integers lose exactness in float arithmetic and overflow int64)",
                                       value if abs(value) < 10**30 else f"{str(value)[:12]}... ({len(str(abs(value)))} digits)")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if not strict and hasattr(value, "__float__") and not isinstance(value, (str, bytes)):
                value = float(value)
            else:
                raise InvalidInstanceError(problem, path, "must be a number", value)
        try:
            value = float(value)
        except OverflowError:
            raise InvalidInstanceError(problem, path, "is too large for a floating-point number", value) from None
        if math.isnan(value):
            raise InvalidInstanceError(problem, path, "must not be NaN", value)
        if math.isfinite(value) and abs(value) > MAX_MAGNITUDE:
            raise InvalidInstanceError(problem, path, f"magnitude must be at most {MAX_MAGNITUDE:g} (larger "
                                       "values overflow sums and products in objectives and simulations)", value)
        return value
    if tp is str:
        if not isinstance(value, str):
            raise InvalidInstanceError(problem, path, "must be a string", value)
        return value
    if origin is tuple:
        args = targs
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            raise InvalidInstanceError(problem, path, "must be a list", value)
        if len(args) == 2 and args[1] is Ellipsis:
            fast = _fast_sequence(value, args[0], strict)
            if fast is not None:
                return value if isinstance(value, tuple) and fast == value and _same_types(fast, value) else fast
            items = value.tolist() if hasattr(value, "tolist") and not isinstance(value, tuple) else list(value)
            out = tuple(_convert(v, args[0], f"{path}[{i}]", problem, strict=strict) for i, v in enumerate(items))
        else:
            items = list(value)
            if len(items) != len(args):
                raise InvalidInstanceError(problem, path, f"must have {len(args)} entries", len(items))
            out = tuple(_convert(v, a, f"{path}[{i}]", problem, strict=strict) for i, (v, a) in enumerate(zip(items, args)))
        return value if isinstance(value, tuple) and all(a is b for a, b in zip(out, value)) else out
    if origin is dict:
        key_tp, val_tp = targs
        if not isinstance(value, dict):
            raise InvalidInstanceError(problem, path, "must be a JSON object", value)
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInstanceError(problem, path, "keys must be strings", k)
            out[k] = _convert(v, val_tp, _join(path, k), problem, strict=strict)
        return out
    if isinstance(tp, type) and issubclass(tp, Record):
        if isinstance(value, tp):
            return value
        return tp.from_dict(value, path, problem)
    raise TypeError(f"optsched cannot convert field type {_type_name(tp)} at {path}")


#: element types a tuple of which converts to a list as is (no element to recurse into)
_PLAIN = frozenset({float, int, str, bool, type(None)})


def _to_data(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, tuple):
        kinds = set(map(type, value))
        if kinds <= _PLAIN:  # an array of scalars (10^6 of them in large instances)
            return list(value)
        if kinds == {tuple} and all(set(map(type, v)) <= _PLAIN for v in value):  # pairs, rows
            return list(map(list, value))
        return [_to_data(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_data(v) for k, v in value.items()}
    return value
