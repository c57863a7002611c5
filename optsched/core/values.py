"""The rules every value of a record obeys, checked while JSON data becomes a record: the largest
magnitudes (:data:`MAX_MAGNITUDE`, :data:`MAX_INTEGER`), no NaN, and the one-pass checks of long
columns (a float column of thousands of entries is checked as one numpy array, kept for
:meth:`~optsched.core.instance.Record.require_nonnegative`). The validation side of
:mod:`optsched.core.instance` (which re-exports the two limits)."""

from __future__ import annotations

import math
import threading
from typing import Any, get_args, get_origin

__all__ = ["MAX_MAGNITUDE", "MAX_INTEGER"]

#: set by Record.from_dict just before it calls the constructor with converted values, so that
#: __post_init__ validates without converting every field a second time (per thread)
_BUILDING = threading.local()

#: largest magnitude of a finite number in an instance [ours]: an objective is a sum of products
#: of a few fields over at most millions of terms, so 1e50 keeps every such value far below the
#: float overflow at 1.8e308, and far above any physical quantity (bytes, FLOPs, seconds)
MAX_MAGNITUDE = 1e50
#: largest magnitude of an integer in an instance [ours]: 2^53, the last integer a float64 holds
#: exactly (objectives mix integer fields with floats and numpy stores them as int64 or float64;
#: an integer past int64 raised OverflowError deep inside ten problems). Fields whose algorithms
#: iterate over their value have tighter bounds in the problem's ``validate`` (the problem's page, ``optsched/problems/<folder>/README.md``).
MAX_INTEGER = 2**53


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _walk(values, path):
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        yield path, float(values)
        return
    for i, v in enumerate(values):
        yield from _walk(v, f"{path}[{i}]")


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


_NUMBER_TYPES = {float: (float, int), int: (int,), str: (str,)}


def _same_types(a: tuple, b: tuple) -> bool:
    """Whether two equal tuples also hold values of the same types (1 == 1.0, but an int field
    given 1.0 must still be converted or rejected)."""
    return all(type(x) is type(y) for x, y in zip(a, b))


#: float columns at least this long are checked with numpy (one copy into an array, kept for
#: :meth:`Record.require_nonnegative` while the record is built)
_ARRAY_CHECK_MIN = 4096


def _needs_slow_path(floats: tuple) -> bool:
    """Whether a float column holds a NaN or a magnitude above :data:`MAX_MAGNITUDE` (the
    element-wise path then decides, naming the element)."""
    if len(floats) >= _ARRAY_CHECK_MIN:
        import numpy as np

        arr = np.fromiter(floats, dtype=float, count=len(floats))
        if np.isnan(arr).any() or float(np.abs(arr).max()) > MAX_MAGNITUDE:
            return True
        cache = getattr(_BUILDING, "arrays", None)
        if cache is not None:
            cache[id(floats)] = (floats, arr)
        return False
    return bool(floats) and (any(map(math.isnan, floats)) or max(map(abs, floats)) > MAX_MAGNITUDE)


def _checked_array(values):
    """The float array made from ``values`` by :func:`_needs_slow_path` while this record is being
    built (None when there is none: the caller converts)."""
    cache = getattr(_BUILDING, "arrays", None)
    entry = cache.get(id(values)) if cache else None
    return entry[1] if entry is not None and entry[0] is values else None


def _ints_in_range(values) -> bool:
    """Whether every integer of a non-empty or empty sequence is within +-:data:`MAX_INTEGER`."""
    return not values or (max(values) <= MAX_INTEGER and min(values) >= -MAX_INTEGER)


def _fast_sequence(value: Any, elem: Any, strict: bool) -> tuple | None:
    """Bulk conversion of a homogeneous ``tuple[float | int | str, ...]`` (or a tuple of such
    tuples): C-level passes instead of one :func:`_convert` call and one path string per element.
    None when the data is not homogeneous (the element-wise path then names the offending index).
    """
    if hasattr(value, "dtype") and hasattr(value, "tolist"):  # numpy arrays from generators
        if strict:
            return None
        kind = value.dtype.kind
        if elem is float and kind in "fiu" and value.ndim == 1:
            out = tuple(value.astype(float).tolist())
            return None if _needs_slow_path(out) else out
        if elem is int and kind in "iu" and value.ndim == 1:
            out = tuple(value.tolist())
            return out if _ints_in_range(out) else None
        return None
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        return None
    allowed = _NUMBER_TYPES.get(elem)
    if allowed is not None:
        kinds = set(map(type, value))
        if not kinds <= set(allowed):
            return None
        if elem is float:
            try:
                out = tuple(map(float, value)) if int in kinds else tuple(value)
            except OverflowError:   # an integer beyond the float range: the slow path names it
                return None
            return None if _needs_slow_path(out) else out  # NaN or huge: the slow path names it
        out = tuple(value)
        return out if elem is not int or _ints_in_range(out) else None  # the slow path names it
    if get_origin(elem) is tuple:
        inner = get_args(elem)
        if inner and Ellipsis not in inner and all(a in _NUMBER_TYPES for a in inner):
            # fixed-length rows of scalars, e.g. edges (u, v, bytes): checked column by column
            # with C-level passes (zip, map, set)
            if not value:
                return ()
            if not set(map(type, value)) <= {list, tuple}:
                return None
            if set(map(len, value)) != {len(inner)}:
                return None
            columns = list(zip(*value))
            for c, a in enumerate(inner):
                kinds = set(map(type, columns[c]))
                if not kinds <= set(_NUMBER_TYPES[a]):
                    return None
                if a is int and not _ints_in_range(columns[c]):
                    return None
                if a is float:
                    try:
                        columns[c] = tuple(map(float, columns[c])) if int in kinds else columns[c]
                    except OverflowError:
                        return None
                    if _needs_slow_path(columns[c]):
                        return None
            return tuple(zip(*columns))
        if len(inner) == 2 and inner[1] is Ellipsis and inner[0] in (float, int):
            rows = []
            for row in value:
                conv = _fast_sequence(row, inner[0], strict)
                if conv is None:
                    return None
                rows.append(conv)
            return tuple(rows)
    return None


_ORIGIN_ARGS: dict[int, tuple[Any, Any, tuple]] = {}


def _origin_args(tp: Any) -> tuple[Any, tuple]:
    """``(get_origin(tp), get_args(tp))``, computed once per annotation object (keyed by identity:
    hashing a typing generic walks its arguments; the entry keeps the annotation alive)."""
    entry = _ORIGIN_ARGS.get(id(tp))
    if entry is None or entry[0] is not tp:
        entry = _ORIGIN_ARGS[id(tp)] = (tp, get_origin(tp), get_args(tp))
    return entry[1], entry[2]
