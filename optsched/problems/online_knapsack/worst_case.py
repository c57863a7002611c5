"""Exact worst cases of utilization-priced policies on equal-demand streams, and the blocking attack [ours].

**Equal demands** (:func:`equal_demand_worst_case`). A posted-price policy whose price ``p(z)``
depends only on the utilization ``z`` (``threshold``, ``fixed-price``, ``greedy``, the bundled
``learned`` policies: no round feature) is attacked exactly by enumerating its stopping point.
With every demand ``delta = 1 / n`` the utilization after ``i`` acceptances is ``u_i`` (the float
sum of ``i`` demands, as the method computes it), so on any stream the algorithm accepts some
``k <= n`` requests, the ``i``-th at price ``p(u_i)``:

* ``ALG >= delta * sum_{i<k} max(L, p(u_i))`` (an accepted value is at least the price and L;
  raising an accepted value raises ALG and OPT by the same amount at most, and OPT >= ALG, so it
  only lowers the ratio);
* every rejected request has value ``< max_{j<=k} p(u_j)`` (rejected on price while the
  utilization was some ``u_j``, ``j <= k``) or, only when ``k = n`` (full), any value ``<= U``;
  so OPT (the best ``n`` values: equal demands make the 0-1 and the fractional knapsack agree)
  is at most ``m_k = min(U, max_{j<=k} p(u_j))`` for ``k < n`` (``U`` for ``k = n``), and only if a
  rejection is possible at all (``m_k > L``; otherwise every request is served: ratio 1).

The bound ``m_k / ALG_k`` is attained in the limit by the witness: the ``k`` values ``max(L, p(u_i))``
(all accepted), with ``n`` requests of value just below ``m_k`` inserted when the utilization is at
the argmax ``u_j`` (``n`` requests at ``U`` after the ``n``-th acceptance). Hence the supremum of
OPT/ALG over all equal-demand streams is ``max_k m_k / ALG_k`` exactly (``inf`` when ``p(0) > L``:
ALG = 0 on a stream just below the first price). ``k`` runs up to the first ``i`` with
``p(u_i) > U`` (from there nothing is ever accepted). ``tests/online_knapsack/test_worst_case.py``
checks the formula against a brute-force enumeration of all streams over a finite value grid.

**Blocking attack** (:func:`blocking_attack`): ``n - 1`` requests of demand ``1/n`` at the
policy's price (accepted), one of a tiny demand ``tau`` at its price (accepted), then ``n`` requests
of demand ``1/n`` at U, none of which fits any more (``1 - (n-1)/n - tau < 1/n``). OPT = U (the
``n`` requests at U fill the resource exactly; no stream does better), ALG is the method's own
run: it loses the last chunk's revenue that the equal-demand attacks leave it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from optsched.core.errors import InvalidOptionError

from .algorithms import CAPACITY, threshold_price
from .instance import OnlineKnapsackInstance

__all__ = ["WorstCase", "price_function", "equal_demand_worst_case", "blocking_attack"]

PROBLEM = "online-knapsack"
#: the witness's flood sits this far (relative) below its price so that the run rejects it; the
#: witness's own ratio is therefore below the supremum by at most this factor
BELOW = 1e-9


@dataclass
class WorstCase:
    """The supremum ``ratio`` (OPT / ALG) and a witness stream attaining it in the limit."""

    ratio: float
    opt: float
    alg: float
    stop: int                      #: acceptances before the flood (k)
    values: list[float] = field(default_factory=list)
    demands: list[float] = field(default_factory=list)
    profile: list[float] = field(default_factory=list)   #: m_k / ALG_k per k

    def instance(self, lower: float, upper: float, name: str = "equal-demand-worst-case") -> OnlineKnapsackInstance:
        return OnlineKnapsackInstance(lower=float(lower), upper=float(upper), eps=max(self.demands),
                                      demands=list(self.demands), values=list(self.values), name=name)

    def to_json(self) -> dict:
        return {"ratio": self.ratio, "opt": self.opt, "alg": self.alg, "stop": self.stop,
                "requests": len(self.values)}


def price_function(method: str, lower: float, upper: float, options: dict | None = None) -> Callable[[float], float]:
    """The price ``p(z)`` of a registered posted-price method whose price depends only on the
    utilization (``threshold``, ``fixed-price``, ``greedy``, ``learned`` without round feature)."""
    if method == "threshold":
        return lambda z: threshold_price(z, lower, upper)
    if method == "fixed-price":
        return lambda z: math.sqrt(lower * upper)
    if method == "greedy":
        return lambda z: float(lower)
    if method == "learned":
        from .learned import policy_from_options

        policy, _ = policy_from_options(lower, upper, options or {})
        if policy.config.round_feature:
            raise InvalidOptionError(PROBLEM, "option weights", "the policy's price depends on the round, not "
                                     "only on the utilization: its equal-demand worst case is not computed here")
        return lambda z: float(policy.price_for(lower, upper, np.array([[z]]), 0)[0, 0])
    raise InvalidOptionError(PROBLEM, "policy", "must be a price function p(z) or one of threshold, fixed-price, "
                             "greedy, learned", method)


def _copies(demand: float) -> int:
    n = round(1 / demand) if demand > 0 else 0
    if not (0 < demand <= 1 and n >= 1 and math.isclose(n * demand, 1.0, rel_tol=1e-12)):
        raise InvalidOptionError(PROBLEM, "demand", "must be 1/n for an integer n >= 1", demand)
    return n


def _price(policy, lower, upper, options):
    return policy if callable(policy) else price_function(policy, lower, upper, options)


def equal_demand_worst_case(policy, lower: float, upper: float, demand: float, *,
                            options: dict | None = None) -> WorstCase:
    """The exact worst case (supremum of OPT / ALG) of a utilization-priced policy over all streams
    whose demands all equal ``demand = 1/n`` (module docstring); ``policy`` is a price function
    ``p(z)`` or a method name (:func:`price_function`)."""
    if not (0 < lower <= upper):
        raise InvalidOptionError(PROBLEM, "upper", "need 0 < lower <= upper", (lower, upper))
    n = _copies(demand)
    price = _price(policy, lower, upper, options)
    # the utilizations u_0..u_n as post_prices accumulates them, and the prices posted there
    util = [0.0]
    for _ in range(n):
        util.append(util[-1] + demand)
    if util[n] > CAPACITY:  # pragma: no cover - n * (1/n) in floats never exceeds 1 for these n
        raise InvalidOptionError(PROBLEM, "demand", "n requests of this demand do not fit in floats", demand)
    prices = [float(price(u)) for u in util]
    alg, top, best = 0.0, -math.inf, None
    profile = []
    earned = []                          # delta * max(L, p(u_i)), i < k
    for k in range(n + 1):
        top = max(top, prices[k])
        m = float(upper) if k == n else min(float(upper), top)
        alg = math.fsum(earned)
        if m > lower or (k == n and upper > lower):
            r = m / alg if alg > 0 else math.inf
        else:
            r = 1.0                      # nothing can be rejected: every request is served
        profile.append(r)
        if best is None or r > best[0]:
            best = (r, k, m, alg)
        if k == n or prices[k] > upper:  # full, or nothing is accepted from here on
            break
        earned.append(demand * max(float(lower), prices[k]))
    r, k, m, alg = best
    accepted = [max(float(lower), prices[i]) for i in range(k)]
    if r == 1.0 and k < n:
        return WorstCase(1.0, alg, alg, k, accepted or [float(lower)], [demand] * max(1, k), profile)
    flood_value = float(upper) if k == n else max(float(lower), m * (1 - BELOW))
    j = k if k == n else max(i for i in range(k + 1) if min(float(upper), prices[i]) >= m)
    values = accepted[:j] + [flood_value] * n + accepted[j:]
    return WorstCase(r, m, alg, k, values, [demand] * len(values), profile)


def blocking_attack(method: str, lower: float, upper: float, *, copies: int = 64, tiny: float = 1 / 4096,
                    options: dict | None = None) -> dict:
    """The blocking attack (module docstring) on a registered method: the values follow its price
    (``max(L, p(z))``, capped at U), ALG is ``optsched.solve`` of the method on the stream, OPT = U.

    Returns ``{"ratio", "opt", "alg", "instance"}``.
    """
    from optsched.core.solving import solve

    n = int(copies)
    if n < 1:
        raise InvalidOptionError(PROBLEM, "copies", "must be >= 1", copies)
    delta = 1.0 / n
    if not 0 < tiny < delta:
        raise InvalidOptionError(PROBLEM, "tiny", f"must be in (0, {delta:g})", tiny)
    price = price_function(method, lower, upper, options)
    demands = [delta] * (n - 1) + [tiny]
    values, z = [], 0.0
    for d in demands:
        values.append(min(float(upper), max(float(lower), float(price(z)))))
        z += d
    demands += [delta] * n
    values += [float(upper)] * n
    inst = OnlineKnapsackInstance(lower=float(lower), upper=float(upper), eps=delta, demands=demands, values=values,
                                  name=f"blocking-{method}-n{n}")
    alg = solve(inst, method, options=options or {}).objective
    opt = float(upper)  # the n requests at U fill capacity 1 exactly, and no value exceeds U
    return {"ratio": opt / alg if alg > 0 else math.inf, "opt": opt, "alg": alg, "instance": inst}
