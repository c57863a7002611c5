"""Where the real data sets are: ``OPTSCHED_DATA_DIR`` (the Makefile points it at ``shared/data``
beside the repository). Nothing is copied into the repository; callers that need a file and do
not find it skip with :class:`DataUnavailable`'s message."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["data_dir", "data_file", "DataUnavailable", "sha256_file"]

ENV = "OPTSCHED_DATA_DIR"


class DataUnavailable(LookupError):
    """A data file is not available on this machine (the message says which and why)."""


def data_dir() -> Path | None:
    value = os.environ.get(ENV)
    if not value:
        return None
    path = Path(value)
    return path if path.is_dir() else None


def data_file(relative: str) -> Path:
    """The path of ``relative`` inside the data directory, or :class:`DataUnavailable`."""
    root = data_dir()
    if root is None:
        raise DataUnavailable(f"{ENV} is not set to an existing directory; {relative} unavailable")
    path = root / relative
    if not path.is_file():
        raise DataUnavailable(f"{relative} not found in {root}")
    return path


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
