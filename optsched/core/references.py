"""Reference instances stored as data: an instance with its reference value and provenance.

A reference file (``instances/<problem>/<name>.json``) holds::

    {"format_version": 1, "problem": ..., "instance": {...instance JSON...},
     "reference": {"value": ..., "kind": "optimum" | "best_known" | "bound", "status": ...,
                   "method": ..., "backend": ..., "solver_version": ..., "cross_checks": {...},
                   "how": "one sentence on how the value was obtained"}}

Values from external files carry the source file's name and SHA-256 instead of the instance
(the data is never copied into the repository).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import InvalidInstanceError
from .instance import load_json_file

__all__ = ["write_reference", "read_reference", "REFERENCE_FORMAT_VERSION"]

REFERENCE_FORMAT_VERSION = 1
_KINDS = ("optimum", "best_known", "bound")


def write_reference(path: str | Path, instance: Any, reference: dict) -> None:
    if reference.get("kind") not in _KINDS:
        raise ValueError(f"reference kind must be one of {_KINDS}")
    data = {"format_version": REFERENCE_FORMAT_VERSION, "problem": instance.problem,
            "instance": instance.to_json(), "reference": reference}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def read_reference(path: str | Path) -> tuple[Any, dict]:
    """(instance, reference dict) of a reference file; the instance is validated."""
    from .registry import get_problem

    data = load_json_file(path, "reference")
    if not isinstance(data, dict) or data.get("format_version") != REFERENCE_FORMAT_VERSION:
        raise InvalidInstanceError("reference", "format_version", f"must be {REFERENCE_FORMAT_VERSION}",
                                   data.get("format_version") if isinstance(data, dict) else data)
    for key in ("problem", "instance", "reference"):
        if key not in data:
            raise InvalidInstanceError("reference", key, "missing")
    problem = get_problem(data["problem"])
    return problem.instance_type.from_json(data["instance"]), data["reference"]
