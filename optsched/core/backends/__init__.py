"""Solver back-ends behind one interface (see :mod:`.base`).

========  ============================================================================
name      route
========  ============================================================================
highs     highspy directly from sparse matrices (default; cancellable in-process)
pyomo     Pyomo ConcreteModel -> Pyomo's HiGHS interface
cvxpy     CVXPY problem -> CVXPY's HIGHS interface
scipy     scipy.optimize.milp, SciPy's own HiGHS build (independent route for cross-checks)
scip      SCIP through PySCIPOpt, from the sparse rows directly
cpsat     OR-Tools CP-SAT; pure-integer models scaled exactly to integers (else refused, exit 2)
portfolio races highs (cpsat on models it accepts) and scip; ``portfolio:a+b`` races the members named
========  ============================================================================
"""

from __future__ import annotations

from ..errors import UnknownNameError
from .base import Backend, SolverSettings
from .catalog import SOLVERS
from .cvxpy_highs import CvxpyBackend
from .highs import HighsBackend
from .pyomo_highs import PyomoBackend
from .scipy_milp import ScipyBackend
from .scip import ScipBackend
from .cpsat import CpSatBackend
from .portfolio import PortfolioBackend, parse_portfolio_name

__all__ = ["Backend", "SolverSettings", "BACKENDS", "get_backend", "DEFAULT_BACKEND", "write_mps"]

BACKENDS: dict[str, Backend] = dict(SOLVERS)
# CP-SAT takes HiGHS' place on the models it accepts exactly (pure-integer, exactly scaled):
# measured faster than HiGHS on every OR-Library mknapcb1 instance (paper_repro T16)
BACKENDS["portfolio"] = PortfolioBackend(name="portfolio", substitutes={"highs": "cpsat"})
DEFAULT_BACKEND = "highs"


def get_backend(name: str | None) -> Backend:
    """The back-end called ``name`` (the default when None)."""
    name = name or DEFAULT_BACKEND
    try:
        return BACKENDS[name]
    except KeyError:
        pass
    if name.startswith("portfolio:"):  # portfolio:highs+cpsat races the members named
        members = parse_portfolio_name(name)
        unknown = [m for m in members if m not in BACKENDS or m.startswith("portfolio")]
        if len(members) >= 1 and not unknown and len(set(members)) == len(members):
            return PortfolioBackend(members)
        name = unknown[0] if unknown else name
    raise UnknownNameError("backend", name, list(BACKENDS))


def write_mps(model, path) -> None:
    """Write ``model`` (a :class:`~optsched.core.linear.LinearModel`) in free MPS format through
    HiGHS, readable by any MILP solver.

    HiGHS writes into a private temporary folder (its C stdio writes are not checked for a full
    disk); the text, checked to end with ``ENDATA``, is then written to ``path`` atomically
    (:mod:`optsched.core.atomic`): a failure raises :class:`~optsched.core.atomic.OutputError`
    and leaves no file."""
    import tempfile
    from pathlib import Path

    from ..atomic import OutputError, write_bytes
    from .highs import to_highs

    h = to_highs(model)
    try:
        with tempfile.TemporaryDirectory(prefix="optsched-mps-") as folder:
            tmp = Path(folder) / "model.mps"
            status = h.writeModel(str(tmp))
            data = tmp.read_bytes() if tmp.exists() else b""
    except OSError as exc:
        raise OutputError(path, f"the temporary MPS file could not be written ({exc.strerror or exc})") from None
    if status.name == "kError" or not data.rstrip().endswith(b"ENDATA"):
        raise OutputError(path, "HiGHS could not write the MPS text (a full temporary folder?)")
    write_bytes(path, data)
