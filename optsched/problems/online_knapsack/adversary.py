"""The online-knapsack input class as an adversary encoding (for :mod:`optsched.online.adversary`).

A point of the box ``[0, 1]^(2n + 1)`` decodes to a stream of at most n requests with the
instance class's L, U and eps: coordinate t (< n) gives the demand
``eps * (min_fraction + (1 - min_fraction) * x_t)``, coordinate n + t the unit value
``L * (U / L) ** x_(n+t)`` (log scale), and the last coordinate the stream length
``1 + round(x_(2n) * (n - 1))`` (a prefix: the adversary may stop early, as in the classical
worst case). Families (``family``):

* ``"free"``: the encoding above;
* ``"increasing"``: the same with the values sorted increasingly (the shape of the classical worst
  case of posted-price algorithms);
* ``"staircase"``: a 3-parameter family of that shape -- ``x_0`` sets the top value
  ``v* = L (U/L)^x_0``, ``x_1`` the share of the n requests on a geometric ramp from L to v*
  (the rest arrive at v*), ``x_2`` the demand ``eps (0.01 + 0.99 x_2)`` of every request.

Every decoded stream is a valid instance (``d_t in [min_fraction * eps, eps]``, ``v_t in [L, U]``),
so a ratio found is a ratio attained within the method's input class.

This module implements the adapter protocol structurally and imports nothing from
``optsched.online``.
"""

from __future__ import annotations

import numpy as np

from optsched.core.solving import solve

from .instance import OnlineKnapsackInstance

__all__ = ["KnapsackAdversary", "FAMILIES"]

FAMILIES = ("free", "increasing", "staircase")


class KnapsackAdversary:
    """Adapter: ``method`` (an online method of ``online-knapsack``) against the ``milp`` optimum.

    >>> a = KnapsackAdversary("threshold", lower=1.0, upper=16.0, eps=0.1, requests=3)
    >>> inst = a.decode(np.array([1.0, 0.5, 0.0, 0.0, 1.0, 0.5, 1.0]))
    >>> inst.demands[0], inst.values[1], inst.num_requests
    (0.1, 16.0, 3)
    """

    sense = "max"
    reference = "OPT"

    def __init__(self, method: str, *, lower: float, upper: float, eps: float, requests: int,
                 family: str = "free", min_fraction: float = 0.01):
        if family not in FAMILIES:
            from optsched.core.errors import InvalidOptionError

            raise InvalidOptionError("online-knapsack", "family", f"must be one of {', '.join(FAMILIES)}", family)
        self.method = method
        self.lower, self.upper, self.eps = float(lower), float(upper), float(eps)
        self.requests, self.family, self.min_fraction = int(requests), family, float(min_fraction)
        # validates L, U and eps through the instance type
        OnlineKnapsackInstance(lower=lower, upper=upper, eps=eps, demands=[eps], values=[lower])

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (3 if self.family == "staircase" else 2 * self.requests + 1)

    def _demand(self, x):
        return np.minimum(self.eps * (self.min_fraction + (1 - self.min_fraction) * x), self.eps)

    def decode(self, x: np.ndarray) -> OnlineKnapsackInstance:
        n = self.requests
        x = np.clip(np.asarray(x, float), 0.0, 1.0)
        if self.family == "staircase":
            top = self.lower * (self.upper / self.lower) ** x[0]
            ramp = int(round(x[1] * n))
            values = np.concatenate([self.lower * (top / self.lower) ** (np.arange(ramp) / max(ramp - 1, 1)),
                                     np.full(n - ramp, top)]).clip(self.lower, self.upper)
            return OnlineKnapsackInstance(lower=self.lower, upper=self.upper, eps=self.eps,
                                          demands=np.full(n, self._demand(x[2])).tolist(), values=values.tolist(),
                                          name=f"adversary-{self.method}")
        length = 1 + int(round(x[2 * n] * (n - 1)))
        demands = self._demand(x[:length])
        values = np.clip(self.lower * (self.upper / self.lower) ** x[n:n + length], self.lower, self.upper)
        if self.family == "increasing":
            values.sort()
        return OnlineKnapsackInstance(lower=self.lower, upper=self.upper, eps=self.eps, demands=demands.tolist(),
                                      values=values.tolist(), name=f"adversary-{self.method}")

    def encode(self, instance: OnlineKnapsackInstance) -> np.ndarray:
        """The point of the encoding that decodes to ``instance`` (the nearest one when the family
        cannot hold it; ``staircase``: its top value, ramp share and mean demand)."""
        logspan = np.log(self.upper / self.lower) if self.upper > self.lower else 1.0
        if self.family == "staircase":
            top = float(np.log(instance.value_array.max() / self.lower) / logspan)
            ramp = float(np.mean(instance.value_array < instance.value_array.max()))
            demand = (instance.demand_array.mean() / self.eps - self.min_fraction) / (1 - self.min_fraction)
            return np.clip(np.array([top, ramp, demand]), 0.0, 1.0)
        n, k = self.requests, min(self.requests, instance.num_requests)
        x = np.full(2 * n + 1, 0.5)
        d = instance.demand_array[:k] / self.eps
        x[:k] = (d - self.min_fraction) / (1 - self.min_fraction)
        if self.upper > self.lower:
            x[n:n + k] = np.log(instance.value_array[:k] / self.lower) / np.log(self.upper / self.lower)
        x[2 * n] = (k - 1) / (n - 1) if n > 1 else 0.0
        return np.clip(x, 0.0, 1.0)

    def evaluate(self, instance: OnlineKnapsackInstance) -> tuple[float, float]:
        opt = solve(instance, "milp")
        if opt.status != "optimal":
            raise RuntimeError(f"adversary: the hindsight milp returned {opt.status} ({opt.reason})")
        return opt.objective, solve(instance, self.method).objective
