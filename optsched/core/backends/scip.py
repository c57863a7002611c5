"""SCIP back-end (PySCIPOpt): the model's sparse rows are handed to SCIP as linear constraints
directly (no file in between).

Settings: ``time_limit`` -> ``limits/time``; ``node_limit`` -> ``limits/nodes`` (a deterministic
work limit: ``feasible`` with its bound); ``mip_rel_gap`` -> ``limits/gap``; the absolute gap
(``SolverSettings.abs_gap_for``: just below the objective granularity) -> ``limits/absgap``;
``seed`` -> ``randomization/randomseedshift``; ``presolve`` off -> SCIP's presolving emphasis
OFF. SCIP's branch-and-bound is sequential: ``threads`` is recorded, one thread is used
(``stats["threads_used"]``). All output is silenced.

Statuses: ``optimal`` and ``gaplimit`` (the requested gaps reached) -> optimal; ``infeasible`` ->
infeasible (SCIP proved it); ``timelimit`` -> time_limit; node limits -> feasible (with an
incumbent) or error; ``unbounded``/``inforunbd`` -> error with the reason (optsched models are
bounded; never ``infeasible`` unless proven); everything else -> error naming SCIP's status.

Ctrl-C: SCIP's own SIGINT catching is switched off; the solve runs in a worker thread and the
main thread interrupts it (``interruptSolve``) and re-raises ``KeyboardInterrupt``
(:mod:`.interruptible`). The same call is the in-process watchdog.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import SolverError
from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish
from .interruptible import import_deferring_sigint, run_interruptible

__all__ = ["ScipBackend", "to_scip", "scip_status"]


def to_scip(model: LinearModel):
    """A silent ``pyscipopt.Model`` holding ``model`` (columns ``x0..``, rows ``r0..``) and its
    variables. The objective offset is left out (added back by the back-end)."""
    from pyscipopt import Model
    from pyscipopt.scip import Expr, ExprCons, Term

    m = Model(model.name or "optsched")
    m.hideOutput()
    m.setBoolParam("misc/catchctrlc", False)
    xs = []
    for j in range(model.num_cols):
        lo, hi = float(model.col_lower[j]), float(model.col_upper[j])
        xs.append(m.addVar(name=f"x{j}", vtype="I" if model.integrality[j] else "C",
                           lb=None if lo == -math.inf else lo, ub=None if hi == math.inf else hi))
    terms = [Term(v) for v in xs]
    csr = model.matrix.tocsr()
    indptr, indices, data = csr.indptr, csr.indices, csr.data
    for i in range(model.num_rows):
        lo, hi = float(model.row_lower[i]), float(model.row_upper[i])
        if lo == -math.inf and hi == math.inf:
            continue
        s, e = indptr[i], indptr[i + 1]
        expr = Expr({terms[j]: float(v) for j, v in zip(indices[s:e].tolist(), data[s:e].tolist())})
        m.addCons(ExprCons(expr, lhs=None if lo == -math.inf else lo, rhs=None if hi == math.inf else hi),
                  name=f"r{i}")
    nz = np.flatnonzero(model.cost)
    m.setObjective(Expr({terms[j]: float(model.cost[j]) for j in nz.tolist()}),
                   "maximize" if model.sense == "max" else "minimize")
    return m, xs


def scip_status(name: str, has_solution: bool) -> str:
    """Map a SCIP status name onto optsched's statuses."""
    if name in ("optimal", "gaplimit"):
        return "optimal" if has_solution else "error"
    if name == "infeasible":
        return "infeasible"
    if name == "timelimit":
        return "time_limit"
    if name in ("nodelimit", "totalnodelimit", "stallnodelimit", "sollimit", "bestsollimit") and has_solution:
        return "feasible"
    return "error"


_REASONS = {
    "unbounded": "SCIP reports the model unbounded (an optsched model never is: a modelling error)",
    "inforunbd": "SCIP reports the model infeasible or unbounded without deciding which",
}


class ScipBackend(Backend):
    name = "scip"
    description = "SCIP through PySCIPOpt, from the sparse rows directly (one thread)"
    bound_support = "always (SCIP's dual bound; the LP optimum for LPs)"
    watchdog = "cancel"

    def available(self) -> bool:
        try:
            import pyscipopt  # noqa: F401
        except ImportError:
            return False
        return True

    def version(self) -> str:
        try:
            import pyscipopt
            from pyscipopt import Model
        except ImportError:
            return "pyscipopt not installed"
        return f"pyscipopt {pyscipopt.__version__} / SCIP {Model().version()}"

    def _solve(self, model: LinearModel, settings: SolverSettings, stop=None) -> ModelSolution:
        try:
            SCIP_PARAMSETTING = import_deferring_sigint("pyscipopt").SCIP_PARAMSETTING
        except ImportError as exc:  # pragma: no cover - the lock installs it
            raise SolverError("the scip back-end needs pyscipopt (pip install pyscipopt)") from exc
        build_start = time.perf_counter()
        m, xs = to_scip(model)
        params = {"limits/gap": float(settings.mip_rel_gap), "limits/absgap": float(settings.abs_gap_for(model)),
                  "randomization/randomseedshift": int(settings.solver_seed)}
        if settings.time_limit is not None:
            # the model was built on the clock: SCIP gets what is left of the limit
            params["limits/time"] = max(1e-3, float(settings.time_limit) - (time.perf_counter() - build_start))
        if settings.node_limit is not None:
            params["limits/nodes"] = int(settings.node_limit)
        for key, value in params.items():
            try:
                m.setParam(key, value)
            except Exception as exc:
                raise SolverError(f"SCIP rejected parameter {key} = {value!r}: {exc}") from exc
        if not settings.presolve:
            m.setPresolve(SCIP_PARAMSETTING.OFF)
        start = time.perf_counter()
        fired = run_interruptible(m.optimizeNogil, m.interruptSolve, settings.hard_limit(), stop_event=stop)
        run_time = time.perf_counter() - start
        name = m.getStatus()
        stopped = stop is not None and stop.is_set()
        if name == "userinterrupt" and not fired and not stopped:
            # SCIP was interrupted from outside optsched's watchdog: that is a Ctrl-C
            raise KeyboardInterrupt
        has_solution = m.getNSols() > 0
        status = "time_limit" if fired else scip_status(name, has_solution)
        if status == "error" and name in ("nodelimit", "totalnodelimit", "stallnodelimit"):
            status = "node_limit"  # the node limit stopped it before any point was found
        x = objective = None
        if has_solution:
            best = m.getBestSol()
            x = np.array([m.getSolVal(best, v) for v in xs], dtype=float)
            objective = float(m.getSolObjVal(best)) + model.offset
        bound = None
        if status != "error" or has_solution:
            try:
                bound = float(m.getDualbound()) + model.offset
            except Exception:  # pragma: no cover - SCIP gives no bound in this stage
                bound = None
        if bound is not None and abs(bound) >= m.infinity():
            bound = None
        message = _REASONS.get(name, name) + (" (stopped by the watchdog)" if fired else "")
        if stopped and not fired:
            status, message = "time_limit", "stopped by the portfolio after another member's answer"
        if status == "error" and name not in _REASONS and not stopped:
            message = f"SCIP ended with status {name!r}" + ("" if has_solution else " and no solution")
        return finish(model, status, x, objective, bound, self, run_time, message=message,
                      nodes=int(m.getNNodes()), threads_used=1, scip_status=name)
