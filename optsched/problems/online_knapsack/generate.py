"""Seeded request streams for the online knapsack [ours].

Demands are uniform in [eps / 10, eps]; values per unit are log-uniform in [L, U]
(``values="log-uniform"``), uniform (``"uniform"``), or log-uniform sorted increasingly
(``"increasing"``: the shape of the classical worst case for posted-price algorithms, where the
value climbs while the algorithm fills up).
"""

from __future__ import annotations

from optsched.core.errors import InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng

from .instance import OnlineKnapsackInstance

__all__ = ["generate", "PRESETS", "VALUE_SHAPES"]

VALUE_SHAPES = ("log-uniform", "uniform", "increasing")

PRESETS: dict[str, dict] = {
    "tiny": {"requests": 8, "lower": 1.0, "upper": 4.0, "eps": 0.4, "values": "log-uniform"},
    "small": {"requests": 60, "lower": 1.0, "upper": 16.0, "eps": 0.05, "values": "log-uniform"},
    "increasing": {"requests": 60, "lower": 1.0, "upper": 16.0, "eps": 0.05, "values": "increasing"},
    "large": {"requests": 2000, "lower": 1.0, "upper": 64.0, "eps": 0.01, "values": "log-uniform"},
}


def generate(seed: int, *, requests: int = 60, lower: float = 1.0, upper: float = 16.0, eps: float = 0.05,
             values: str = "log-uniform") -> OnlineKnapsackInstance:
    """A random request stream; the same seed and options always give the same stream.

    >>> inst = generate(1, requests=5, eps=0.3)
    >>> inst.num_requests, max(inst.demands) <= 0.3
    (5, True)
    """
    if requests < 1:
        raise InvalidOptionError("online-knapsack", "requests", "must be >= 1", requests)
    if values not in VALUE_SHAPES:
        raise InvalidOptionError("online-knapsack", "values", f"must be one of {', '.join(VALUE_SHAPES)}", values)
    if not (lower > 0 and upper >= lower):
        raise InvalidOptionError("online-knapsack", "upper", "need 0 < lower <= upper", (lower, upper))
    if not 0 < eps <= 1:
        raise InvalidOptionError("online-knapsack", "eps", "must be in (0, 1]", eps)
    rng = make_rng(seed, "online-knapsack", requests, lower, upper, eps, values)
    demands = eps * rng.uniform(0.1, 1.0, requests)
    if values == "uniform":
        unit = rng.uniform(lower, upper, requests)
    else:
        unit = portable.log_uniform(rng, lower, upper, requests)
        if values == "increasing":
            unit.sort()
    unit = unit.clip(lower, upper)  # guard the last ulp of the power against leaving [L, U]
    return OnlineKnapsackInstance(lower=lower, upper=upper, eps=eps, demands=demands.tolist(), values=unit.tolist(),
                                  name=f"gen-{values}-{requests}-U{upper:g}-L{lower:g}-eps{eps:g}-s{seed}",
                                  provenance=f"optsched online-knapsack generator, seed {seed}")
