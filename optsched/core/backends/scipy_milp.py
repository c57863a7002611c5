"""SciPy back-end: ``scipy.optimize.milp`` (SciPy's own HiGHS build, independent of highspy),
used for cross-checks. Runs under the process watchdog with a time limit."""

from __future__ import annotations

import time

import numpy as np

from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish, solver_time_limit

__all__ = ["ScipyBackend"]


class ScipyBackend(Backend):
    name = "scipy"
    description = "scipy.optimize.milp (SciPy's bundled HiGHS, an independent build, for cross-checks)"
    bound_support = "MIP dual bound for MILPs; for LPs the optimum (no bound on a limit)"
    watchdog = "process"

    def version(self) -> str:
        import scipy

        return f"scipy {scipy.__version__} (bundled HiGHS)"

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        from scipy.optimize import Bounds, LinearConstraint, milp

        sign = -1.0 if model.sense == "max" else 1.0
        constraints = []
        if model.num_rows:
            constraints.append(LinearConstraint(model.matrix, model.row_lower, model.row_upper))
        options = {"disp": False, "presolve": bool(settings.presolve),
                   "mip_rel_gap": float(settings.mip_rel_gap)}
        if settings.node_limit is not None:
            options["node_limit"] = int(settings.node_limit)
        if settings.time_limit is not None:  # at the last moment: the child's start-up is deducted
            options["time_limit"] = float(solver_time_limit(settings))
        start = time.perf_counter()
        res = milp(sign * model.cost, constraints=constraints,
                   integrality=model.integrality.astype(int),
                   bounds=Bounds(model.col_lower, model.col_upper), options=options)
        elapsed = time.perf_counter() - start
        has_solution = res.x is not None
        if res.status == 0:
            status = "optimal"
        elif res.status == 1:  # iteration or time limit
            status = "time_limit" if settings.time_limit is not None else ("feasible" if has_solution else "node_limit")
        elif res.status == 2:
            status = "infeasible"
        elif settings.node_limit is not None and "limit" in str(res.message).lower():
            # SciPy does not know HiGHS' "solution limit" status, which the node limit produces
            status = "feasible" if has_solution else "node_limit"
        else:
            status = "error"
        objective = None if res.fun is None else sign * float(res.fun) + model.offset
        bound = getattr(res, "mip_dual_bound", None)
        if bound is not None and np.isfinite(bound):
            bound = sign * float(bound) + model.offset
        else:
            bound = None
        return finish(model, status, res.x, objective, bound, self, elapsed, message=str(res.message))
