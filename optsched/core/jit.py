"""``njit``: numba's compiler for the hot loops, or the plain Python function where numba is absent.

numba is a base dependency, so the compiled path is the one that runs; the fallback keeps the
modules importable (and their Python loops correct, only slower) in an environment without it.
Modules with compiled kernels import :func:`njit` and :data:`HAVE_NUMBA` from here.
"""

from __future__ import annotations

__all__ = ["njit", "HAVE_NUMBA"]

try:  # pragma: no cover - exercised by whichever environment runs the tests
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

    def njit(*args, **kwargs):
        """The identity decorator, with or without arguments (``@njit`` and ``@njit(cache=True)``)."""
        if args and callable(args[0]):
            return args[0]
        return lambda f: f
