"""Methods for ``online-packing`` (m resources of capacity 1, welfare objective).

* ``threshold``: per-resource threshold prices ``psi(z_i)`` of the one-resource algorithm
  (Zhou-Chakrabarty-Lukose), a request served iff ``v sum_i d_i >= sum_i psi(z_i) d_i`` [ours:
  a natural extension; no guarantee is registered for m > 1];
* ``learned``: the posted-price policy network trained against an adversary network
  (:mod:`optsched.online.learned`) [reconstruction; empirical];
* ``fixed-price`` (``sqrt(L U)`` per unit of every resource) and ``greedy`` (serve whatever fits):
  baselines without guarantee;
* ``milp`` (the hindsight multi-dimensional 0-1 knapsack, exact), ``lp`` (its relaxation, a bound)
  and ``brute`` (enumeration, n <= 16; for tests).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from optsched.core.knapsack import build_knapsack_model, solve_with_capacity_repair
from optsched.core.linear import LinearModel
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, relaxation_outcome

from .instance import CAPACITY_TOL, OnlinePackingInstance

__all__ = ["post_prices", "threshold_prices", "threshold", "fixed_price", "greedy", "build_model", "milp",
           "lp_bound", "brute", "BRUTE_MAX_REQUESTS", "ROW_SCALE"]

BRUTE_MAX_REQUESTS = 16
#: capacity rows are scaled so that the solver's 1e-6 feasibility tolerance is 1e-12 of a capacity
#: (a capacity row is 1: without the scale the tolerance would be a millionth of it)
ROW_SCALE = 1e6


def post_prices(instance: OnlinePackingInstance, price: Callable[[np.ndarray, int], np.ndarray]) -> Outcome:
    """Run a posted-price policy: before request t the prices ``price(z, t)`` (one per resource,
    z the utilizations) are posted; t is served iff ``v_t sum_i d_ti >= sum_i p_i d_ti`` and it
    fits every resource."""
    d_all = instance.demand_matrix
    z = np.zeros(instance.resources)
    accepted = []
    for t in range(instance.num_requests):
        p = np.asarray(price(z.copy(), t), float)
        d = d_all[t]
        worth = instance.values[t] * d.sum()
        if worth >= float(p @ d) and np.all(z + d <= 1.0):
            accepted.append(t)
            z = z + d
    welfare = math.fsum(instance.welfare_weights[t] for t in accepted)
    return Outcome(solution={"accepted": accepted}, objective=welfare,
                   stats={"utilization": z.tolist(), "served": len(accepted)})


def threshold_prices(z: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """``psi(z_i) = max(L, (L / e) exp(c z_i))``, ``c = 1 + ln(U / L)``, per resource."""
    c = 1.0 + math.log(upper / lower)
    return np.maximum(lower, lower / math.e * np.exp(c * np.asarray(z, float)))


def threshold(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Per-resource threshold pricing [ours; no guarantee for m > 1]. O(n m).

    >>> import optsched
    >>> r = optsched.solve(optsched.generate("online-packing", seed=0, preset="small"), "threshold")
    >>> r.status
    'feasible'
    """
    out = post_prices(instance, lambda z, t: threshold_prices(z, instance.lower, instance.upper))
    out.status = "feasible"
    return out


def fixed_price(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Post ``sqrt(L U)`` per unit of every resource (baseline, no guarantee; O(n m))."""
    p = np.full(instance.resources, math.sqrt(instance.lower * instance.upper))
    out = post_prices(instance, lambda z, t: p)
    out.status = "feasible"
    return out


def greedy(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Serve every request that fits (baseline, no guarantee; O(n m))."""
    p = np.full(instance.resources, instance.lower)
    out = post_prices(instance, lambda z, t: p)
    out.status = "feasible"
    return out


def build_model(instance: OnlinePackingInstance, capacity: float = 1.0) -> LinearModel:
    """The hindsight multi-dimensional 0-1 knapsack (capacity rows scaled by ``ROW_SCALE``)."""
    return build_knapsack_model(instance.welfare_weights, ROW_SCALE * instance.demand_matrix.T,
                                np.full(instance.resources, ROW_SCALE * capacity), sense="max",
                                name=f"online-packing-{instance.name or 'hindsight'}")


def milp(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Exact hindsight optimum on the context's back-end (mip_rel_gap = 0); the checker recomputes
    the welfare. Should the decoded set overload a resource beyond ``CAPACITY_TOL`` (solver
    tolerance), it is re-solved with the capacity lowered by the excess and reported ``feasible``
    with the first solve's bound (:func:`optsched.core.knapsack.solve_with_capacity_repair`)."""
    return solve_with_capacity_repair(
        ctx, lambda capacity: build_model(instance, capacity),
        lambda sol: float(instance.demand_matrix[sol["accepted"]].sum(axis=0).max(initial=0.0)) - 1.0,
        tolerance=CAPACITY_TOL)


def lp_bound(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """The LP relaxation: an upper bound on OPT."""
    return relaxation_outcome(ctx, build_model(instance))


def brute(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Exact by enumerating all 2^n subsets (n <= 16); feasibility from the demand matrix directly."""
    n = instance.num_requests
    masks = np.arange(1 << n)
    x = ((masks[:, None] >> np.arange(n)) & 1).astype(float)
    loads = x @ instance.demand_matrix
    feasible = np.all(loads <= 1.0 + CAPACITY_TOL, axis=1)
    welfare = np.where(feasible, x @ instance.welfare_weights, -1.0)
    best = int(np.argmax(welfare))
    accepted = [t for t in range(n) if best >> t & 1]
    value = math.fsum(instance.welfare_weights[t] for t in accepted)
    return Outcome(solution={"accepted": accepted}, objective=value, bound=value, status="optimal")
