"""CVXPY back-end: the model is stated with ``cvxpy.Variable`` and solved with CVXPY's HIGHS
interface; the incumbent value and the dual bound come from HiGHS' info record (CVXPY keeps it
in ``solver_stats.extra_stats``). Runs under the process watchdog with a time limit."""

from __future__ import annotations

import math
import time

import numpy as np

from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish

__all__ = ["CvxpyBackend"]


class CvxpyBackend(Backend):
    name = "cvxpy"
    description = "CVXPY problem solved by CVXPY's HIGHS interface"
    bound_support = "always (MIP dual bound read from HiGHS' info record)"
    watchdog = "process"

    def version(self) -> str:
        import cvxpy
        import highspy

        return f"cvxpy {cvxpy.__version__} / highspy {highspy.Highs().version()}"

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        import cvxpy as cp

        n = model.num_cols
        integer = bool(model.is_mip)
        x = cp.Variable(n, integer=integer) if integer else cp.Variable(n)
        cons = []
        lo, hi = model.col_lower, model.col_upper
        if np.isfinite(lo).any():
            f = np.flatnonzero(np.isfinite(lo))
            cons.append(x[f] >= lo[f])
        if np.isfinite(hi).any():
            f = np.flatnonzero(np.isfinite(hi))
            cons.append(x[f] <= hi[f])
        A = model.matrix.tocsr()
        eq = model.row_lower == model.row_upper
        if eq.any():
            cons.append(A[np.flatnonzero(eq)] @ x == model.row_upper[eq])
        up = ~eq & np.isfinite(model.row_upper)
        if up.any():
            cons.append(A[np.flatnonzero(up)] @ x <= model.row_upper[up])
        low = ~eq & np.isfinite(model.row_lower)
        if low.any():
            cons.append(A[np.flatnonzero(low)] @ x >= model.row_lower[low])
        # cvxpy minimizes internally: state the objective as a minimization to read HiGHS' bound
        sign = -1.0 if model.sense == "max" else 1.0
        prob = cp.Problem(cp.Minimize(sign * model.cost @ x), cons)
        opts = {"mip_rel_gap": float(settings.mip_rel_gap),
                "mip_abs_gap": float(settings.abs_gap_for(model)),
                "threads": int(settings.threads), "random_seed": settings.solver_seed,
                "presolve": "on" if settings.presolve else "off"}
        if settings.time_limit is not None:
            opts["time_limit"] = float(settings.time_limit)
        if settings.node_limit is not None:
            opts["mip_max_nodes"] = int(settings.node_limit)
        start = time.perf_counter()
        try:
            prob.solve(solver=cp.HIGHS, **opts)
        except cp.error.SolverError as exc:
            return finish(model, "error", None, None, None, self, time.perf_counter() - start, message=str(exc))
        stats = prob.solver_stats
        info = stats.extra_stats
        st = prob.status
        if st == cp.OPTIMAL:
            status = "optimal"
        elif st in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            status = "infeasible"
        elif st == cp.USER_LIMIT:
            status = "time_limit" if settings.time_limit is not None else "feasible"
        else:
            status = "error"
        point = None if x.value is None else np.asarray(x.value, float)
        objective = bound = None
        if info is not None and getattr(info, "primal_solution_status", 0) == 2:
            objective = sign * float(info.objective_function_value) + model.offset
        if integer and info is not None and math.isfinite(getattr(info, "mip_dual_bound", math.inf)):
            bound = sign * float(info.mip_dual_bound) + model.offset
        if status == "feasible" and point is None and objective is None:
            status = "error"
        return finish(model, status, point, objective, bound, self,
                      float(stats.solve_time or (time.perf_counter() - start)), message=str(st))
