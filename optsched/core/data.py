"""Where the real data sets are: ``OPTSCHED_DATA_DIR`` when it is set, else the user cache that
``optsched data fetch`` fills (:func:`default_data_dir`; :mod:`optsched.core.datasets` lists the
data sets, their pinned sources and SHA-256). Nothing is copied into the repository; callers that
need a file and do not find it skip with :class:`DataUnavailable`'s message."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["data_dir", "data_file", "data_target", "default_data_dir", "DataUnavailable", "sha256_file"]

ENV = "OPTSCHED_DATA_DIR"


class DataUnavailable(LookupError):
    """A data file is not available on this machine (the message says which and why)."""


def default_data_dir() -> Path:
    """The user cache folder ``optsched data fetch`` writes to when ``OPTSCHED_DATA_DIR`` is unset:
    ``<user cache>/optsched/data`` (``~/.cache/optsched/data`` on Linux, honouring
    ``XDG_CACHE_HOME``; ``~/Library/Caches/optsched/data`` on macOS)."""
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # platformdirs comes with pooch; a bare install still has a sensible default
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "optsched" / "data"
    return Path(user_cache_dir("optsched", appauthor=False)) / "data"


def data_target() -> Path:
    """Where the data directory is, existing or not: ``OPTSCHED_DATA_DIR`` or the user cache."""
    value = os.environ.get(ENV)
    return Path(value) if value else default_data_dir()


def data_dir() -> Path | None:
    """The data directory if it exists (``OPTSCHED_DATA_DIR``, else the user cache), else None."""
    path = data_target()
    return path if path.is_dir() else None


def data_file(relative: str) -> Path:
    """The path of ``relative`` inside the data directory, or :class:`DataUnavailable`."""
    root = data_dir()
    if root is None:
        if os.environ.get(ENV):
            raise DataUnavailable(f"{ENV}={os.environ[ENV]} is not an existing directory; {relative} unavailable")
        raise DataUnavailable(f"{ENV} is not set and {default_data_dir()} does not exist "
                              f"('optsched data fetch --all' downloads the data sets); {relative} unavailable")
    path = root / relative
    if not path.is_file():
        raise DataUnavailable(f"{relative} not found in {root} ('optsched data fetch --all' downloads the data sets)")
    return path


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
