"""Direct highspy back-end: the model's sparse matrices are handed to HiGHS as they are."""

from __future__ import annotations

import time

import highspy
import numpy as np

from ..linear import LinearModel, ModelSolution
from ..errors import SolverError
from .base import Backend, SolverSettings, finish

__all__ = ["HighsBackend", "to_highs", "highs_status"]


def to_highs(model: LinearModel) -> highspy.Highs:
    """A ``highspy.Highs`` object holding ``model`` (silent)."""
    lp = highspy.HighsLp()
    lp.num_col_ = model.num_cols
    lp.num_row_ = model.num_rows
    lp.col_cost_ = np.asarray(model.cost, float)
    lp.offset_ = float(model.offset)
    lp.col_lower_ = np.asarray(model.col_lower, float)
    lp.col_upper_ = np.asarray(model.col_upper, float)
    lp.row_lower_ = np.asarray(model.row_lower, float)
    lp.row_upper_ = np.asarray(model.row_upper, float)
    lp.sense_ = highspy.ObjSense.kMaximize if model.sense == "max" else highspy.ObjSense.kMinimize
    csc = model.matrix.tocsc()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr
    lp.a_matrix_.index_ = csc.indices
    lp.a_matrix_.value_ = csc.data
    lp.a_matrix_.num_col_ = model.num_cols
    lp.a_matrix_.num_row_ = model.num_rows
    if model.is_mip:
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in model.integrality]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    return h


def highs_status(name: str, has_solution: bool) -> str:
    """Map a HiGHS model-status name onto optsched's statuses."""
    if name == "kOptimal":
        return "optimal"
    if name in ("kInfeasible",):
        return "infeasible"
    if name == "kTimeLimit":
        return "time_limit"
    if name in ("kSolutionLimit", "kIterationLimit", "kObjectiveBound", "kObjectiveTarget",
                "kInterrupt") and has_solution:
        return "feasible"
    if name == "kInterrupt":
        return "time_limit"
    return "error"


def run_with_watchdog(h: highspy.Highs, hard_limit: float | None, stop=None) -> bool:
    """Run ``h`` in highspy's solver thread; cancel it after ``hard_limit`` seconds.

    Returns whether the watchdog had to cancel the solve. HiGHS checks the cancel flag in its
    user-interrupt callbacks (simplex, IPM and MIP), so the stop takes effect within one of them.
    ``stop`` (a ``threading.Event``, optional) cancels the solve when set (the portfolio's
    in-process member).
    """
    if hard_limit is None and stop is None:
        h.run()
        return False
    h.HandleUserInterrupt = True
    thread = h.startSolve()
    deadline = time.monotonic() + (hard_limit if hard_limit is not None else float("inf"))
    done = False
    while not done:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (stop is not None and stop.is_set()):
            break
        done, _ = h.wait(min(remaining, 0.5 if stop is None else 0.05))
    if not done:
        h.cancelSolve()
    h.joinSolve(thread)
    return not done


class HighsBackend(Backend):
    name = "highs"
    description = "HiGHS through highspy, from the sparse matrices directly (default)"
    bound_support = "always (MIP dual bound; LP optimum for LPs)"
    watchdog = "cancel"

    def version(self) -> str:
        h = highspy.Highs()
        return f"highspy {h.version()}"

    def _solve(self, model: LinearModel, settings: SolverSettings, stop=None) -> ModelSolution:
        h = to_highs(model)
        options = {"mip_rel_gap": float(settings.mip_rel_gap), "mip_abs_gap": float(settings.abs_gap_for(model)),
                   "threads": int(settings.threads), "random_seed": settings.solver_seed,
                   "presolve": "on" if settings.presolve else "off"}
        if settings.time_limit is not None:
            options["time_limit"] = float(settings.time_limit)
        if settings.node_limit is not None:
            options["mip_max_nodes"] = int(settings.node_limit)
        for name, value in options.items():
            if h.setOptionValue(name, value) == highspy.HighsStatus.kError:
                raise SolverError(f"HiGHS rejected option {name} = {value!r}")
        fired = run_with_watchdog(h, settings.hard_limit(), stop)
        info = h.getInfo()
        name = h.getModelStatus().name
        has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
        status = highs_status(name, has_solution)
        if fired:
            status = "time_limit"
        x = np.array(h.getSolution().col_value) if has_solution else None
        objective = info.objective_function_value if has_solution else None
        if model.is_mip:
            bound = info.mip_dual_bound
        else:
            bound = objective if status == "optimal" else None
        return finish(model, status, x, objective, bound, self, h.getRunTime(),
                      message=name + (" (stopped by the watchdog)" if fired else ""),
                      nodes=int(info.mip_node_count) if model.is_mip else 0,
                      simplex_iterations=int(info.simplex_iteration_count))
