"""Seeded request streams for ``online-packing`` [ours].

Each request asks for a random non-empty subset of the resources (each resource independently with
probability ``density``, at least one), with demands uniform in [eps / 10, eps] on those;
value densities are log-uniform in [L, U] (``values="log-uniform"``) or the same sorted
increasingly (``"increasing"``: the classical worst-case shape for posted prices).
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng

from .instance import OnlinePackingInstance

__all__ = ["generate", "PRESETS", "VALUE_SHAPES"]

VALUE_SHAPES = ("log-uniform", "increasing")

PRESETS: dict[str, dict] = {
    "tiny": {"requests": 8, "resources": 2, "lower": 1.0, "upper": 4.0, "eps": 0.4},
    "small": {"requests": 40, "resources": 2, "lower": 1.0, "upper": 16.0, "eps": 0.1},
    "three": {"requests": 60, "resources": 3, "lower": 1.0, "upper": 16.0, "eps": 0.1},
    "large": {"requests": 1000, "resources": 4, "lower": 1.0, "upper": 64.0, "eps": 0.02},
}


def generate(seed: int, *, requests: int = 40, resources: int = 2, lower: float = 1.0, upper: float = 16.0,
             eps: float = 0.1, density: float = 0.6, values: str = "log-uniform") -> OnlinePackingInstance:
    """A random stream; the same seed and options always give the same stream.

    >>> inst = generate(1, requests=5, resources=3, eps=0.3)
    >>> inst.num_requests, inst.resources, float(inst.demand_matrix.max()) <= 0.3
    (5, 3, True)
    """
    if requests < 1:
        raise InvalidOptionError("online-packing", "requests", "must be >= 1", requests)
    if resources < 1:
        raise InvalidOptionError("online-packing", "resources", "must be >= 1", resources)
    if values not in VALUE_SHAPES:
        raise InvalidOptionError("online-packing", "values", f"must be one of {', '.join(VALUE_SHAPES)}", values)
    if not (lower > 0 and upper >= lower):
        raise InvalidOptionError("online-packing", "upper", "need 0 < lower <= upper", (lower, upper))
    if not 0 < eps <= 1:
        raise InvalidOptionError("online-packing", "eps", "must be in (0, 1]", eps)
    if not 0 < density <= 1:
        raise InvalidOptionError("online-packing", "density", "must be in (0, 1]", density)
    rng = make_rng(seed, "online-packing", requests, resources, lower, upper, eps, density, values)
    mask = rng.random((requests, resources)) < density
    mask[np.arange(requests), rng.integers(resources, size=requests)] = True
    demands = np.where(mask, eps * rng.uniform(0.1, 1.0, (requests, resources)), 0.0)
    unit = portable.log_uniform(rng, lower, upper, requests).clip(lower, upper)
    if values == "increasing":
        unit.sort()
    return OnlinePackingInstance(resources=resources, lower=lower, upper=upper, eps=eps, demands=demands.tolist(),
                                 values=unit.tolist(),
                                 name=f"gen-{values}-{requests}x{resources}-U{upper:g}-L{lower:g}-eps{eps:g}-s{seed}",
                                 provenance=f"optsched online-packing generator, seed {seed}")
