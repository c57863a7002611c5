"""Pyomo back-end: the model is rebuilt as a Pyomo ``ConcreteModel`` and solved by Pyomo's HiGHS
interface (``pyomo.contrib.solver`` "highs"). Runs in a child process under the watchdog when a
time limit is set (Pyomo's interface gives no handle to cancel a running solve)."""

from __future__ import annotations

import math
import time

import numpy as np

from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish, solver_time_limit

__all__ = ["PyomoBackend", "to_pyomo"]


def to_pyomo(model: LinearModel):
    """A Pyomo ``ConcreteModel`` with variables ``x[j]`` and constraints ``rows[i]``."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel(name=model.name)
    n = model.num_cols

    def bounds(_, j):
        lo, hi = model.col_lower[j], model.col_upper[j]
        return (None if math.isinf(lo) else float(lo), None if math.isinf(hi) else float(hi))

    def domain(_, j):
        return pyo.Integers if model.integrality[j] else pyo.Reals

    m.x = pyo.Var(range(n), bounds=bounds, domain=domain)
    csr = model.matrix.tocsr()

    def row(_, i):
        lo, hi = model.row_lower[i], model.row_upper[i]
        s, e = csr.indptr[i], csr.indptr[i + 1]
        if not np.any(csr.data[s:e]):
            # an empty row: Pyomo rejects a constant expression as a constraint; 0 within its
            # bounds makes it redundant (a violated one is reported infeasible before building)
            return pyo.Constraint.Skip
        expr = pyo.quicksum((float(v) * m.x[int(j)] for v, j in zip(csr.data[s:e], csr.indices[s:e])))
        if lo == hi:
            return expr == float(lo)
        return (None if math.isinf(lo) else float(lo), expr, None if math.isinf(hi) else float(hi))

    m.rows = pyo.Constraint(range(model.num_rows), rule=row)
    nz = np.flatnonzero(model.cost)
    obj = float(model.offset) + pyo.quicksum((float(model.cost[j]) * m.x[int(j)] for j in nz))
    m.objective = pyo.Objective(expr=obj, sense=pyo.maximize if model.sense == "max" else pyo.minimize)
    return m


def _violated_empty_row(model: LinearModel) -> int | None:
    """The first row without a nonzero coefficient whose bounds exclude 0 (None: there is none)."""
    empty = np.asarray(abs(model.matrix).sum(axis=1)).ravel() == 0
    bad = np.flatnonzero(empty & ((model.row_lower > 0) | (model.row_upper < 0)))
    return int(bad[0]) if bad.size else None


def _unreferenced_value(model: LinearModel, j: int) -> float:
    """A value within column ``j``'s bounds (integral for integer columns), closest to 0."""
    lo, hi = float(model.col_lower[j]), float(model.col_upper[j])
    if model.integrality[j]:
        lo, hi = math.ceil(lo - 1e-9) if math.isfinite(lo) else lo, math.floor(hi + 1e-9) if math.isfinite(hi) else hi
    return float(min(max(0.0, lo), hi))


def _empty_column_domain(model: LinearModel) -> int | None:
    """The first column whose bounds admit no value (lower > upper, or no integer in between)."""
    lo, hi = model.col_lower, model.col_upper
    ints = model.integrality
    lo_eff = np.where(ints & np.isfinite(lo), np.ceil(lo - 1e-9), lo)
    hi_eff = np.where(ints & np.isfinite(hi), np.floor(hi + 1e-9), hi)
    bad = np.flatnonzero(lo_eff > hi_eff)
    return int(bad[0]) if bad.size else None


class PyomoBackend(Backend):
    name = "pyomo"
    description = "Pyomo ConcreteModel solved by Pyomo's HiGHS interface (pyomo.contrib.solver)"
    bound_support = "always (objective_bound); none when the watchdog had to kill the solve"
    watchdog = "process"

    def version(self) -> str:
        from .highs import new_highs
        import pyomo

        return f"pyomo {pyomo.__version__} / highspy {new_highs().version()}"

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        from pyomo.contrib.solver.common.factory import SolverFactory
        from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

        empty = _empty_column_domain(model)
        if empty is not None:  # Pyomo would not pass the column to HiGHS, which would miss this
            return finish(model, "infeasible", None, None, None, self, 0.0,
                          message=f"column {empty} has no (integer) value within its bounds")
        bad_row = _violated_empty_row(model)
        if bad_row is not None:
            return finish(model, "infeasible", None, None, None, self, 0.0,
                          message=f"row {bad_row} has no coefficients and 0 is outside its bounds")
        m = to_pyomo(model)
        opt = SolverFactory("highs")
        options = {"mip_rel_gap": float(settings.mip_rel_gap),
                   "mip_abs_gap": float(settings.abs_gap_for(model)),
                   "random_seed": settings.solver_seed,
                   "presolve": "on" if settings.presolve else "off"}
        if settings.node_limit is not None:
            options["mip_max_nodes"] = int(settings.node_limit)
        start = time.perf_counter()
        res = opt.solve(m, time_limit=solver_time_limit(settings), threads=settings.threads,
                        solver_options=options, load_solutions=False,
                        raise_exception_on_nonoptimal_result=False)
        elapsed = time.perf_counter() - start
        tc = res.termination_condition
        has_solution = res.solution_status in (SolutionStatus.feasible, SolutionStatus.optimal)
        if tc == TerminationCondition.convergenceCriteriaSatisfied:
            status = "optimal"
        elif tc in (TerminationCondition.provenInfeasible, TerminationCondition.locallyInfeasible):
            status = "infeasible"
        elif tc == TerminationCondition.maxTimeLimit:
            status = "time_limit"
        elif tc in (TerminationCondition.iterationLimit,) and has_solution:
            status = "feasible"
        elif tc in (TerminationCondition.iterationLimit,) and settings.node_limit is not None:
            status = "node_limit"
        else:
            status = "error"
        x = None
        if has_solution:
            # Pyomo hands HiGHS only the variables that occur in an active constraint or the
            # objective; a column of the model that occurs in neither is absent from the answer
            # (the cause of ``KeyError: 'x[24]'``). Such a column is free of any coupling: any
            # value within its bounds is optimal, and _unreferenced_value picks one.
            primals = res.solution_loader.get_vars()
            x = np.array([primals[m.x[j]] if m.x[j] in primals else _unreferenced_value(model, j)
                          for j in range(model.num_cols)], dtype=float)
        run_time = getattr(res, "timing_info", None)
        run_time = getattr(run_time, "wall_time", None) or elapsed
        bound = res.objective_bound if model.is_mip else (res.incumbent_objective if status == "optimal" else None)
        return finish(model, status, x, res.incumbent_objective, bound, self, float(run_time),
                      message=str(tc))
