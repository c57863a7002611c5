"""Seeded generators for multidimensional knapsack instances.

``correlated`` follows Chu & Beasley (1998): weights uniform integers in [1, 1000), capacity of
row k = tightness * sum_j weights[k][j], profit_j = sum_k weights[k][j] / m + 500 u_j (u_j uniform
in [0, 1)), rounded to integers. ``uncorrelated`` draws profits uniformly in [1, 1000).
Presets name sizes used by tests, benchmarks and the CLI.
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng

from .instance import MknapInstance

__all__ = ["generate", "PRESETS"]

PRESETS: dict[str, dict] = {
    "tiny": {"items": 8, "rows": 2, "tightness": 0.5, "correlated": False},
    "small": {"items": 25, "rows": 3, "tightness": 0.5, "correlated": True},
    "chu-beasley": {"items": 100, "rows": 5, "tightness": 0.25, "correlated": True},
    # hard for exact branch and bound (tested: HiGHS does not close it within minutes)
    "hard": {"items": 300, "rows": 5, "tightness": 0.5, "correlated": True},
}


def generate(seed: int, *, items: int = 25, rows: int = 3, tightness: float = 0.5,
             correlated: bool = True) -> MknapInstance:
    """A random instance; the same seed and options always give the same instance.

    >>> generate(1, items=4, rows=1).num_items
    4
    """
    if items < 1:
        raise InvalidOptionError("mknap", "items", "must be >= 1", items)
    if rows < 1:
        raise InvalidOptionError("mknap", "rows", "must be >= 1", rows)
    if not 0 < tightness <= 1:
        raise InvalidOptionError("mknap", "tightness", "must be in (0, 1]", tightness)
    rng = make_rng(seed, "mknap", items, rows, tightness, correlated)
    weights = rng.integers(1, 1000, size=(rows, items))
    capacities = np.floor(tightness * weights.sum(axis=1))
    if correlated:
        profits = np.round(weights.sum(axis=0) / rows + 500 * rng.random(items))
    else:
        profits = rng.integers(1, 1000, size=items)
    return MknapInstance(profits=profits.tolist(), weights=weights.tolist(), capacities=capacities.tolist(),
                         name=f"gen-{'cor' if correlated else 'unc'}-{items}x{rows}-t{tightness}-s{seed}",
                         provenance=f"optsched mknap generator, seed {seed}")
