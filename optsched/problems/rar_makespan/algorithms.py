"""Placement algorithms for ``rar-makespan``: SJF-BCO [paper: MobiHoc'22] and its baselines.

Every method returns a placement plan (``order``, ``gpus``; schema in :mod:`.instance`), whose
makespan the checker computes by simulation. Busy times are in estimate units: job j adds
``rho_hat_j / u`` slots to each of its GPUs (``u`` = ``estimate_upper``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .instance import RarMakespanInstance, simulate

__all__ = ["sjf_bco", "first_fit", "least_busy", "random_placement", "brute", "brute_plan_count",
           "BRUTE_MAX_PLANS", "sjf_bco_plan", "estimated_durations", "least_busy_plan"]

BRUTE_MAX_PLANS = 20_000
_EPS = 1e-9


def estimated_durations(instance: RarMakespanInstance) -> np.ndarray:
    """rho_hat_j / u for each job: the busy time SJF-BCO charges (a lower estimate of rho_j)."""
    return np.array([job.estimate_slots for job in instance.jobs]) / instance.estimate_upper


def _as_plan(instance, order, picks) -> dict:
    gpus: list = [None] * instance.num_jobs
    server, offset = instance.gpu_server, instance.gpu_offset
    for j, pick in zip(order, picks):
        gpus[j] = [[int(server[k]), int(k - offset[server[k]])] for k in sorted(pick)]
    return {"order": [int(j) for j in order], "gpus": gpus}


def _outcome(instance, plan, **stats) -> Outcome:
    sched = simulate(instance, plan["order"], plan["gpus"])
    return Outcome(solution=plan, objective=float(sched.makespan),
                   stats={"average_jct": sched.average_jct, **stats})


# -- SJF-BCO ---------------------------------------------------------------------------------
def sjf_bco_plan(instance: RarMakespanInstance, theta: float, kappa: int, spread_factor: float):
    """One SJF-BCO pass at busy-time threshold ``theta`` and FA-FFP/LBSGF cut-off ``kappa``.

    Jobs in order of G_j ascending (ties by index). G_j <= kappa: FA-FFP, the G_j least busy
    GPUs among those whose busy time plus rho_hat_j / u stays within theta. G_j > kappa: LBSGF,
    servers by average busy time ascending until their capacity reaches lambda G_j, then the
    least busy eligible GPUs in them. Returns ``(order, picks, busy)``, or None when some job
    finds fewer than G_j eligible GPUs (theta too small for this kappa).
    """
    est = estimated_durations(instance)
    server = instance.gpu_server
    caps = np.asarray(instance.servers, float)
    busy = np.zeros(server.size)
    order = sorted(range(instance.num_jobs), key=lambda j: (instance.jobs[j].gpus, j))
    picks = []
    for j in order:
        g = instance.jobs[j].gpus
        eligible = busy + est[j] <= theta + _EPS
        if g > kappa:  # LBSGF
            average = np.bincount(server, weights=busy, minlength=caps.size) / caps
            by_load = np.argsort(average, kind="stable")
            enough = int(np.searchsorted(np.cumsum(caps[by_load]), spread_factor * g - _EPS)) + 1
            eligible &= np.isin(server, by_load[:enough])
        cand = np.flatnonzero(eligible)
        if cand.size < g:
            return None
        pick = cand[np.argsort(busy[cand], kind="stable")[:g]]
        busy[pick] += est[j]
        picks.append(pick)
    return order, picks, busy


def _kappas(instance: RarMakespanInstance) -> list[int]:
    """The kappas 1..n_g that give distinct plans: the smallest kappa of each FA-FFP/LBSGF split."""
    sizes = sorted({job.gpus for job in instance.jobs})
    return sorted({1} | set(sizes))


def sjf_bco(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """SJF-BCO: smallest-job-first, balancing-contention-and-overhead placement [paper: MobiHoc'22].

    Bisect the busy-time threshold theta in [0, T] (T = ``horizon``; up to the sum of all
    estimates when T is too small); at each theta try every kappa (``kappa`` option 0) or the
    given one, and keep theta when some kappa places every job. At the final theta, among the
    kappas that place every job, keep the one whose simulated makespan is smallest.

    Guarantee [paper, Theorem 5]: ``makespan <= n_g * phi * (u / l) * OPT`` with
    ``n_g = max_j G_j`` and ``phi`` from the instance (``RarMakespanInstance.phi``). Lemmas
    asserted in the tests: the largest GPU busy time of the plan equals the (snapped) bisection
    result theta*, and the plan's makespan with estimated durations is at most ``n_g theta*``.

    Complexity: O(log(T / tol) * K * n * (N log N)) for K tried kappas, n jobs, N GPUs, plus K
    simulations.

    >>> import optsched
    >>> r = optsched.solve(optsched.generate("rar-makespan", 1, preset="small"), "sjf-bco")
    >>> r.status, r.objective >= 1
    ('feasible', True)
    """
    kappa_opt = ctx.options.get("kappa", 0)
    lam = ctx.options.get("spread_factor", 1.0)
    n_g = instance.max_gpus
    if kappa_opt < 0 or kappa_opt > n_g:
        raise InvalidOptionError(instance.problem, "option kappa", f"must be in 0..{n_g} (0 = try all)", kappa_opt)
    if not lam >= 1:
        raise InvalidOptionError(instance.problem, "option spread_factor", "must be >= 1 (lambda)", lam)
    kappas = [kappa_opt] if kappa_opt else _kappas(instance)

    def feasible(theta):
        out = []
        for k in kappas:  # one plan per kappa: seconds each at 10^5 jobs, so the clock is read before each
            ctx.check_time()
            if sjf_bco_plan(instance, theta, k, lam) is not None:
                out.append(k)
        return out

    est = estimated_durations(instance)
    lo, hi = 0.0, float(instance.horizon)
    if not feasible(hi):
        hi = float(est.sum())  # every GPU stays within the total: always feasible
    iterations = 0
    while hi - lo > 1e-3 * max(1.0, hi) and iterations < 60:
        mid = (lo + hi) / 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid
        iterations += 1
    best = None
    for k in feasible(hi):
        order, picks, busy = sjf_bco_plan(instance, hi, k, lam)
        plan = _as_plan(instance, order, picks)
        sched = simulate(instance, plan["order"], plan["gpus"])
        if best is None or sched.makespan < best[0]:
            best = (sched.makespan, k, plan, sched, float(busy.max()))
    makespan, kappa, plan, sched, theta_star = best
    return Outcome(solution=plan, objective=float(makespan),
                   stats={"average_jct": sched.average_jct, "kappa": kappa, "theta": theta_star,
                          "theta_infeasible_below": lo, "bisection_steps": iterations,
                          "spread_factor": lam})


# -- baselines -------------------------------------------------------------------------------
def _bisect_rule(instance, place) -> tuple[list, list, float]:
    """Smallest busy-time bound (to 1e-3 relative) under which ``place(bound)`` places every job."""
    est = estimated_durations(instance)
    lo, hi = 0.0, float(instance.horizon)
    if place(hi) is None:
        hi = float(est.sum())
    while hi - lo > 1e-3 * max(1.0, hi):
        mid = (lo + hi) / 2
        if place(mid) is None:
            lo = mid
        else:
            hi = mid
    order, picks = place(hi)
    return order, picks, hi


def first_fit(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """FF [paper baseline]: jobs in index order; the first G_j GPUs, server by server, whose busy
    time stays within a bound (the smallest bound, found by bisection, that places every job).
    No guarantee; empirical. O(log(T / tol) n N)."""
    est = estimated_durations(instance)

    def place(bound):
        busy = np.zeros(instance.gpu_server.size)
        picks = []
        for j in range(instance.num_jobs):
            cand = np.flatnonzero(busy + est[j] <= bound + _EPS)[:instance.jobs[j].gpus]
            if cand.size < instance.jobs[j].gpus:
                return None
            busy[cand] += est[j]
            picks.append(cand)
        return list(range(instance.num_jobs)), picks

    order, picks, bound = _bisect_rule(instance, place)
    return _outcome(instance, _as_plan(instance, order, picks), bound=bound)


def least_busy_plan(instance: RarMakespanInstance) -> dict:
    """The LS plan: jobs in index order, each on the G_j least busy GPUs (ties by index)."""
    est = estimated_durations(instance)
    busy = np.zeros(instance.gpu_server.size)
    picks = []
    for j in range(instance.num_jobs):
        pick = np.argsort(busy, kind="stable")[:instance.jobs[j].gpus]
        busy[pick] += est[j]
        picks.append(pick)
    return _as_plan(instance, list(range(instance.num_jobs)), picks)


def least_busy(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """LS [paper baseline]: jobs in index order, each on the G_j least busy GPUs (ties by index).
    No guarantee; empirical. O(n N log N)."""
    return _outcome(instance, least_busy_plan(instance))


def random_placement(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """RANDOM [paper baseline]: jobs in index order, each on G_j GPUs drawn uniformly at random
    (seeded). No guarantee; empirical. O(n N)."""
    total = instance.gpu_server.size
    picks = [ctx.rng.choice(total, size=job.gpus, replace=False) for job in instance.jobs]
    return _outcome(instance, _as_plan(instance, list(range(instance.num_jobs)), picks))


# -- brute force -----------------------------------------------------------------------------
def brute_plan_count(instance: RarMakespanInstance) -> int:
    """Number of plans the brute force enumerates: n! orders x prod_j C(N, G_j) GPU sets."""
    total = instance.gpu_server.size
    return math.factorial(instance.num_jobs) * math.prod(math.comb(total, job.gpus) for job in instance.jobs)


def brute(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """Exact over the plans the solution schema allows: every order and every GPU set of every job.

    For tests on tiny instances (at most ``BRUTE_MAX_PLANS`` plans). The order only matters
    between jobs that share a GPU, but every permutation is tried: simple and certainly complete.
    """
    total = instance.gpu_server.size
    sets = [list(itertools.combinations(range(total), job.gpus)) for job in instance.jobs]
    best = None
    for picks in itertools.product(*sets):
        for order in itertools.permutations(range(instance.num_jobs)):
            plan = _as_plan(instance, list(order), [np.array(picks[j]) for j in order])
            span = simulate(instance, plan["order"], plan["gpus"]).makespan
            if best is None or span < best[0]:
                best = (span, plan)
    return Outcome(solution=best[1], objective=float(best[0]), bound=float(best[0]), status="optimal",
                   stats={"plans": brute_plan_count(instance)})
