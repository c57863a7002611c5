"""CVXPY back-end: the model is stated with ``cvxpy.Variable`` and solved with CVXPY's HIGHS
interface; the incumbent value and the dual bound come from HiGHS' info record (CVXPY keeps it
in ``solver_stats.extra_stats``). Runs under the process watchdog with a time limit."""

from __future__ import annotations

import math
import time

import numpy as np

from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish, solver_time_limit

__all__ = ["CvxpyBackend"]


class CvxpyBackend(Backend):
    name = "cvxpy"
    description = "CVXPY problem solved by CVXPY's HIGHS interface"
    bound_support = "always (MIP dual bound read from HiGHS' info record)"
    watchdog = "process"

    def version(self) -> str:
        import cvxpy
        from .highs import new_highs

        return f"cvxpy {cvxpy.__version__} / highspy {new_highs().version()}"

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        import cvxpy as cp

        n = model.num_cols
        integer = bool(model.is_mip)
        # One cvxpy variable per kind: ``cp.Variable(n, integer=True)`` would make every column
        # integer (the cause of wrong optima on models mixing integer and continuous columns), and
        # cvxpy's per-index ``integer=[...]`` form fails on 1-D variables. Columns are split into
        # an integer and a continuous block and each row's coefficients are split likewise.
        ints = np.flatnonzero(model.integrality)
        conts = np.flatnonzero(~model.integrality)
        A = model.matrix.tocsc()
        parts = []  # (column indices, cvxpy variable)
        if ints.size:
            parts.append((ints, cp.Variable(int(ints.size), integer=True, name="xi")))
        if conts.size:
            parts.append((conts, cp.Variable(int(conts.size), name="xc")))
        cons = []
        lo, hi = model.col_lower, model.col_upper
        for idx, var in parts:
            l, h = lo[idx], hi[idx]
            f = np.flatnonzero(np.isfinite(l))
            if f.size:
                cons.append(var[f] >= l[f])
            f = np.flatnonzero(np.isfinite(h))
            if f.size:
                cons.append(var[f] <= h[f])

        def lhs(rows):
            sub = A[rows]
            return sum(sub[:, idx] @ var for idx, var in parts)

        rl, ru = model.row_lower, model.row_upper
        eq = (rl == ru) & np.isfinite(ru)
        if eq.any():
            cons.append(lhs(np.flatnonzero(eq)) == ru[eq])
        up = ~eq & np.isfinite(ru)
        if up.any():
            cons.append(lhs(np.flatnonzero(up)) <= ru[up])
        low = ~eq & np.isfinite(rl)
        if low.any():
            cons.append(lhs(np.flatnonzero(low)) >= rl[low])
        if not parts:  # a model without columns
            parts.append((np.zeros(0, int), cp.Variable(1, name="empty")))
        # cvxpy minimizes internally: state the objective as a minimization to read HiGHS' bound
        sign = -1.0 if model.sense == "max" else 1.0
        objective_expr = sum((sign * model.cost[idx]) @ var for idx, var in parts if idx.size)
        prob = cp.Problem(cp.Minimize(objective_expr if not np.isscalar(objective_expr) else cp.Constant(0.0)), cons)
        opts = {"mip_rel_gap": float(settings.mip_rel_gap),
                "mip_abs_gap": float(settings.abs_gap_for(model)),
                "threads": int(settings.threads), "random_seed": settings.solver_seed,
                "presolve": "on" if settings.presolve else "off"}
        if settings.node_limit is not None:
            opts["mip_max_nodes"] = int(settings.node_limit)
        if settings.time_limit is not None:  # at the last moment: the child's start-up is deducted
            opts["time_limit"] = float(solver_time_limit(settings))
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
        point = None
        if all(var.value is not None for idx, var in parts if idx.size):
            point = np.zeros(n)
            for idx, var in parts:
                if idx.size:
                    point[idx] = np.asarray(var.value, float).reshape(-1)
        objective = bound = None
        if info is not None and getattr(info, "primal_solution_status", 0) == 2:
            objective = sign * float(info.objective_function_value) + model.offset
        if integer and info is not None and math.isfinite(getattr(info, "mip_dual_bound", math.inf)):
            bound = sign * float(info.mip_dual_bound) + model.offset
        if status == "feasible" and point is None and objective is None:
            status = "node_limit" if settings.node_limit is not None else "error"
        return finish(model, status, point, objective, bound, self,
                      float(stats.solve_time or (time.perf_counter() - start)), message=str(st))
