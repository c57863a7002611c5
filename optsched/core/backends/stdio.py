"""Descriptor-level silencing of standard output, for solver libraries that print from C/C++ code
(HiGHS' banner, the solver layers of Pyomo and CVXPY). Used by :mod:`.highs` and by
:meth:`.base.Backend._solve_quiet`; it imports no solver."""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["quiet_stdout"]


def _c_flush() -> None:
    """Flush the C library's stdio buffers (what HiGHS writes with printf may sit there)."""
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # pragma: no cover - no C runtime handle (Windows)
        pass


@contextlib.contextmanager
def quiet_stdout(target: str | int = os.devnull):
    """Point file descriptor 1 at ``target`` (a path or an open descriptor) for the block.

    Works at the descriptor level, so it catches output of C++ code too. Does nothing when
    descriptor 1 is not open.
    """
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    fd = os.open(target, os.O_WRONLY) if isinstance(target, str) else os.dup(target)
    try:
        os.dup2(fd, 1)
        yield
    finally:
        _c_flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)
