"""CP-SAT back-end (OR-Tools): pure-integer models only, scaled to integers exactly.

CP-SAT works over int64. :func:`scale_model` turns a :class:`LinearModel` into integer data and
refuses (:class:`~optsched.core.errors.BackendRefused`, CLI exit 2) whatever it cannot represent
exactly. The scaling, stated:

* every column must be integer with finite bounds; bounds are rounded inwards (``ceil`` the lower,
  ``floor`` the upper), which removes no integer point;
* the numbers of a row (coefficients and bounds) are read as short rationals: each ``a`` as the
  ``p/q`` with the smallest ``q <= 10**6`` whose nearest double is ``a`` itself (so ``0.1`` is
  ``1/10``, the value the data meant; :func:`as_rational`); when that reading needs too large a
  common denominator, the whole row is read as the doubles' exact binary values instead (their
  common denominator is a power of two). Both readings are exact for the doubles given;
* each row is multiplied by the least common denominator ``L`` of its coefficients, which must
  not exceed :data:`DENOMINATOR_LIMIT` (2**53); the row bounds become ``ceil(L * lower)`` and
  ``floor(L * upper)``, exact because the row's activity is then an integer;
* the objective is multiplied by the common denominator of its costs (same limit); the bound
  CP-SAT proves is divided back, in exact rational arithmetic, and the model's offset added;
* the scaled numbers are checked: every integer coefficient divided by ``L`` gives back the
  model's double, and each row's and the objective's largest possible activity stays below
  :data:`ACTIVITY_LIMIT` (2**60, under CP-SAT's int64 overflow check).

Settings: ``time_limit`` -> ``max_time_in_seconds``; ``threads`` -> ``num_workers``; ``seed`` ->
``random_seed``; ``mip_rel_gap`` -> ``relative_gap_limit``; the absolute gap (just below the
objective granularity by default) -> ``absolute_gap_limit`` in scaled units; ``node_limit`` ->
``max_number_of_conflicts`` (CP-SAT has no nodes; conflicts are its deterministic work unit: a
run stopped by it reports ``feasible``); ``presolve`` -> ``cp_model_presolve``. Output is off.

Statuses: OPTIMAL -> optimal; FEASIBLE -> time_limit (or feasible when the conflict limit
stopped it); INFEASIBLE -> infeasible; MODEL_INVALID -> error with CP-SAT's validation message;
UNKNOWN -> time_limit at a limit, else error. Ctrl-C: the solve runs in a worker thread and the
main thread stops it (``StopSearch``) and re-raises ``KeyboardInterrupt`` (:mod:`.interruptible`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import BackendRefused
from ..linear import LinearModel, ModelSolution
from .base import Backend, SolverSettings, finish
from .interruptible import import_deferring_sigint, run_interruptible

__all__ = ["CpSatBackend", "ScaledModel", "scale_model", "as_rational", "DENOMINATOR_LIMIT",
           "ACTIVITY_LIMIT"]

#: the largest common denominator of one row (or of the objective)
DENOMINATOR_LIMIT = 2**53
#: the largest |activity| a scaled row or objective may reach over the column box
ACTIVITY_LIMIT = 2**60
#: the largest denominator tried when reading a double as a short rational
SHORT_DENOMINATOR = 10**6


def as_rational(value: float) -> Fraction:
    """The rational a double stands for: the simplest ``p/q`` (``q <= 10**6``) whose nearest
    double is ``value``, else the double's exact binary value.

    >>> as_rational(0.1), as_rational(2.5), as_rational(1 / 3)
    (Fraction(1, 10), Fraction(5, 2), Fraction(1, 3))
    >>> as_rational(0.5787464801671108).denominator == 2**53
    True
    """
    exact = Fraction(value)
    if exact.denominator == 1:
        return exact
    short = exact.limit_denominator(SHORT_DENOMINATOR)
    return short if float(short) == value else exact


def _lcm(values) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
        if out > DENOMINATOR_LIMIT:
            return out
    return out


@dataclass
class ScaledModel:
    """The integer data CP-SAT receives (see the module docstring for the rules)."""

    col_lower: list[int]
    col_upper: list[int]
    #: per row: (columns, integer coefficients, lower, upper, scale L); rows with no finite bound
    #: are dropped
    rows: list[tuple[list[int], list[int], int, int, int]]
    cost: list[int]
    cost_scale: int
    #: a reason the model has no integer point, found while scaling (else None)
    infeasible: str | None = None


def scale_model(model: LinearModel, backend: str = "cpsat") -> ScaledModel:
    """Scale ``model`` to integers exactly, or raise :class:`BackendRefused` naming why."""

    def refuse(reason: str):
        raise BackendRefused(backend, model.name, reason)

    cont = np.flatnonzero(~model.integrality)
    if cont.size:
        refuse(f"{cont.size} of {model.num_cols} columns are continuous (first: column {int(cont[0])}); "
               "CP-SAT solves pure-integer models only")
    infeasible = None
    lo_col, hi_col = [], []
    for j in range(model.num_cols):
        lo, hi = float(model.col_lower[j]), float(model.col_upper[j])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            refuse(f"integer column {j} has an infinite bound ({lo}, {hi}); CP-SAT needs finite domains")
        lo_i, hi_i = math.ceil(as_rational(lo)), math.floor(as_rational(hi))
        if lo_i > hi_i and infeasible is None:
            infeasible = f"column {j}: no integer in [{lo}, {hi}]"
        lo_col.append(lo_i)
        hi_col.append(hi_i)
    mag = [max(abs(a), abs(b)) for a, b in zip(lo_col, hi_col)]

    def scale(cols, vals, what):
        """(integer coefficients, scale, largest |activity|, reading of the row's numbers)."""
        why = ""
        for read in (as_rational, Fraction):  # short rationals first, else the exact binary values
            fr = [read(float(v)) for v in vals]
            den = _lcm(f.denominator for f in fr)
            if den > DENOMINATOR_LIMIT:
                why = (f"{what}: the common denominator of its coefficients exceeds 2**53 "
                       "(no exact integer scaling within the limit)")
                continue
            ints = [int(f * den) for f in fr]
            for v, k in zip(vals, ints):
                if float(Fraction(k, den)) != float(v):  # pragma: no cover - guaranteed by the reading
                    refuse(f"{what}: coefficient {v!r} does not survive its scaling by {den}")
            activity = sum(abs(k) * mag[j] for j, k in zip(cols, ints))
            if activity > ACTIVITY_LIMIT:
                why = (f"{what}: scaled by {den}, its activity can reach {float(activity):.3g} > 2**60 "
                       "(CP-SAT's int64 arithmetic could overflow)")
                continue
            return ints, den, activity, read
        refuse(why)

    csr = model.matrix.tocsr()
    rows = []
    for i in range(model.num_rows):
        lo, hi = float(model.row_lower[i]), float(model.row_upper[i])
        if lo == -math.inf and hi == math.inf:
            continue
        s, e = csr.indptr[i], csr.indptr[i + 1]
        cols = csr.indices[s:e].tolist()
        vals = csr.data[s:e].tolist()
        ints, den, activity, read = scale(cols, vals, f"row {i}")
        lo_i = -activity if lo == -math.inf else max(-activity, math.ceil(read(lo) * den))
        hi_i = activity if hi == math.inf else min(activity, math.floor(read(hi) * den))
        if lo_i > hi_i:
            if infeasible is None:
                infeasible = f"row {i}: no integer activity of the scaled row lies in [{lo}, {hi}]"
            continue
        rows.append((cols, ints, lo_i, hi_i, den))
    nz = np.flatnonzero(model.cost).tolist()
    cost_ints, cost_den, _, _ = scale(nz, model.cost[nz].tolist(), "the objective")
    cost = [0] * model.num_cols
    for j, k in zip(nz, cost_ints):
        cost[j] = k
    return ScaledModel(lo_col, hi_col, rows, cost, cost_den, infeasible)


class CpSatBackend(Backend):
    name = "cpsat"
    description = ("OR-Tools CP-SAT, pure-integer models scaled to integers exactly "
                   "(refuses continuous columns and unscalable data, exit 2)")
    bound_support = "always for models it accepts (the proven objective bound, unscaled exactly)"
    watchdog = "cancel"

    def available(self) -> bool:
        try:
            import ortools  # noqa: F401
        except ImportError:
            return False
        return True

    def version(self) -> str:
        try:
            import ortools
        except ImportError:
            return "ortools not installed"
        return f"ortools {ortools.__version__} (CP-SAT)"

    def refuses(self, model: LinearModel) -> str | None:
        """Why this back-end refuses ``model`` (None if it accepts it): the shared feature check,
        then the exact integer scaling."""
        why = super().refuses(model)
        if why is not None:
            return why
        try:
            scale_model(model, self.name)
        except BackendRefused as exc:
            return exc.reason
        return None

    def _solve(self, model: LinearModel, settings: SolverSettings, stop=None) -> ModelSolution:
        start = time.perf_counter()  # the first call's import of ortools counts against the limit too
        cp_model = import_deferring_sigint("ortools.sat.python.cp_model")
        sm = scale_model(model, self.name)
        if sm.infeasible is not None:
            return finish(model, "infeasible", None, None, None, self, time.perf_counter() - start,
                          message=f"infeasible while scaling: {sm.infeasible}")
        cp = cp_model.CpModel()
        proto = cp.proto
        for lo, hi in zip(sm.col_lower, sm.col_upper):
            proto.variables.add().domain.extend([lo, hi])
        for cols, ints, lo, hi, _den in sm.rows:
            c = proto.constraints.add()
            c.linear.vars.extend(cols)
            c.linear.coeffs.extend(ints)
            c.linear.domain.extend([lo, hi])
        sign = -1 if model.sense == "max" else 1  # CP-SAT minimizes; a maximum is -min(-f)
        obj = proto.objective
        for j, k in enumerate(sm.cost):
            if k:
                obj.vars.append(j)
                obj.coeffs.append(sign * k)
        obj.scaling_factor = float(sign)
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.log_search_progress = False
        p.catch_sigint_signal = False  # Ctrl-C is handled by run_interruptible (stop_search)
        p.num_workers = max(1, int(settings.threads))
        p.random_seed = int(settings.solver_seed)
        p.relative_gap_limit = float(settings.mip_rel_gap)
        p.absolute_gap_limit = float(settings.abs_gap_for(model)) * sm.cost_scale
        p.cp_model_presolve = bool(settings.presolve)
        if settings.time_limit is not None:
            p.max_time_in_seconds = max(1e-3, float(settings.time_limit) - (time.perf_counter() - start))
        if settings.node_limit is not None:
            p.max_number_of_conflicts = int(settings.node_limit)
        codes: list[int] = []
        fired = run_interruptible(lambda: codes.append(solver.solve(cp)), solver.stop_search,
                                  settings.hard_limit(), stop_event=stop)
        run_time = time.perf_counter() - start
        name = codes[0].name if codes else "UNKNOWN"
        resp = solver.response_proto
        has_solution = name in ("OPTIMAL", "FEASIBLE")
        x = np.array(resp.solution, dtype=float) if has_solution and len(resp.solution) == model.num_cols else None
        at_limit = fired or (settings.time_limit is not None and solver.wall_time >= 0.95 * p.max_time_in_seconds)
        message = name
        if name == "OPTIMAL":
            status = "optimal"
        elif name == "INFEASIBLE":
            status = "infeasible"
        elif name == "FEASIBLE":
            status = "feasible" if settings.node_limit is not None and not at_limit else "time_limit"
        elif name == "MODEL_INVALID":
            status, message = "error", f"CP-SAT: MODEL_INVALID: {cp.validate()}"
        elif at_limit or (name == "UNKNOWN" and settings.time_limit is not None):
            status = "time_limit"
        elif name == "UNKNOWN" and settings.node_limit is not None:
            status = "node_limit"  # the conflict limit stopped it before any point was found
        else:
            status, message = "error", f"CP-SAT ended with status {name}"
        if fired:
            status, message = "time_limit", message + " (stopped by the watchdog)"
        bound = None
        if status in ("optimal", "feasible", "time_limit") and (has_solution or name == "UNKNOWN"):
            inner = Fraction(int(resp.inner_objective_lower_bound))  # on sign * scaled cost
            if abs(inner) < 2**62:  # CP-SAT leaves int64 min/max there when it has no bound
                bound = float(sign * inner / sm.cost_scale) + model.offset
        objective = None if x is None else model.value(x)
        return finish(model, status, x, objective, bound, self, run_time, message=message,
                      cost_scale=sm.cost_scale, max_row_scale=max((r[4] for r in sm.rows), default=1),
                      conflicts=int(solver.num_conflicts), branches=int(solver.num_branches),
                      threads_used=int(p.num_workers))
