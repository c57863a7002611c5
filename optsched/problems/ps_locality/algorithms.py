"""Offline methods of ``ps-locality``: ``milp``, ``lp``, ``lower-bound``, ``rr`` and the baselines.

* ``milp`` (exact, [ours] formulation): the time-indexed IP of :mod:`.model` on a back-end.
* ``lp`` (bound): its LP relaxation (``cumulative_rows = False`` gives the ablation without the
  cumulative covering rows).
* ``lower-bound`` (bound): for instances too large for ``lp``, the pooled bucketed LP (machines
  pooled, buckets widening after the last arrival), which is at least sum_i solo_i.
* ``rr`` (approximation, reconstruction of the paper's randomized rounding): LP, then per trial
  sample completion slots and modes, scale by kappa and round, repair; best of ``trials``.
* ``fifo-locality`` and ``drf`` (baselines, [ours]): :mod:`.slots`.

Proofs of the rounding theorem and of the lower bounds: ``optsched/problems/ps_locality/README.md``.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import Infeasible, InvalidOptionError, NotApplicable, SolverError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached, model_outcome

from .instance import CAPACITY_RTOL, PsLocalityInstance, solution_from_arrays
from . import model as _model
from .model import (ModelData, build_model, decode_counts, lower_bound_buckets, model_nonzeros, offline_data,
                    pooled_data, solo_slots)
from .slots import SlotSchedule, drf, fifo_locality

#: rr's most rounding trials [ours: each trial samples, repairs and costs a whole schedule; the
#: range refuses absurd counts (10^400 would otherwise run until the time limit)]
RR_MAX_TRIALS = 100_000

__all__ = ["milp", "lp_bound", "lower_bound", "rr", "fifo_locality_method", "drf_method",
           "rounding_delta", "rounding_factor", "require_horizon"]


def require_horizon(instance: PsLocalityInstance) -> None:
    """Raise :class:`Infeasible` when some job cannot finish within the horizon even alone."""
    late = instance.arrival + solo_slots(instance) - 1
    bad = np.flatnonzero(late >= instance.horizon_slots)
    if bad.size:
        i = int(bad[0])
        raise Infeasible(f"job {i} ({instance.jobs[i].name}) arrives in slot {instance.arrival[i]} and needs at "
                         f"least {late[i] - instance.arrival[i] + 1} slots even alone, but the horizon ends at slot "
                         f"{instance.horizon_slots - 1}")


def require_size(data: ModelData, method: str, ctx: SolveContext | None = None, **rows) -> None:
    """Refuse (:class:`NotApplicable`, exit 2) before building a model of more than
    :data:`.model.MAX_NONZEROS` nonzeros (:func:`.model.model_nonzeros`, exact); stop
    (:class:`TimeLimitReached`) when the time left cannot build and hand over the model
    (:data:`.model.SECONDS_PER_NONZERO` each: the solver's own limit does not cover that)."""
    nnz = model_nonzeros(data, **rows)
    if nnz > _model.MAX_NONZEROS:
        raise NotApplicable("ps-locality", method, f"its model would have {nnz} nonzeros, more than the "
                            f"{_model.MAX_NONZEROS} a run may build (about 200 bytes each: memory)")
    left = None if ctx is None else ctx.remaining()
    if left is not None and left < nnz * _model.SECONDS_PER_NONZERO:
        raise TimeLimitReached(f"the {left:.3g} s left cannot build and pass on a model of {nnz} nonzeros "
                               f"(about {nnz * _model.SECONDS_PER_NONZERO:.3g} s)")


# -- exact and bounds ---------------------------------------------------------------------------
def milp(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """Exact: the time-indexed mixed packing-covering IP (``mip_rel_gap = 0`` unless overridden).

    Guarantee: optimal when the status is ``optimal``; otherwise the bound and gap are reported.
    Complexity: a MILP with 5 n H T + 2 n T columns (NP-hard in general).
    """
    rows = row_options(ctx.options)
    if not (rows["cumulative"] or rows["activity"]):
        raise InvalidOptionError("ps-locality", "option activity_rows", "milp needs cumulative_rows or "
                                   "activity_rows: without both the completion variables are unconstrained")
    require_horizon(instance)
    data = offline_data(instance)
    require_size(data, "milp", ctx, cumulative=rows["cumulative"], activity=rows["activity"])
    model = build_model(data, **rows)
    return model_outcome(ctx, model, lambda x: solution_from_arrays(*decode_counts(model, x)))


def row_options(options: dict) -> dict:
    """The row switches of :func:`.model.build_model` from a method's options."""
    return {"cumulative": options.get("cumulative_rows", True), "activity": options.get("activity_rows", True),
            "solo_cut": options.get("solo_cut", True)}


def _lp_point(instance: PsLocalityInstance, ctx: SolveContext, rows: dict | None = None):
    data = offline_data(instance)
    rows = rows or {}
    require_size(data, ctx.method.name, ctx, cumulative=rows.get("cumulative", True),
                 activity=rows.get("activity", True))
    model = build_model(data, integer=False, **rows)
    sol = ctx.solve_model(model)
    if sol.status == "infeasible":
        raise Infeasible("the LP relaxation is infeasible: no fractional schedule finishes every job within "
                         f"the horizon of {instance.horizon_slots} slots")
    if sol.status == "time_limit" and sol.x is None:
        raise TimeLimitReached(f"the LP relaxation stopped at the time limit ({sol.backend}: {sol.message})")
    if sol.status != "optimal" or sol.x is None:
        raise SolverError(f"the LP relaxation did not solve ({sol.backend}: {sol.status} {sol.message})")
    return model, sol


def lp_bound(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """LP relaxation of the IP: LP <= OPT (any IP solution is LP-feasible). One LP solve.

    An LP stopped at a limit reports its status with the back-end's dual bound (a valid lower
    bound when the back-end gives one; none otherwise)."""
    require_horizon(instance)
    data, rows = offline_data(instance), row_options(ctx.options)
    require_size(data, "lp", ctx, cumulative=rows["cumulative"], activity=rows["activity"])
    model = build_model(data, integer=False, **rows)
    sol = ctx.solve_model(model)
    if sol.status == "infeasible":
        raise Infeasible("the LP relaxation is infeasible: no fractional schedule finishes every job within "
                         f"the horizon of {instance.horizon_slots} slots")
    value = sol.objective if sol.status == "optimal" else sol.bound
    return Outcome(objective=value, bound=value, status=sol.status, backend=sol.backend,
                   solver_version=sol.solver_version, reason=None if sol.status == "optimal" else sol.message,
                   stats={"solver_run_time": sol.run_time, "sum_solo_slots": int(solo_slots(instance).sum())})


def lower_bound(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """max(sum_i solo_i, pooled bucketed LP): a lower bound on OPT for large instances.

    The LP pools the machines (capacity summed, co-located width capped by one machine) and uses
    one bucket per slot up to the last arrival + ``fine_slots``, then buckets of 2, 4, 8, ...
    slots (proofs in ``optsched/problems/ps_locality/README.md#lower-bounds-ours``). It has 7 n B columns for B buckets.
    """
    require_horizon(instance)
    fine = ctx.options["fine_slots"]
    if fine < 1:
        raise InvalidOptionError("ps-locality", "option fine_slots", "must be >= 1", fine)
    solo = float(solo_slots(instance).sum())
    starts = lower_bound_buckets(instance, fine)
    data = pooled_data(instance)
    nnz = model_nonzeros(data, bucket_starts=starts, activity=ctx.options["activity_rows"])
    left = ctx.remaining()
    if left is not None and left < nnz * _model.SECONDS_PER_NONZERO:  # no time to build it: the solo sum
        return Outcome(objective=solo, bound=solo, status="time_limit",
                       reason=f"the {left:.3g} s left cannot build and pass on the pooled LP of {nnz} nonzeros: "
                              "the bound is the sum of solo times",
                       stats={"sum_solo_slots": solo, "pooled_lp": None, "buckets": len(starts),
                              "pooled_lp_nonzeros": nnz})
    if nnz > _model.MAX_NONZEROS:  # the pooled LP is not built: the sum of solo times alone
        return Outcome(objective=solo, bound=solo, status="feasible",
                       reason=f"the pooled LP would have {nnz} nonzeros, more than {_model.MAX_NONZEROS}: "
                              "the bound is the sum of solo times",
                       stats={"sum_solo_slots": solo, "pooled_lp": None, "buckets": len(starts),
                              "pooled_lp_nonzeros": nnz})
    model = build_model(data, bucket_starts=starts, integer=False,
                        activity=ctx.options["activity_rows"], name="ps-locality-pooled")
    sol = ctx.solve_model(model)
    if sol.status == "infeasible":
        raise Infeasible("the pooled LP relaxation is infeasible: no schedule finishes every job within the horizon")
    # a stopped LP's dual bound is still a valid bound when the back-end reports one
    lp_value = sol.objective if sol.status == "optimal" else sol.bound
    value = max(solo, lp_value) if lp_value is not None else solo
    return Outcome(objective=value, bound=value, status="optimal" if sol.status == "optimal" else sol.status,
                   backend=sol.backend, solver_version=sol.solver_version,
                   stats={"sum_solo_slots": solo, "pooled_lp": lp_value, "buckets": len(starts),
                          "solver_run_time": sol.run_time})


# -- randomized rounding ------------------------------------------------------------------------
def _rounding_width(instance: PsLocalityInstance, kappa: float) -> np.ndarray:
    """A[h, r]: the most one job can put on row (h, r, t) after scaling by kappa and rounding."""
    w = np.ceil(kappa * instance.max_workers - 1e-12)
    p = np.ceil(kappa * instance.max_ps - 1e-12)
    return (instance.worker_demand * w[:, None] + instance.ps_demand * p[:, None]).max(axis=0)


def rounding_delta(instance: PsLocalityInstance, kappa: float = 1.0) -> float:
    """delta of the rounding theorem: delta^2 / (2 + delta) = 2 ln m / (kappa rho), m = H R T
    packing rows, rho = min over rows of capacity / (largest per-job contribution)."""
    m = instance.num_machines * instance.num_resources * instance.horizon_slots
    A = _rounding_width(instance, kappa)[None, :]
    cap = instance.capacity
    usable = (cap > 0) & (A > 0)
    if not usable.any():
        return 0.0
    rho = float(np.min(cap[usable] / np.broadcast_to(A, cap.shape)[usable]))
    L = 2 * math.log(m) / (kappa * rho)
    return (L + math.sqrt(L * L + 8 * L)) / 2


def rounding_factor(instance: PsLocalityInstance, kappa: float = 1.0) -> float:
    """kappa (1 + delta): the theorem's bound on every packing row's pre-repair load / capacity."""
    return kappa * (1 + rounding_delta(instance, kappa))


def _round(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """floor(v) + Bernoulli(v - floor(v)), with the uniform draws given."""
    base = np.floor(values)
    return (base + (draws < values - base)).astype(np.int64)


def _sample_plan(instance, lp, kappa, rng):
    """One trial of step 2: the rounded (pre-repair) plan x, p, y, q and the sampled slots tau."""
    X, P, Y, Q, Z, U, D = lp
    n, H, T = X.shape
    cum = np.cumsum(D, axis=1)
    cum /= cum[:, -1:]
    tau = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), T - 1)          # tau_i ~ d*[i, :]
    probs = np.concatenate([Z, U[:, None, :]], axis=1)                           # (n, H + 1, T)
    total = probs.sum(axis=1, keepdims=True)
    probs = probs / np.maximum(total, 1.0)                                       # tolerance overshoot
    mode = (rng.random((n, 1, T)) > np.cumsum(probs, axis=1)).sum(axis=1)       # H + 1 = idle
    draws = rng.random((4, n, H, T))
    with np.errstate(divide="ignore", invalid="ignore"):
        zc = np.where(Z > 0, 1 / Z, 0.0)
        uc = np.where(U > 0, 1 / U, 0.0)[:, None, :]
    W = instance.max_workers[:, None, None]
    Pm = instance.max_ps[:, None, None]
    colo = mode[:, None, :] == np.arange(H)[None, :, None]
    spread = (mode == H)[:, None, :]
    live = (np.arange(T)[None, :] <= tau[:, None])[:, None, :]
    x = _round(np.minimum(kappa * X * zc, kappa * W), draws[0]) * (colo & live)
    p = _round(np.minimum(kappa * P * zc, kappa * Pm), draws[1]) * (colo & live)
    y = _round(np.minimum(kappa * Y * uc, kappa * W), draws[2]) * (spread & live)
    q = _round(np.minimum(kappa * Q * uc, kappa * Pm), draws[3]) * (spread & live)
    return x, p, y, q, tau


def _loads(instance, x, p, y, q) -> np.ndarray:
    """Load of every packing row, shape (H, R, T)."""
    dw, dp = instance.worker_demand, instance.ps_demand
    return np.einsum("ir,iht->hrt", dw, x + y) + np.einsum("ir,iht->hrt", dp, p + q)


def _repair(instance: PsLocalityInstance, plan, tau, poll=None) -> SlotSchedule:
    """Step 3: walk the slots; admit each job's rounded allocation in order of its sampled
    completion slot (so the latest jobs lose workers on overloaded machines), trimmed to what it
    needs and what fits; then let unfinished jobs use the room left (earliest slots first).
    ``poll`` (the caller's clock check, raising to stop) runs once per slot."""
    x, p, y, q = plan
    s = SlotSchedule(instance)
    order = np.lexsort((np.arange(instance.num_jobs), tau))
    for t in range(instance.horizon_slots):
        if poll is not None:
            poll()
        s.begin(t)
        active = [i for i in order if instance.arrival[i] <= t and s.unfinished(i)]
        for i in active:
            colo = x[i, :, t] + p[i, :, t]
            if colo.any():
                h = int(np.argmax(colo))
                s.place_colo(i, h, min(int(x[i, h, t]), s.need(i, spread=False)))
            elif (y[i, :, t] + q[i, :, t]).any():
                prefer = np.lexsort((np.arange(instance.num_machines), -q[i, :, t], -y[i, :, t]))
                s.place_spread(i, min(int(y[i, :, t].sum()), s.need(i, spread=True)), prefer)
        for i in active:
            s.grow(i)
        s.end()
        if not s.active().size and np.all(instance.arrival <= t):
            break
    return s


def rr(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """Randomized rounding of the LP, repaired; the best of ``trials`` seeded trials.

    Problem: minimize total completion time (docs ``optsched/problems/ps_locality/README.md``).
    Guarantee (optsched's theorem, before repair; proof ``optsched/problems/ps_locality/README.md#rounding-theorem``):
    for each trial, with probability >= 1 - 1/m (m = H R T packing rows), every packing row's
    rounded load is <= kappa (1 + delta) cap, delta^2 / (2 + delta) = 2 ln m / (kappa rho).
    After repair: feasible, or ``infeasible`` with the reason; no guarantee on ALG / OPT (the
    ratio to the LP bound is reported).
    Complexity: one LP, then O(trials (n H T + T n (H R W + W H))).

    >>> import optsched
    >>> inst = optsched.generate("ps-locality", seed=1, preset="tiny")
    >>> r = optsched.solve(inst, "rr", seed=1)
    >>> r.status, r.objective >= r.bound
    ('feasible', True)
    """
    require_horizon(instance)
    kappa, trials = ctx.options["kappa"], ctx.options["trials"]
    # kappa in [1, 1e6] and trials in [1, RR_MAX_TRIALS]: checked by their declarations (methods.py)
    model, sol = _lp_point(instance, ctx)
    lp = [np.clip(model.block_values(sol.x, k), 0, None) for k in "xpyqzud"]
    lp = [np.where(a > 1e-9, a, 0.0) for a in lp]     # solver noise below 1e-9 is zero
    factor = rounding_factor(instance, kappa)
    cap = instance.capacity[:, :, None]
    best, best_value, per_trial = None, math.inf, []

    def incumbent() -> Outcome | None:  # the best repaired schedule so far, for a stop
        if best is None:
            return None
        return Outcome(solution=best.solution(), objective=best_value, bound=sol.objective, status="time_limit",
                       reason=f"the time limit stopped the trials after {len(per_trial)} of {trials}",
                       backend=sol.backend, solver_version=sol.solver_version, stats={"lp_value": sol.objective})

    def poll() -> None:  # the clock, once per trial and once per slot of a repair
        if ctx.expired():
            raise TimeLimitReached(f"time limit of {ctx.time_limit} s reached", incumbent())
    for k in range(trials):
        poll()
        x, p, y, q, tau = _sample_plan(instance, lp, kappa, ctx.rng)
        load = _loads(instance, x, p, y, q)
        positive = np.broadcast_to(cap > 0, load.shape)
        ratio = load[positive] / np.broadcast_to(cap, load.shape)[positive]
        progress = (x.sum(axis=1) / instance.e_in[:, None] + y.sum(axis=1) / instance.e_ex[:, None]).sum(axis=1)
        s = _repair(instance, (x, p, y, q), tau, poll)
        final = s.entries
        planned = int(x.sum() + y.sum())
        used = sum(e[3] + e[5] for e in final)
        value = s.objective()
        per_trial.append({
            "max_load_ratio": float(ratio.max(initial=0.0)),
            "zero_capacity_rows_loaded": int((load[~positive] > 0).sum()),
            "overloaded_rows": int((load > cap * (1 + CAPACITY_RTOL) + CAPACITY_RTOL).sum()),
            "rows_beyond_bound": int((load > factor * cap * (1 + 1e-6) + 1e-9).sum()),
            "short_jobs": int((progress < instance.workload * (1 - 1e-6)).sum()),
            "planned_worker_slots": planned, "final_worker_slots": int(used),
            "objective": value})
        if value is not None and value < best_value:
            best, best_value = s, value
    stats = {"lp_value": sol.objective, "kappa": kappa, "trials": trials, "rounding_factor": factor,
             "rounding_delta": rounding_delta(instance, kappa), "packing_rows": int(cap.size * instance.horizon_slots),
             "pre_repair": per_trial}
    if best is None:
        late = [int(i) for i in np.flatnonzero(s.completion < 0)]
        raise Infeasible(f"rr: in each of {trials} trial(s) the repaired schedule leaves job(s) {late[:5]} "
                         f"unfinished at the end of the horizon (slot {instance.horizon_slots - 1}); the LP "
                         f"relaxation is feasible, so the instance may still be feasible (try milp)")
    stats["ratio_to_lp"] = best_value / sol.objective if sol.objective > 0 else math.inf
    return Outcome(solution=best.solution(), objective=best_value, bound=sol.objective, backend=sol.backend,
                   solver_version=sol.solver_version, stats=stats)


# -- baselines ----------------------------------------------------------------------------------
def _baseline_outcome(name: str, instance: PsLocalityInstance, s: SlotSchedule) -> Outcome:
    value = s.objective()
    if value is None:
        late = [int(i) for i in np.flatnonzero(s.completion < 0)]
        raise Infeasible(f"{name}: job(s) {late[:5]} do not finish within the horizon of "
                         f"{instance.horizon_slots} slots under this policy")
    return Outcome(solution=s.solution(), objective=value)


def fifo_locality_method(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """FIFO, co-locate on the first machine that fits, else spread (no guarantee; empirical)."""
    require_horizon(instance)
    return _baseline_outcome("fifo-locality", instance, fifo_locality(instance, ctx.check_time))


def drf_method(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """DRF-style fair share with spread placement (no guarantee; empirical)."""
    require_horizon(instance)
    return _baseline_outcome("drf", instance, drf(instance, ctx.check_time))
