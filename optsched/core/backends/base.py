"""The back-end interface: one :class:`~optsched.core.linear.LinearModel` in, one
:class:`~optsched.core.linear.ModelSolution` out.

Every back-end honours the same :class:`SolverSettings` (time limit, relative and absolute
gaps, threads, seed, node limit, presolve) and runs under a watchdog that stops a solver which
ignores its time limit: in-process back-ends are cancelled from a timer thread, the others run in
a child process that is killed ``watchdog_factor * time_limit + watchdog_grace_s`` after start.
"""

from __future__ import annotations

import math
import time
import numbers
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import BackendRefused, InvalidOptionError
from ..linear import LinearModel, ModelSolution
from .watchdog import solve_in_child, solver_time_limit

__all__ = ["SolverSettings", "Backend", "BackendRefused", "finish", "FEATURES", "model_features",
           "abandoned_solver_threads", "settle_status", "zero_gap_tolerance", "solver_time_limit"]

#: the most solver threads a run may ask for [ours]: no machine optsched targets has more cores,
#: and HiGHS allocates per thread (``--threads 1e6`` ended in ``std::bad_alloc``)
MAX_THREADS = 1024

#: features a linear model may need from a back-end
FEATURES = ("integer columns", "continuous columns", "free columns", "equality rows", "ranged rows",
            "empty rows", "unreferenced columns", "fixed columns", "objective offset", "no rows")


def model_features(model: LinearModel) -> frozenset:
    """The :data:`FEATURES` a model uses."""
    out = set()
    ints = model.integrality
    if ints.any():
        out.add("integer columns")
    if (~ints).any():
        out.add("continuous columns")
    if (np.isinf(model.col_lower) & np.isinf(model.col_upper)).any():
        out.add("free columns")
    if (model.col_lower == model.col_upper).any():
        out.add("fixed columns")
    rl, ru = model.row_lower, model.row_upper
    if (rl == ru).any():
        out.add("equality rows")
    if (np.isfinite(rl) & np.isfinite(ru) & (rl != ru)).any():
        out.add("ranged rows")
    if model.num_rows == 0:
        out.add("no rows")
    else:
        counts = np.diff(model.matrix.tocsr().indptr)
        if (counts == 0).any():
            out.add("empty rows")
    used = np.zeros(model.num_cols, bool)
    used[model.matrix.tocsr().indices] = True  # column indices of the nonzeros
    used |= model.cost != 0
    if (~used).any():
        out.add("unreferenced columns")
    if model.offset:
        out.add("objective offset")
    return frozenset(out)


_ABANDONED: list = []


def abandoned_solver_threads() -> int:
    """How many solver threads were left running after a Ctrl-C (the CLI then exits at once)."""
    return sum(1 for t in _ABANDONED if t.is_alive())


def _interruptible(fn, *args):
    """Run ``fn(*args)`` in a daemon thread; the calling thread waits in short slices, so that
    Ctrl-C raises ``KeyboardInterrupt`` at once (the solver library gives no handle to cancel its
    solve, so the thread is left running and counted in :func:`abandoned_solver_threads`)."""
    import threading

    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="optsched-solver")
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        _ABANDONED.append(thread)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass(frozen=True)
class SolverSettings:
    """Solver settings shared by every back-end.

    ``mip_rel_gap`` defaults to 0 so that ``optimal`` means optimal. ``mip_abs_gap = None``
    means: just below the model's objective granularity when it has one (integral objective), else
    1e-9. A run that stopped at a looser tolerance than these with its gap still open reports
    ``gap_limit`` (with its bound and gap), never ``optimal`` (:func:`settle_status`).
    ``node_limit`` is a deterministic work limit (a run stopped by it reports ``feasible`` with its
    bound and gap, or ``node_limit`` when it found no point; 0 is allowed: no branching at all);
    ``time_limit`` is wall-clock (a run stopped by it reports ``time_limit``, never ``optimal``).
    """

    time_limit: float | None = None
    mip_rel_gap: float = 0.0
    mip_abs_gap: float | None = None
    threads: int = 1
    seed: int = 0
    node_limit: int | None = None
    presolve: bool = True
    watchdog_factor: float = 1.5
    watchdog_grace_s: float = 5.0

    def __post_init__(self) -> None:
        def bad(name, rule):
            raise InvalidOptionError("settings", name, rule, getattr(self, name))

        if isinstance(self.threads, bool) or not isinstance(self.threads, numbers.Integral) or self.threads < 1:
            bad("threads", "must be an integer >= 1")
        if self.threads > MAX_THREADS:  # HiGHS allocated per thread and died in std::bad_alloc at 10^6
            bad("threads", f"must be at most {MAX_THREADS}")
        if self.node_limit is not None and (isinstance(self.node_limit, bool) or not isinstance(self.node_limit, numbers.Integral)
                                            or self.node_limit < 0):
            bad("node_limit", "must be an integer >= 0 (or None)")
        if self.time_limit is not None and not (0 < self.time_limit < math.inf):
            bad("time_limit", "must be a positive finite number of seconds (or None)")
        if not (0 <= self.mip_rel_gap < math.inf):
            bad("mip_rel_gap", "must be a finite number >= 0")
        if self.mip_abs_gap is not None and not (0 <= self.mip_abs_gap < math.inf):
            bad("mip_abs_gap", "must be a finite number >= 0 (or None)")

    @property
    def solver_seed(self) -> int:
        """The seed handed to HiGHS, whose ``random_seed`` option takes 0 .. 2^31 - 1."""
        return int(self.seed) % 2**31

    def abs_gap_for(self, model: LinearModel) -> float:
        if self.mip_abs_gap is not None:
            return self.mip_abs_gap
        if model.objective_granularity:
            return 0.999 * model.objective_granularity
        return 1e-9

    def hard_limit(self) -> float | None:
        """Seconds after which the watchdog stops the solve."""
        if self.time_limit is None:
            return None
        return self.watchdog_factor * self.time_limit + self.watchdog_grace_s

    def as_dict(self) -> dict:
        return asdict(self)


class Backend:
    """A solver back-end. Subclasses set the class attributes and implement :meth:`_solve`."""

    name: str = ""
    description: str = ""
    #: what the back-end reports as ``bound``: "always" or a sentence on when it cannot
    bound_support: str = "always"
    #: how the watchdog stops it: "cancel" (in-process) or "process" (child process killed)
    watchdog: str = "cancel"
    #: the model features it translates faithfully (see :func:`model_features`); a model needing
    #: another one is refused with :class:`~optsched.core.errors.BackendRefused`
    features: frozenset = frozenset(FEATURES)

    def available(self) -> bool:
        return True

    def version(self) -> str:
        raise NotImplementedError

    def solve(self, model: LinearModel, settings: SolverSettings = SolverSettings()) -> ModelSolution:
        entry = time.perf_counter()
        refusal = self.refuses(model)
        if refusal is not None:
            raise BackendRefused(self.name, model.name, refusal)
        if settings.time_limit is not None:  # the refusal check (e.g. CP-SAT's integer scaling) is part of the limit
            import dataclasses

            spent = time.perf_counter() - entry
            settings = dataclasses.replace(settings, time_limit=max(1e-3, settings.time_limit - spent))
        if self.watchdog == "process" and settings.time_limit is not None:
            return settle_status(model, settings, solve_in_child(self, model, settings))
        if self.watchdog == "process":
            return settle_status(model, settings, _interruptible(self._solve_quiet, model, settings))
        return settle_status(model, settings, self._solve(model, settings))

    def refuses(self, model: LinearModel) -> str | None:
        """Why this back-end cannot solve ``model`` correctly (None: it can).

        A back-end that cannot represent a feature of a model (see :attr:`features`) refuses it
        with :class:`~optsched.core.errors.BackendRefused` (CLI exit status 2) instead of answering wrongly.
        """
        missing = sorted(model_features(model) - self.features)
        if missing:
            return "the model needs " + ", ".join(missing) + f", which the {self.name} back-end does not support"
        return None

    def _solve_quiet(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        # what the library's solver layer prints on the C-level stdout goes to stderr
        from .stdio import quiet_stdout

        with quiet_stdout(2):
            return self._solve(model, settings)

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        raise NotImplementedError


def zero_gap_tolerance(model: LinearModel, objective: float) -> float:
    """The absolute gap below which a MIP counts as proven at the default settings: what the
    default ``mip_abs_gap`` allows (just below the objective granularity, else 1e-9), plus 1e-9
    relative (solver feasibility noise on large objectives)."""
    return SolverSettings().abs_gap_for(model) + 1e-9 * max(1.0, abs(objective))


def settle_status(model: LinearModel, settings: SolverSettings, sol: ModelSolution) -> ModelSolution:
    """Every back-end's answer passes here: ``optimal`` means proven to the default (zero) gap.

    A run given a positive ``mip_rel_gap`` (or a ``mip_abs_gap`` above the default) that stopped
    with its gap still open beyond :func:`zero_gap_tolerance` reports ``gap_limit``, with its
    objective, bound and gap, instead of ``optimal`` (SCIP's own ``gaplimit`` status included).
    """
    if sol.status != "optimal" or not model.is_mip or sol.objective is None:
        return sol
    default_abs = SolverSettings().abs_gap_for(model)
    loosened = settings.mip_rel_gap > 0 or (settings.mip_abs_gap is not None and settings.mip_abs_gap > default_abs)
    if not loosened:
        return sol
    import dataclasses

    if sol.bound is not None and abs(sol.objective - sol.bound) <= zero_gap_tolerance(model, sol.objective):
        return sol
    return dataclasses.replace(sol, status="gap_limit",
                               message=f"stopped at the gap tolerance (mip_rel_gap {settings.mip_rel_gap}, "
                                       f"mip_abs_gap {settings.mip_abs_gap}): bound {sol.bound}; {sol.message}")


def finish(model: LinearModel, status: str, x, objective, bound, backend: Backend, run_time: float,
           message: str = "", **stats) -> ModelSolution:
    """Normalize a back-end's raw answer into a :class:`ModelSolution`.

    The objective is recomputed from ``x`` when there is one (the solver's own value is kept in
    ``stats["solver_objective"]``); for integral objectives the bound is tightened to the next
    integer in the right direction (a valid bound: every integer solution's value is integral);
    an ``optimal`` status whose gap exceeds the tolerances becomes ``feasible``.
    """
    xa = None if x is None else np.asarray(x, dtype=float)
    if xa is not None and xa.shape != (model.num_cols,):
        xa = None
    if xa is not None:
        # snap integer columns that sit within the solver's tolerance of an integer
        ints = model.integrality & (np.abs(xa - np.round(xa)) <= 1e-6)
        xa[ints] = np.round(xa[ints])
        stats["solver_objective"] = objective
        objective = model.value(xa)
    if bound is not None and not math.isfinite(bound):
        bound = None
    if bound is not None and model.objective_granularity and model.is_mip:
        g = model.objective_granularity
        bound = (math.floor(bound / g + 1e-6) if model.sense == "max" else math.ceil(bound / g - 1e-6)) * g
    if status == "optimal" and objective is not None:
        if bound is None or not model.is_mip:
            bound = objective if bound is None else bound
        if model.sense == "max" and bound < objective:
            bound = objective  # a bound below an attained value is numerical noise
        if model.sense == "min" and bound > objective:
            bound = objective
    return ModelSolution(status=status, x=xa, objective=objective, bound=bound, backend=backend.name,
                         solver_version=backend.version(), run_time=run_time, message=message,
                         stats=stats)
