"""Cell identity: canonical parameters, cell keys and cell seeds.

* ``canonical_json(obj)``: sorted keys, no whitespace, ASCII, no NaN; what keys hash.
* ``cell_key(experiment_id, params, versions, revision)``: SHA-256 of the experiment id, the
  canonical parameters, the software versions (optsched's version and a digest of its source
  files, every solver back-end's version, and the experiment script's digest, which the runner
  adds) and the experiment's ``revision`` when it is not 0. A finished cell is reused only when
  its key matches, so any change of the code, the script or a solver recomputes it.
* ``cell_seed(experiment_id, params)``: the seed ``run_cell`` receives. It is the parameter's
  ``seed`` when the cell carries one (an int), else derived (``derive_seed``) from the
  version-free part of the key, the experiment id and canonical parameters. Leaving the versions
  out is deliberate: after an upgrade the same cells draw the same instances, so the difference
  from the committed reference shows what the code change did, not a reshuffle.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import derive_seed

__all__ = ["canonical_json", "cell_key", "cell_seed", "software_versions", "source_digest", "file_digest"]


def canonical_json(obj) -> str:
    """The canonical JSON text of ``obj`` (raises :class:`InvalidOptionError` if not JSON-able).

    >>> canonical_json({"b": [1, 2.5], "a": "x"})
    '{"a":"x","b":[1,2.5]}'
    """
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidOptionError("repro", "cell parameters", f"must be JSON-able without NaN ({exc})",
                                 obj) from None


@lru_cache(maxsize=1)
def _cached_versions() -> tuple[tuple[str, str], ...]:
    import optsched
    from optsched.core.backends import BACKENDS

    out = [("optsched", optsched.__version__), ("optsched-source", source_digest())]
    for name, backend in sorted(BACKENDS.items()):
        out.append((f"backend:{name}", backend.version() if backend.available() else "unavailable"))
    return tuple(out)


def source_digest() -> str:
    """SHA-256 over optsched's Python sources (relative path and content, in path order)."""
    import optsched

    root = Path(optsched.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def software_versions() -> dict[str, str]:
    """``{"optsched": ..., "backend:<name>": <version>, ...}``: what a cell key depends on."""
    return dict(_cached_versions())


def cell_key(experiment_id: str, params: dict, versions: dict[str, str], revision: int = 0) -> str:
    """The hex SHA-256 key of one cell (``revision``: the experiment's, included when not 0).

    >>> k = cell_key("T0", {"n": 1, "m": 2}, {"optsched": "1"})
    >>> k == cell_key("T0", {"m": 2, "n": 1}, {"optsched": "1"})
    True
    >>> k == cell_key("T0", {"n": 1, "m": 2}, {"optsched": "2"})
    False
    """
    identity = {"experiment": experiment_id, "params": params, "versions": versions}
    if revision:
        identity["revision"] = revision
    text = canonical_json(identity)
    return hashlib.sha256(text.encode()).hexdigest()


def cell_seed(experiment_id: str, params: dict) -> int:
    """The seed of a cell: ``params["seed"]`` if it is an int, else derived from id and params.

    >>> cell_seed("T0", {"seed": 7, "n": 3})
    7
    >>> cell_seed("T0", {"n": 3}) == cell_seed("T0", {"n": 3}) != cell_seed("T0", {"n": 4})
    True
    """
    explicit = params.get("seed")
    if isinstance(explicit, int) and not isinstance(explicit, bool):
        return explicit
    return derive_seed(0, "repro", experiment_id, canonical_json(params))
