"""The certified adversary for ``online-packing`` methods, where an LP bound is available [ours].

Where a bound is available: streams whose requests all use **one** resource (``resource``, the
others demand 0) are valid ``online-packing`` inputs, and on them any online packing algorithm is
an online knapsack algorithm for that resource. The staircase of :mod:`optsched.online.certified`
therefore finds, against every deterministic online packing method and any m, an input with
``OPT / ALG >= rho_K``, the minimax LP's optimal ratio on its K-point grid (closed form
:func:`optsched.online.certified.grid_lp_ratio`; theorem and proof in that module). The tracking
attack probes the method by bisection over :func:`optsched.solve` (no price curve is assumed).

Where it is not: for inputs that use several resources at once, optsched computes no LP bound on
the optimal competitive ratio (the one-resource ``rho_K`` is still a valid *lower* bound for every
m, because one-resource streams are a subclass, but nothing says it is attainable for m > 1), so no
found ratio on multi-resource inputs is certified; the search adversary
(:class:`.adversary.PackingAdversary`) reports those, uncertified.

>>> rep = certify("threshold", 2, 1.0, 4.0, grids=(10,), copies=(8,), tracking=False)
>>> rep["certified"], rep["found"] >= rep["lp_ratio"]
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.solving import solve
from optsched.online.certified import (bisection_probe, equal_demand_opt, exact_recheck, grid_lp_ratio, staircase_attack,
                                       tracking_attack)

from .instance import OnlinePackingInstance

__all__ = ["certify", "instance_of", "runner"]


def instance_of(resources: int, lower: float, upper: float, values, demands, resource: int = 0) -> OnlinePackingInstance:
    """A one-resource stream as an ``online-packing`` instance (demand on ``resource`` only)."""
    rows = []
    for d in demands:
        row = [0.0] * resources
        row[resource] = float(d)
        rows.append(row)
    return OnlinePackingInstance(resources=resources, lower=float(lower), upper=float(upper),
                                 eps=max(float(d) for d in demands), demands=rows,
                                 values=[min(float(upper), max(float(lower), float(v))) for v in values],
                                 name="certified-adversary")


def runner(method: str, resources: int, lower: float, upper: float, resource: int = 0, options=None):
    def run(values, demands):
        out = np.zeros(len(values), bool)
        if len(values) == 0:
            return out
        res = solve(instance_of(resources, lower, upper, values, demands, resource), method, options=options or {})
        out[list(res.solution["accepted"])] = True
        return out
    return run


def certify(method: str, resources: int, lower: float, upper: float, *, grids=(200,), copies=(16,),
            tracking: bool = True, resource: int = 0, options=None, milp_max: int = 300) -> dict:
    """The staircase (certified) and tracking attacks on one resource of an m-resource instance;
    the worst input of each re-evaluated exactly (``milp`` up to ``milp_max`` requests, else the
    closed form of an equal-demand stream, :func:`optsched.online.certified.exact_recheck`): one row
    per attack, the worst exact ratio found and the grid LP's optimal ratio."""
    run = runner(method, resources, lower, upper, resource, options)
    results = [staircase_attack(run, lower, upper, grid=k, copies=n) for k in grids for n in copies]
    if tracking:
        probe = bisection_probe(run, lower, upper, steps=20)
        results += [tracking_attack(probe, run, lower, upper, copies=n) for n in copies]
    rows, certified = [], True
    for res in results:
        exact = exact_recheck(instance_of(resources, lower, upper, res.values, res.demands, resource), method, res,
                              options, milp_max)
        opt, alg, ratio, how = exact["opt"], exact["alg"], exact["ratio"], exact["opt_by"]
        # 1e-9 relative: float summation order only
        agree = ratio == res.ratio or (math.isfinite(res.ratio) and abs(ratio - res.ratio) <= 1e-9 * res.ratio)
        if res.certified is not None:
            certified = certified and bool(res.certified) and agree
        rows.append({**res.to_json(), "exact_ratio": ratio, "exact_opt": opt, "exact_alg": alg, "opt_by": how,
                     "agrees": agree})
    found = max(r["exact_ratio"] for r in rows)
    lp = max(grid_lp_ratio(lower, upper, k) for k in grids)
    return {"method": method, "resources": resources, "lower": float(lower), "upper": float(upper),
            "grids": list(grids), "copies": list(copies), "found": found, "lp_ratio": lp,
            "found_over_lp": found / lp, "certified": certified,
            "zero_alg": sum(1 for r in rows if r["zero_alg"]), "attacks": rows}
