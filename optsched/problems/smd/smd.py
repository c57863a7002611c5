"""SMD: sum-of-ratios outer loop over multiple-choice knapsack inner problems (reconstruction).

Our reading (docs ``optsched/problems/smd/README.md``; fidelity ``reconstruction``) of Yu, Wu, Ji, Liu, INFOCOM 2021, whose
algorithm text is not public beyond the abstract [paper: sum of ratios decomposed into
multi-dimensional knapsack subproblems]. Every detail below is [ours]; ``optsched/problems/smd/README.md`` describes it
with what we observe. The outer loop alone has no guarantee; the certification stage (5.) gives one.

Ratio form: job i's surrogate completion time is ``omega_i F_i / g_i`` with ``F_i = (E_i D_i / mb_i)
tau_i(w, s)`` and ``g_i = w`` (no ceiling), or ``omega_i defer_i / 1`` when deferred.

0. Step 0: the inner step on the ratios themselves (the surrogate's MC-MKP); its solution gives
   the first ``beta_i = omega_i F_i / g_i`` and ``u_i = 1 / g_i``.
1. Outer loop (Jong-type parametric method): given ``(beta, u)``, the inner problem is
   ``min sum_i u_i (omega_i F_i - beta_i g_i)`` over one configuration per job within the
   capacities: an MC-MKP.
2. Inner step (``inner="lagrangian"``): prices ``lambda[r]`` on the capacity rows make jobs
   separable; each job picks its column minimizing ``a_ic + lambda . d_ic`` (one vectorized pass
   over all columns); ``lambda`` follows Polyak subgradient steps toward the best feasible inner
   value (factor halved after 5 iterations without a better dual value; stop below ``MIN_THETA``,
   at ``max_inner`` or when the duality gap is small). Feasibility is restored greedily at the
   first iteration and from the best prices (:func:`_repair`, :func:`_repair_down`).
   ``inner="lp-round"`` or ``"milp"`` solve the inner MC-MKP on the back-end instead.
3. Damped Newton step along ``(omega F / g - beta, 1 / g - u)`` at the inner solution: the line
   search tries ``damping``, half and a quarter of it, and accepts the first whose inner solution is
   better in the true objective or has a residual within ``tolerance``.
4. Stop: ``converged`` (residual ``max_i max(|omega F_i - beta_i g_i| / (omega F_i), |u_i g_i - 1|)``
   at most ``tolerance``), ``no_descent`` (the line search found nothing better) or ``max_outer``.

The outer loop's solution is the best, by the true objective (with the ceiling), of the inner
solutions, each first improved by one greedy pass on the true cost (``polish``).

5. Certification [ours] (:mod:`.certify`): a Lagrangian lower bound on the true objective, then,
   while ``(1 + target_gap) * bound`` is below the incumbent, best-first branch and bound over the
   linearized ratio terms with LP node bounds (``ctx.solve_model``). The reported value and bound
   satisfy ``bound <= OPT`` and ``ALG <= (1 + target_gap) * bound`` unless the time limit stopped
   the run (``optsched/problems/smd/README.md#smd-certified-bound``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.errors import InvalidOptionError, SolverError
from optsched.core.registry import Outcome
from optsched.core.result import relative_gap
from optsched.core.solving import SolveContext

from .certify import certify
from .configurations import (MIN_THETA, Configurations, enumerate_configurations, improve_greedily, reduced_costs,
                             segment_argmin)
from .instance import SmdInstance, require_feasible
from .model import build_mcmkp_model, decode_choice, round_basic_lp

__all__ = ["smd", "INNER_METHODS", "DEFAULT_TARGET_GAP"]

INNER_METHODS = ("lagrangian", "lp-round", "milp")
#: default of option ``target_gap``: the registered guarantee is ALG <= (1 + this) * OPT [ours]
DEFAULT_TARGET_GAP = 0.005
#: moves the final downgrade repair may make before it gives up (each is one pass over the columns)
MAX_DOWN_MOVES = 32
#: trial steps of the line search: damping, damping / 2, damping / 4
LINE_SEARCH_STEPS = 3


@dataclass
class InnerResult:
    choice: np.ndarray
    lower: float       # a lower bound on the inner optimum (Lagrangian dual or LP value)
    upper: float       # the inner value of ``choice``
    iterations: int
    prices: np.ndarray


def _repair(a: np.ndarray, reduced: np.ndarray, target: np.ndarray, cfg: Configurations,
            cap: np.ndarray) -> np.ndarray:
    """A feasible choice near the Lagrangian ``target``: start at the least-resource columns, then
    jobs in decreasing benefit per unit of capacity take their best fitting column by reduced cost,
    then (second pass) by inner cost."""
    low = cfg.smallest
    extra = cfg.demand[target] - cfg.demand[low]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(extra > 0, extra / cap, 0.0).sum(axis=1)
    benefit = a[low] - a[target]
    order = np.argsort(-benefit / np.maximum(share, 1e-12), kind="stable")
    choice = improve_greedily(reduced, cfg, cap, low, order)
    return improve_greedily(a, cfg, cap, choice, order)


def _repair_down(a: np.ndarray, target: np.ndarray, cfg: Configurations, cap: np.ndarray,
                 max_moves: int) -> np.ndarray | None:
    """Another repair, for a nearly feasible ``target``: repeatedly apply the move, over all columns,
    that uses no more of any resource and frees the overloaded ones at the least inner-cost increase
    per unit of freed capacity (normalized by capacity); then one greedy pass on the inner cost.
    None when more than ``max_moves`` moves would be needed. ``O(columns * |Res|)`` per move."""
    choice = target.copy()
    load = cfg.load(choice)
    for _ in range(max_moves + 1):
        over = load > cap
        if not over.any():
            return improve_greedily(a, cfg, cap, choice, np.arange(cfg.num_jobs))
        current = choice[cfg.job]
        smaller = np.all(cfg.demand <= cfg.demand[current], axis=1)
        scale = np.where(cap[over] > 0, cap[over], 1.0)  # a zero capacity: count freed units as they are
        freed = ((cfg.demand[current][:, over] - cfg.demand[:, over]) / scale).sum(axis=1)
        usable = smaller & (freed > 0)
        if not usable.any():
            return None
        score = np.full(cfg.num_columns, np.inf)
        score[usable] = np.maximum(a[usable] - a[current[usable]], 0.0) / freed[usable]
        column = int(np.argmin(score))
        job = cfg.job[column]
        load += cfg.demand[column] - cfg.demand[choice[job]]
        choice[job] = column
    return None


def _lagrangian(a: np.ndarray, cfg: Configurations, cap: np.ndarray, prices: np.ndarray, max_iter: int,
                tolerance: float) -> InnerResult:
    """Subgradient on the capacity prices; greedy repair at the start and from the best prices."""
    lower, upper, best = -np.inf, np.inf, None
    best_prices = prices
    theta, stalls = 1.0, 0
    it = 0
    for it in range(1, max_iter + 1):
        reduced = reduced_costs(a, cfg, prices)
        target = segment_argmin(reduced, cfg.start, cfg.job)
        dual = float(reduced[target].sum() - prices @ cap)
        if dual > lower:
            lower, best_prices, stalls = dual, prices, 0
        else:
            stalls += 1
            if stalls >= 5:
                theta, stalls = theta / 2, 0
                if theta < MIN_THETA:
                    break
        excess = cfg.load(target) - cap
        feasible = bool(np.all(excess <= 0))
        if feasible or it == 1:
            candidate = target if feasible else _repair(a, reduced, target, cfg, cap)
            value = float(a[candidate].sum())
            if value < upper:
                upper, best = value, candidate
        if upper - lower <= tolerance:
            break
        norm = float(excess @ excess)
        if norm == 0.0:
            break
        prices = np.maximum(0.0, prices + theta * (upper - dual) / norm * excess)
    if upper - lower > tolerance:
        reduced = reduced_costs(a, cfg, best_prices)
        target = segment_argmin(reduced, cfg.start, cfg.job)
        for candidate in (_repair(a, reduced, target, cfg, cap), _repair_down(a, target, cfg, cap, MAX_DOWN_MOVES)):
            if candidate is not None and float(a[candidate].sum()) < upper:
                upper, best = float(a[candidate].sum()), candidate
    return InnerResult(best, lower, upper, it, best_prices)


def _solver_inner(ctx: SolveContext, kind: str, a: np.ndarray, cfg: Configurations, cap: np.ndarray,
                  prices: np.ndarray) -> InnerResult:
    if kind == "lp-round":
        choice, sol, _ = round_basic_lp(ctx.solve_model, a, cfg, cap, fill=True, name="smd-inner")
        return InnerResult(choice, float(sol.objective), float(a[choice].sum()), 1, prices)
    sol = ctx.solve_model(build_mcmkp_model(a, cfg, cap, "smd-inner"))
    if sol.x is None:
        raise SolverError(f"smd: the inner MC-MKP returned no solution ({sol.backend}: {sol.status}, {sol.message})")
    choice = decode_choice(sol.x, cfg)
    lower = float(sol.bound) if sol.bound is not None else -np.inf
    return InnerResult(choice, lower, float(a[choice].sum()), 1, prices)


def smd(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """SMD: parametric sum-of-ratios outer loop, Lagrangian-decomposed MC-MKP inner step.

    Problem: minimize the weighted sum of completion times (docs ``optsched/problems/smd/README.md``). Guarantee [ours; the
    paper states one whose form is not public to us]: ``OPT <= ALG <= (1 + target_gap) * OPT``
    (default ``target_gap = 0.005``) when the run ends before its time limit; every result carries
    its certified ``bound <= OPT`` (the record's ``bound`` and ``gap``), also on a time limit.
    Complexity: per Lagrangian inner solve ``O(max_inner * columns * |Res|)`` plus
    ``O(columns * |Res|)`` per greedy repair, at most ``2 + max_outer * LINE_SEARCH_STEPS`` inner
    solves (columns: the dominance-pruned configurations); certification: at most 100 Lagrangian
    passes ``O(columns * |Res|)``, then one LP per branch-and-bound node (finitely many, not
    polynomially bounded: the MC-MKP is NP-hard).

    >>> import optsched
    >>> from optsched.problems.smd.generate import generate
    >>> r = optsched.solve(generate(4, jobs=4), "smd")
    >>> r.status, r.stats["certify"], r.objective <= 1.005 * r.bound + 1e-9 * r.objective
    ('feasible', 'certified', True)
    """
    require_feasible(instance)
    opts = ctx.options
    if opts["inner"] not in INNER_METHODS:
        raise InvalidOptionError("smd", "option inner", f"must be one of {', '.join(INNER_METHODS)}", opts["inner"])
    for name in ("max_outer", "max_inner"):
        if opts[name] < 1:
            raise InvalidOptionError("smd", f"option {name}", "must be >= 1", opts[name])
    if not opts["target_gap"] >= 0:  # also rejects nan
        raise InvalidOptionError("smd", "option target_gap", "must be >= 0 (inf: no branch and bound)",
                                   opts["target_gap"])
    if not 0 < opts["damping"] <= 1:
        raise InvalidOptionError("smd", "option damping", "must be in (0, 1]", opts["damping"])
    cfg = enumerate_configurations(instance)
    cap = instance.capacity_array
    ratio = cfg.numerator / cfg.denominator
    polish_order = np.arange(instance.num_jobs)
    counters = {"inner_solves": 0, "inner_iterations": 0}

    def solve_inner(a: np.ndarray, prices: np.ndarray, scale: float) -> tuple[InnerResult, np.ndarray, float]:
        if opts["inner"] == "lagrangian":
            res = _lagrangian(a, cfg, cap, prices, opts["max_inner"], opts["inner_tolerance"] * scale)
        else:
            res = _solver_inner(ctx, opts["inner"], a, cfg, cap, prices)
        counters["inner_solves"] += 1
        counters["inner_iterations"] += res.iterations
        polished = improve_greedily(cfg.cost, cfg, cap, res.choice, polish_order) if opts["polish"] else res.choice
        return res, polished, float(cfg.cost[polished].sum())

    def parametric(beta: np.ndarray, u: np.ndarray, prices: np.ndarray) -> tuple[InnerResult, np.ndarray, float]:
        a = u[cfg.job] * (cfg.numerator - beta[cfg.job] * cfg.denominator)
        return solve_inner(a, prices, float(np.abs(beta).sum()))

    def residual(choice: np.ndarray, beta: np.ndarray, u: np.ndarray) -> float:
        numer, denom = cfg.numerator[choice], cfg.denominator[choice]
        return float(max(np.max(np.abs(numer - beta * denom) / np.maximum(numer, 1e-300)),
                         np.max(np.abs(u * denom - 1.0))))

    # step 0: the inner step on the ratios themselves (weights u_ic = 1 / g_ic per column, beta = 0),
    # i.e. the surrogate problem's MC-MKP; its solution gives the first (beta, u)
    start, polished, value = solve_inner(ratio, np.zeros(instance.num_resources),
                                         float(np.minimum.reduceat(ratio, cfg.start[:-1]).sum()))
    best_value, best_choice = value, polished
    beta, u = ratio[start.choice], 1.0 / cfg.denominator[start.choice]
    current, polished, value = parametric(beta, u, start.prices)
    if value < best_value:
        best_value, best_choice = value, polished
    stop, steps = "max_outer", []
    for _ in range(opts["max_outer"]):
        if residual(current.choice, beta, u) <= opts["tolerance"]:
            stop = "converged"
            break
        if ctx.expired():
            stop = "time_limit"
            break
        d_beta = ratio[current.choice] - beta
        d_u = 1.0 / cfg.denominator[current.choice] - u
        for k in range(LINE_SEARCH_STEPS):
            step = opts["damping"] / 2 ** k
            trial_beta, trial_u = beta + step * d_beta, u + step * d_u
            trial, polished, trial_value = parametric(trial_beta, trial_u, current.prices)
            if trial_value < best_value:
                best_value, best_choice = trial_value, polished
            if trial_value < value or residual(trial.choice, trial_beta, trial_u) <= opts["tolerance"]:
                break
        else:
            stop = "no_descent"
            break
        steps.append(step)
        beta, u, current, value = trial_beta, trial_u, trial, trial_value
    gap = current.upper - current.lower
    stats = {"outer_iterations": len(steps), "stop": stop, "residual": residual(current.choice, beta, u),
             "final_inner_gap": gap,
             "final_inner_gap_rel": gap / max(abs(current.upper), abs(current.lower), 1e-12),
             "steps": steps, "columns": cfg.num_columns, **counters, "outer_value": best_value}
    # certification [ours]: the Lagrangian bound on the true costs, then branch and bound over the
    # linearized ratio terms until ALG <= (1 + target_gap) * bound (optsched/problems/smd/README.md#smd-certified-bound)
    cert = certify(ctx, cfg, cap, best_choice, target_gap=opts["target_gap"], prices=start.prices,
                   rounding=opts["node_rounding"])
    stats.update(certify=cert.stop, root_bound=cert.root_bound, bnb_nodes=cert.nodes,
                 bnb_incumbent_updates=cert.incumbent_updates, bnb_rounding_updates=cert.rounding_updates,
                 outer_certified_gap=relative_gap(best_value, cert.bound), **cert.stats)
    timed_out = stop == "time_limit" or cert.stop == "time_limit"
    reason = None
    if timed_out:
        reason = "time limit reached: the bound is certified, the target gap is not"
    elif cert.stop == "lp_failed":
        reason = f"a node LP failed ({cert.stats['lp_failure']}): the bound is certified, the target gap is not"
    return Outcome(solution=cfg.solution(cert.choice), objective=cert.value, bound=cert.bound,
                   status="time_limit" if timed_out else "feasible", reason=reason, stats=stats)
