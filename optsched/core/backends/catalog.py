"""The single-solver back-ends by name: what a portfolio races and what :func:`optsched.core.backends.get_backend`
returns for a plain name. The portfolio (:mod:`.portfolio`) is built on this catalog, and the
package (:mod:`optsched.core.backends`) adds the portfolio to it, so that no back-end module
imports the package that re-exports it."""

from __future__ import annotations

from ..errors import UnknownNameError
from .base import Backend
from .cpsat import CpSatBackend
from .cvxpy_highs import CvxpyBackend
from .highs import HighsBackend
from .pyomo_highs import PyomoBackend
from .scip import ScipBackend
from .scipy_milp import ScipyBackend

__all__ = ["SOLVERS", "get_solver"]

#: every back-end that runs one solver, by name (in the order ``optsched backends`` lists them)
SOLVERS: dict[str, Backend] = {b.name: b for b in (HighsBackend(), PyomoBackend(), CvxpyBackend(), ScipyBackend(),
                                                   ScipBackend(), CpSatBackend())}


def get_solver(name: str) -> Backend:
    """The single-solver back-end called ``name``."""
    try:
        return SOLVERS[name]
    except KeyError:
        raise UnknownNameError("backend", name, list(SOLVERS)) from None
