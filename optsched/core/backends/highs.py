"""Direct highspy back-end: the model's sparse matrices are handed to HiGHS as they are.

HiGHS 1.16 prints a two-line banner on the C-level stdout when the first ``Highs`` object of a
process is constructed, before any option (``output_flag``) can be set. Importing this module
therefore constructs one ``Highs`` object with file descriptor 1 pointed at ``/dev/null``
(:func:`quiet_stdout`), so that no banner can reach stdout afterwards, whichever library (ours,
Pyomo's, CVXPY's) constructs the next one; :func:`new_highs` constructs every object of ours the
same way, for versions that would print on each construction.
"""

from __future__ import annotations

import contextlib
import time

import highspy
import numpy as np

from ..linear import LinearModel, ModelSolution
from ..errors import SolverError
from .base import Backend, SolverSettings, finish
from .stdio import quiet_stdout

__all__ = ["HighsBackend", "to_highs", "highs_status", "new_highs", "quiet_stdout", "progress_listener"]


def new_highs() -> highspy.Highs:
    """A silent ``highspy.Highs`` object: constructed with stdout silenced, ``output_flag`` off."""
    with quiet_stdout():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


_BANNER_ABSORBER = new_highs()  # the first construction of the process prints the banner


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
    h = new_highs()
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

    The main thread waits in short slices, so Ctrl-C (``KeyboardInterrupt``) is seen at once even
    without a limit (a plain ``h.run()`` holds the main thread inside C++ until the solve ends,
    and a process left with a running HiGHS thread aborts at exit with SIGABRT): the solve is
    cancelled, its thread joined, and the ``KeyboardInterrupt`` re-raised.
    """
    h.HandleUserInterrupt = True
    thread = h.startSolve()
    deadline = None if hard_limit is None else time.monotonic() + hard_limit
    slice_s = 0.2 if stop is None else 0.05
    done = False
    try:
        while not done:
            if stop is not None and stop.is_set():
                break
            remaining = slice_s if deadline is None else min(slice_s, deadline - time.monotonic())
            if remaining <= 0:
                break
            done, _ = h.wait(remaining)
    except KeyboardInterrupt:
        _cancel_and_join(h, thread)
        raise
    if not done:
        h.cancelSolve()
    _join_uninterrupted(h, thread)
    return not done


def _cancel_and_join(h: highspy.Highs, thread, grace_s: float = 3.0) -> None:
    """Cancel a running solve and wait up to ``grace_s`` for its thread (HiGHS honours the cancel
    flag only at its interrupt checks, which can be far apart, e.g. in presolve); a thread still
    running then is left to the caller's exit (see :func:`.base.abandoned_solver_threads`)."""
    from .base import _ABANDONED

    deadline = time.monotonic() + grace_s
    while True:
        try:
            h.cancelSolve()
            while time.monotonic() < deadline:
                done, _ = h.wait(0.1)
                if done:
                    thread.join()
                    return
            thread.highs = h  # keep the object alive while its thread runs
            _ABANDONED.append(thread)
            return
        except KeyboardInterrupt:
            continue


def _join_uninterrupted(h: highspy.Highs, thread) -> None:
    while True:
        try:
            done, _ = h.wait(0.2)
            if done:
                break
        except KeyboardInterrupt:
            h.cancelSolve()
    thread.join()


_PROGRESS_LISTENERS: list = []


@contextlib.contextmanager
def progress_listener(listener):
    """While the block runs, ``listener(info)`` hears every HiGHS MIP solve of this process as it
    goes: ``info`` is a dict with ``incumbent`` (the best objective found, None before the first),
    ``bound`` (the dual bound, None while infinite), ``gap`` (HiGHS' relative gap, as
    :func:`optsched.core.result.relative_gap`), ``nodes``, ``time`` (the solve's seconds) and
    ``sense`` of the model, each time the incumbent improves or the bound moves.

    The listener runs in HiGHS' solver thread, inside its callbacks: it must be quick (store the
    values; print elsewhere); what it raises is ignored. It does not change the solve.
    """
    _PROGRESS_LISTENERS.append(listener)
    try:
        yield listener
    finally:
        _PROGRESS_LISTENERS.remove(listener)


def _finite(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _attach_progress(h: highspy.Highs, model: LinearModel) -> None:
    """Subscribe the listeners of :func:`progress_listener` to ``h``'s MIP callbacks."""
    if not _PROGRESS_LISTENERS or not model.is_mip:
        return
    from ..gaps import relative_gap

    listeners = list(_PROGRESS_LISTENERS)
    last: list = [None]

    def emit(event, improving: bool) -> None:
        try:
            d = event.data_out
            incumbent, bound = _finite(d.mip_primal_bound), _finite(d.mip_dual_bound)
            if not improving and last[0] == (incumbent, bound):
                return
            last[0] = (incumbent, bound)
            gap = relative_gap(incumbent, bound)
            info = {"incumbent": incumbent, "bound": bound, "gap": gap, "nodes": int(d.mip_node_count),
                    "time": float(d.running_time), "sense": model.sense}
        except Exception:  # pragma: no cover - a highspy without these fields: no progress
            return
        for listener in listeners:
            try:
                listener(info)
            except Exception:
                pass

    h.cbMipImprovingSolution += lambda e: emit(e, True)
    h.cbMipInterrupt += lambda e: emit(e, False)


class HighsBackend(Backend):
    name = "highs"
    description = "HiGHS through highspy, from the sparse matrices directly (default)"
    bound_support = "always (MIP dual bound; LP optimum for LPs)"
    watchdog = "cancel"

    def version(self) -> str:
        return f"highspy {_BANNER_ABSORBER.version()}"

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
        _attach_progress(h, model)
        fired = run_with_watchdog(h, settings.hard_limit(), stop)
        info = h.getInfo()
        name = h.getModelStatus().name
        has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
        status = highs_status(name, has_solution)
        if (status == "error" and settings.node_limit is not None
                and name in ("kSolutionLimit", "kIterationLimit", "kInterrupt")):
            status = "node_limit"  # the work limit stopped it before any point was found
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
