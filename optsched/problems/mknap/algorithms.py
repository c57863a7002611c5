"""Methods for the multidimensional knapsack.

* ``milp``: the 0-1 model on a back-end (exact).
* ``lp``: its LP relaxation (kind ``bound``).
* ``lp-round``: rounded basic LP solution or best single item, ALG >= OPT / (m + 1).
* ``greedy``: profit per aggregate weight (baseline, no guarantee).
* ``brute``: enumeration of every subset (exact, n <= 20; for tests).
"""

from __future__ import annotations


import numpy as np

from optsched.core.errors import SolverError, TimeLimitReached
from optsched.core.knapsack import build_knapsack_model, fractional_indices
from optsched.core.linear import LinearModel
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, model_outcome, relaxation_outcome

from .instance import MknapInstance

__all__ = ["build_model", "milp", "lp_bound", "lp_round", "greedy", "brute", "BRUTE_MAX_ITEMS"]

BRUTE_MAX_ITEMS = 20


def build_model(instance: MknapInstance) -> LinearModel:
    """The 0-1 MKP as a :class:`~optsched.core.linear.LinearModel` (variables ``x``)."""
    return build_knapsack_model(instance.profit_array, instance.weight_matrix, instance.capacity_array,
                                sense="max", name=f"mknap-{instance.name or 'instance'}")


def _decode(x: np.ndarray) -> dict:
    return {"selected": [int(j) for j in np.flatnonzero(np.round(x) > 0.5)]}


def milp(instance: MknapInstance, ctx: SolveContext) -> Outcome:
    """Exact: the 0-1 model on the context's back-end, ``mip_rel_gap = 0`` unless overridden."""
    return model_outcome(ctx, build_model(instance), _decode)


def lp_bound(instance: MknapInstance, ctx: SolveContext) -> Outcome:
    """The LP relaxation value: an upper bound on OPT."""
    return relaxation_outcome(ctx, build_model(instance))


def lp_round(instance: MknapInstance, ctx: SolveContext) -> Outcome:
    """Round a basic optimal LP solution down, or take the best single item, whichever is better.

    Guarantee (classical; proof in ``optsched/problems/mknap/README.md#lp-round-guarantee``): with m rows,
    ``ALG >= LP / (m + 1) >= OPT / (m + 1)``. Items that fit no row on their own are dropped first
    (no feasible solution contains them). A basic solution of the LP has at most m fractional
    items: the method asserts it. Time: one LP solve plus O(n m).

    >>> from optsched.problems.mknap.generate import generate
    >>> import optsched
    >>> r = optsched.solve(generate(3, items=12, rows=2), "lp-round")
    >>> r.status, r.stats["fractional_items"] <= 2
    ('feasible', True)
    """
    fits = instance.fits_alone()
    keep = np.flatnonzero(fits)
    m = instance.num_rows
    stats = {"dropped_items": int((~fits).sum())}
    if keep.size == 0:
        return Outcome(solution={"selected": []}, objective=0.0, bound=0.0, stats={**stats, "fractional_items": 0})
    model = build_knapsack_model(instance.profit_array[keep], instance.weight_matrix[:, keep],
                                 instance.capacity_array, sense="max", name="mknap-lp-round")
    sol = ctx.solve_model(model.relaxed())
    best = keep[int(np.argmax(instance.profit_array[keep]))]
    value_single = float(instance.profit_array[best])
    if sol.status == "time_limit" and sol.x is None:  # the time limit stopped the LP: the best single item
        raise TimeLimitReached(f"lp-round: the time limit stopped the LP relaxation ({sol.backend}: {sol.message})",
                               Outcome(solution={"selected": [int(best)]}, objective=value_single,
                                       stats={**stats, "lp_status": sol.status}))
    if sol.status != "optimal" or sol.x is None:
        raise SolverError(f"lp-round: the LP relaxation did not solve ({sol.backend}: {sol.message})")
    x = sol.x
    frac = fractional_indices(x)
    if frac.size > m:
        raise SolverError(f"lp-round: {frac.size} fractional items in the LP solution, more than m = {m}: "
                          f"the back-end did not return a basic solution")
    rounded = keep[(x >= 0.5) & ~np.isin(np.arange(keep.size), frac)]
    value_rounded = float(instance.profit_array[rounded].sum())
    selected = rounded if value_rounded >= value_single else np.array([best])
    # the rounded-down point lies under an LP-feasible point, so it is feasible up to the LP
    # tolerance; drop the least profitable items in the (never observed) case it is not exactly
    load = instance.weight_matrix[:, selected].sum(axis=1)
    repaired = 0
    order = sorted(selected.tolist(), key=lambda j: instance.profits[j])
    while np.any(load > instance.capacity_array) and order:
        j = order.pop(0)
        load -= instance.weight_matrix[:, j]
        repaired += 1
    chosen = sorted(int(j) for j in order) if repaired else sorted(int(j) for j in selected)
    objective = float(instance.profit_array[chosen].sum()) if chosen else 0.0
    return Outcome(solution={"selected": chosen}, objective=objective, bound=sol.objective,
                   backend=sol.backend, solver_version=sol.solver_version,
                   stats={**stats, "fractional_items": int(frac.size), "lp_value": sol.objective,
                          "rounded_value": value_rounded, "best_single_value": value_single,
                          "repaired_items": repaired})


def greedy(instance: MknapInstance, ctx: SolveContext) -> Outcome:
    """Take items by decreasing profit per aggregate weight while they fit (baseline).

    The aggregate weight of item j is ``sum_k weights[k][j] / capacities[k]`` (each row's use as a
    fraction of its capacity; rows of capacity 0 count items of positive weight there as unusable).
    Ties break by index. No guarantee: greedy can be arbitrarily bad (one tiny efficient item
    blocking a large one). O(n log n + n m).
    """
    w, cap, p = instance.weight_matrix, instance.capacity_array, instance.profit_array
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(w > 0, w / np.where(cap > 0, cap, 1.0)[:, None], 0.0)
        share = np.where((w > 0) & (cap[:, None] == 0), np.inf, share)
        aggregate = share.sum(axis=0)
        efficiency = np.where(aggregate > 0, p / aggregate, np.inf)
    order = sorted(range(instance.num_items), key=lambda j: (-efficiency[j], j))
    load = np.zeros(instance.num_rows)
    chosen = []
    for j in order:
        if np.all(load + w[:, j] <= cap):
            load += w[:, j]
            chosen.append(j)
    return Outcome(solution={"selected": sorted(chosen)}, objective=float(p[chosen].sum()))


def brute(instance: MknapInstance, ctx: SolveContext) -> Outcome:
    """Exact by enumerating all 2^n subsets (n <= 20), vectorized over subsets in chunks."""
    n = instance.num_items
    best_value, best_mask = -1.0, 0
    w, cap, p = instance.weight_matrix, instance.capacity_array, instance.profit_array
    chunk = 1 << min(n, 16)
    bits = 1 << np.arange(n)
    for start in range(0, 1 << n, chunk):
        masks = np.arange(start, min(start + chunk, 1 << n))
        x = ((masks[:, None] & bits) > 0).astype(float)
        feasible = np.all(x @ w.T <= cap, axis=1)
        values = np.where(feasible, x @ p, -1.0)
        i = int(np.argmax(values))
        if values[i] > best_value:
            best_value, best_mask = float(values[i]), int(masks[i])
    chosen = [j for j in range(n) if best_mask >> j & 1]
    return Outcome(solution={"selected": chosen}, objective=best_value, bound=best_value, status="optimal")
