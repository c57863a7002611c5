"""The ``online-packing`` input class as an adversary encoding (for :mod:`optsched.online.adversary`) [ours].

A point of ``[0, 1]^(n (m + 1) + 1)`` decodes to a stream of at most n requests with the adapter's
m, L, U and eps: per request m demand coordinates, ``d_i = eps max(0, (x - 0.2) / 0.8)`` (a fifth of
the box gives 0, so the adversary can leave a resource out; a request whose demands all decode to 0
asks ``min_fraction * eps`` of its largest coordinate's resource), one value coordinate
``L (U / L)^x`` (log scale), and the last coordinate the stream length ``1 + round(x (n - 1))``.
``family = "increasing"`` sorts the values increasingly. The reference is the hindsight ``milp``
(ratio OPT / ALG). Every decoded stream is a valid instance.

Implements the adapter protocol structurally; imports nothing from ``optsched.online``.
"""

from __future__ import annotations

import numpy as np

from optsched.core.solving import solve

from .instance import OnlinePackingInstance

__all__ = ["PackingAdversary"]


class PackingAdversary:
    """Adapter: ``method`` of ``online-packing`` against the ``milp`` optimum.

    >>> a = PackingAdversary("greedy", resources=2, lower=1.0, upper=16.0, eps=0.1, requests=2)
    >>> inst = a.decode(np.array([1.0, 0.1, 0.0, 0.0, 0.5, 1.0, 1.0]))
    >>> inst.demands, inst.values
    (((0.1, 0.0), (0.001, 0.0)), (4.0, 16.0))
    """

    sense = "max"
    reference = "OPT"

    def __init__(self, method: str, *, resources: int = 2, lower: float = 1.0, upper: float = 16.0,
                 eps: float = 0.1, requests: int = 20, family: str = "free", min_fraction: float = 0.01):
        if family not in ("free", "increasing"):
            from optsched.core.errors import InvalidOptionError

            raise InvalidOptionError("online-packing", "family", "must be free or increasing", family)
        self.method, self.m = method, int(resources)
        self.lower, self.upper, self.eps = float(lower), float(upper), float(eps)
        self.requests, self.family, self.min_fraction = int(requests), family, float(min_fraction)
        OnlinePackingInstance(resources=self.m, lower=lower, upper=upper, eps=eps, demands=[[eps] * self.m],
                              values=[lower])

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (self.requests * (self.m + 1) + 1)

    def decode(self, x: np.ndarray) -> OnlinePackingInstance:
        n, m = self.requests, self.m
        x = np.clip(np.asarray(x, float), 0.0, 1.0)
        length = 1 + int(round(x[-1] * (n - 1)))
        raw = x[:n * m].reshape(n, m)[:length]
        demands = np.minimum(self.eps * np.maximum(0.0, (raw - 0.2) / 0.8), self.eps)
        empty = demands.sum(axis=1) <= 0
        demands[empty, np.argmax(raw[empty], axis=1)] = self.min_fraction * self.eps
        values = np.clip(self.lower * (self.upper / self.lower) ** x[n * m:n * m + length], self.lower, self.upper)
        if self.family == "increasing":
            values.sort()
        return OnlinePackingInstance(resources=m, lower=self.lower, upper=self.upper, eps=self.eps,
                                     demands=demands.tolist(), values=values.tolist(), name=f"adversary-{self.method}")

    def encode(self, instance: OnlinePackingInstance) -> np.ndarray:
        n, m = self.requests, self.m
        k = min(n, instance.num_requests)
        x = np.full(n * (m + 1) + 1, 0.5)
        d = instance.demand_matrix[:k] / self.eps
        x[:k * m] = np.where(d > 0, 0.2 + 0.8 * d, 0.0).ravel()
        if self.upper > self.lower:
            x[n * m:n * m + k] = np.log(instance.value_array[:k] / self.lower) / np.log(self.upper / self.lower)
        x[-1] = (k - 1) / (n - 1) if n > 1 else 0.0
        return np.clip(x, 0.0, 1.0)

    def evaluate(self, instance: OnlinePackingInstance) -> tuple[float, float]:
        opt = solve(instance, "milp")
        if opt.status != "optimal":
            raise RuntimeError(f"adversary: the hindsight milp returned {opt.status} ({opt.reason})")
        return opt.objective, solve(instance, self.method).objective
