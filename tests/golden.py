"""Stored golden outputs: how they are written and compared (``tests/golden.md``).

A value is compared through the SHA-256 of a canonical JSON text in which every number is a float
(``1`` and ``1.0`` give the same text, as they compare equal in Python), tuples are lists, and
keys are sorted. Floats are written with Python's shortest repr, which reads back as the same
double, so equal digests mean equal values bit for bit: the comparison is exact (==).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

__all__ = ["canonical", "digest", "dump", "load"]


def canonical(value: Any) -> Any:
    """``value`` with numbers as floats, tuples (and numpy arrays) as lists, dicts with string keys."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if hasattr(value, "item") and not hasattr(value, "__len__"):   # a numpy scalar
        value = value.item()
        if isinstance(value, bool):
            return value
    if isinstance(value, (int, float)):
        value = float(value)
        if not math.isfinite(value):
            return repr(value)   # inf, nan: JSON has no literal for them
        return value
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return canonical(value.tolist())
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    raise TypeError(f"cannot store a {type(value).__name__} as a golden value")


def digest(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value`` (see the module docstring)."""
    text = json.dumps(canonical(value), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, allow_nan=False) + "\n")


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text())
