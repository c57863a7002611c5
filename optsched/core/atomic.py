"""Atomic, checked output files: every verb's file appears whole or not at all.

A file is written to a temporary file in the same folder (``.<name>.<random>.tmp<suffix>``: the
same file system, so the final rename is atomic, and the same suffix, for writers that choose
the format by it), flushed and ``fsync``-ed, and renamed over the target; the folder is then
``fsync``-ed (best effort) so the rename itself survives a power cut. Any failure (a full disk,
a read-only folder, an I/O error, Ctrl-C or SIGTERM in the middle) removes the temporary file and
leaves the target as it was: the earlier file, or none. An ``OSError`` becomes
:class:`OutputError`, one line naming the file and the system's reason (CLI exit status 1).

Only a regular file (or a path that does not exist yet) is an output: a device (``/dev/null``,
``/dev/full``), a folder, a FIFO or a socket at the target is refused with
:class:`~optsched.core.errors.InvalidOptionError` (CLI exit status 2) before anything is written,
and checked again just before the rename, so that the rename never replaces such a node by a
regular file (as root it could: ``rename`` over ``/dev/null`` succeeds).

X
artifacts and index (``docs/cli.md``, "Output files").
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Callable, Iterator

from .errors import InvalidOptionError, OptschedError

__all__ = ["OutputError", "atomic_path", "atomic_open", "write_text", "write_bytes", "write_with", "temp_path",
           "not_a_file", "check_target"]


class OutputError(OptschedError):
    """An output file could not be written (disk full, read-only folder, I/O error). Nothing is
    left behind; the CLI prints the one line and exits with status 1."""

    exit_status = 1

    def __init__(self, path: str | Path, reason: str):
        self.path = Path(path)
        super().__init__(f"cannot write {path}: {reason}")


def temp_path(path: str | Path) -> Path:
    """A fresh temporary name next to ``path`` with the same suffix."""
    path = Path(path)
    return path.with_name(f".{path.stem}.{secrets.token_hex(4)}.tmp{path.suffix}")


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def not_a_file(path: str | Path) -> str | None:
    """Why ``path`` cannot be an output file (``"is a character device, not a regular file"``), or
    None: a regular file (a symbolic link to one included) or a path that does not exist yet.

    >>> not_a_file("/dev/null")
    'is a character device, not a regular file'
    >>> not_a_file("/"), not_a_file("/nonexistent/x.json")
    ('is a folder, not a regular file', None)
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:  # e.g. a symbolic link loop, no permission: the write itself reports it
        return None
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    return f"is {kind}, not a regular file"


def check_target(path: str | Path, subject: str = "output", option: str = "path") -> None:
    """Raise :class:`InvalidOptionError` (``subject``, ``option``: e.g. the problem and ``"-o"``) if
    ``path`` exists and is not a regular file (:func:`not_a_file`)."""
    reason = not_a_file(path)
    if reason is not None:
        raise InvalidOptionError(subject, option, reason, str(path))


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not possible on every platform (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on a folder
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block ends normally the file written
    there is ``fsync``-ed and renamed to ``path``. On any exception (or if the block wrote
    nothing) the temporary file is removed and ``path`` is untouched; an ``OSError`` is raised
    as :class:`OutputError`. For writers that take a file name (matplotlib, HiGHS).

    A target that exists and is not a regular file is refused before anything is written, and
    again just before the rename (:func:`check_target`)."""
    path = Path(path)
    check_target(path)
    tmp = temp_path(path)
    try:
        yield tmp
        if not tmp.exists():
            raise OutputError(path, "the writer produced no file")
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        check_target(path)  # a node that appeared meanwhile is never replaced
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        raise OutputError(path, _reason(exc)) from None
    except BaseException:
        _discard(tmp)
        raise
    _fsync_dir(path.parent if str(path.parent) else Path("."))


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """``open(path, mode)`` for writing, atomically (see the module); ``mode`` is ``"w"`` or
    ``"wb"``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a new file: mode 'w' or 'wb', not {mode!r}")
    with atomic_path(path) as tmp:
        kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
        try:
            fh = open(tmp, mode, **kwargs)
        except OSError as exc:
            raise OutputError(path, _reason(exc)) from None
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; returns ``path``."""
    with atomic_open(path, "w", encoding=encoding) as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns ``path``."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)
    return Path(path)


def write_with(path: str | Path, writer: Callable[[Path], object]) -> Path:
    """Call ``writer(tmp)`` to write a file at a temporary path, then move it to ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
    return Path(path)


def _discard(tmp: Path) -> None:
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    except OSError:  # pragma: no cover - a folder that turned read-only meanwhile
        pass
