"""The certified adversary (:mod:`optsched.online.certified`) against ``online-knapsack`` methods [ours].

:func:`certify` attacks a registered online method (``threshold``, ``fixed-price``, ``greedy``,
``learned``, or any other) with the staircase (certificate: the found ratio is at least the
minimax LP's optimal ratio of its grid, for *every* deterministic online algorithm) and the tracking
attack, then re-evaluates the worst input found as a real instance: ALG by :func:`optsched.solve`
with the method, OPT by the exact ``milp`` (n <= ``milp_max`` requests; above it, OPT of an
equal-demand stream is the closed form ``delta x`` the sum of its ``1 / delta`` best values, which the
tests check against ``milp``). The run is ``optsched.solve`` on the whole stream; the price probe of
the tracking attack is the method's own price curve for the four posted-price methods (the same
functions the methods call) and a bisection over ``solve`` for any other method.

>>> rep = certify("threshold", 1.0, 4.0, grids=(20,), copies=(8,))
>>> rep["certified"], rep["found"] >= rep["lp_ratio"]
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.solving import solve
from optsched.online.certified import (CertifiedResult, bisection_probe, equal_demand_opt, exact_recheck, grid_lp_ratio,
                                       staircase_attack, tracking_attack)

from .algorithms import threshold_price
from .instance import OnlineKnapsackInstance

__all__ = ["runner", "price_probe", "certify", "instance_of"]


def instance_of(lower: float, upper: float, values, demands, name: str = "certified-adversary") -> OnlineKnapsackInstance:
    """The stream as an instance (``eps`` = its largest demand)."""
    demands = [float(d) for d in demands]
    return OnlineKnapsackInstance(lower=float(lower), upper=float(upper), eps=max(demands), demands=demands,
                                  values=[min(float(upper), max(float(lower), float(v))) for v in values], name=name)


def runner(method: str, lower: float, upper: float, options: dict | None = None):
    """``run(values, demands) -> accepted`` by :func:`optsched.solve` of the method on the stream."""
    def run(values, demands):
        out = np.zeros(len(values), bool)
        if len(values) == 0:
            return out
        res = solve(instance_of(lower, upper, values, demands), method, options=options or {})
        if res.solution is None:
            raise RuntimeError(f"certified adversary: {method} returned no solution ({res.status}: {res.reason})")
        out[list(res.solution["accepted"])] = True
        return out
    return run


def price_probe(method: str, lower: float, upper: float, options: dict | None = None):
    """The method's posted price before the next request (None for a method that does not post one
    this module knows; :func:`certify` then bisects)."""
    options = options or {}

    def z_of(demands, accepted):
        return math.fsum(np.asarray(demands)[np.asarray(accepted, bool)].tolist()) if len(demands) else 0.0

    if method == "threshold":
        return lambda v, d, a, dd: threshold_price(z_of(d, a), lower, upper)
    if method == "fixed-price":
        return lambda v, d, a, dd: math.sqrt(lower * upper)
    if method == "greedy":
        return lambda v, d, a, dd: float(lower)
    if method == "learned":
        from .learned import policy_from_options

        policy, _ = policy_from_options(lower, upper, options)
        return lambda v, d, a, dd: float(policy.price_for(lower, upper, np.array([[z_of(d, a)]]), len(v))[0, 0])
    return None


def _exact(method: str, res: CertifiedResult, options, milp_max: int) -> dict:
    return exact_recheck(instance_of(res.lower, res.upper, res.values, res.demands), method, res, options, milp_max)


def certify(method: str, lower: float, upper: float, *, grids=(200,), copies=(16,), tracking: bool = True,
            options: dict | None = None, milp_max: int = 400) -> dict:
    """Attack ``method`` with every staircase (grid x copies) and the tracking attack (per copies).

    Returns a JSON-able report: ``found`` (worst exact ratio over all attacks, ``inf`` if some input
    leaves ALG = 0 with OPT > 0), ``lp_ratio`` (the largest grid's LP value ``rho_K``),
    ``found_over_lp``, ``certified`` (every staircase reached its grid's ``rho_K``, and its exact
    re-evaluation agrees), ``zero_alg`` (attacks whose worst input has ALG = 0) and one row per attack.
    """
    run = runner(method, lower, upper, options)
    rows = []
    results = [staircase_attack(run, lower, upper, grid=k, copies=n) for k in grids for n in copies]
    if tracking:
        pr = price_probe(method, lower, upper, options) or bisection_probe(run, lower, upper)
        results += [tracking_attack(pr, run, lower, upper, copies=n) for n in copies]
    certified = True
    for res in results:
        exact = _exact(method, res, options, milp_max)
        # the exact re-evaluation must agree with the attack's own accounting (online-ness of the method,
        # the closed-form OPT): 1e-9 relative covers float summation order only
        agree = (exact["ratio"] == res.ratio) or (math.isfinite(res.ratio) and
                                                 abs(exact["ratio"] - res.ratio) <= 1e-9 * res.ratio)
        if res.certified is not None:
            certified = certified and bool(res.certified) and agree
        rows.append({**res.to_json(), "exact_ratio": exact["ratio"], "exact_opt": exact["opt"],
                     "exact_alg": exact["alg"], "opt_by": exact["opt_by"], "agrees": agree})
    found = max(r["exact_ratio"] for r in rows)
    lp = max(grid_lp_ratio(lower, upper, k) for k in grids)
    return {"method": method, "lower": float(lower), "upper": float(upper), "grids": list(grids),
            "copies": list(copies), "found": found, "lp_ratio": lp, "found_over_lp": found / lp,
            "certified": certified, "zero_alg": sum(1 for r in rows if r["zero_alg"]), "attacks": rows}
