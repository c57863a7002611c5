"""Knapsack machinery shared by the problems that reduce to it.

The 0-1 multidimensional knapsack (``mknap``) and the multiple-choice multidimensional knapsack
(MC-MKP: pick exactly or at most one item per group, e.g. one configuration per job) share one
model builder and the helpers that round a basic LP solution.

>>> m = build_knapsack_model([3, 2, 4], [[1, 1, 2]], [2], sense="max")
>>> m.num_cols, m.num_rows
(3, 1)
"""

from __future__ import annotations

from typing import Literal, Sequence

import numpy as np
import scipy.sparse as sp

from .linear import LinearModel, ModelBuilder

__all__ = ["build_knapsack_model", "fractional_indices", "INTEGRALITY_TOL"]

#: distance from an integer below which an LP value counts as integral: well above HiGHS'
#: primal feasibility tolerance (1e-7) scaled by the largest coefficient of the benchmark data,
#: and far below any fraction a basic solution of data with integral coefficients <= 1e4 produces
INTEGRALITY_TOL = 1e-6


def build_knapsack_model(values: Sequence[float], weights, capacities: Sequence[float], *,
                         sense: Literal["min", "max"] = "max", groups: Sequence[int] | None = None,
                         exactly_one: bool = False, name: str = "knapsack") -> LinearModel:
    """``sense sum_j values[j] x[j]`` s.t. ``weights @ x <= capacities``, ``x`` binary.

    With ``groups`` (group id per item, 0..G-1) each group gets a row ``sum_{j in g} x[j] = 1``
    (``exactly_one``) or ``<= 1``: the multiple-choice case. ``weights`` may be dense or sparse.
    """
    values = np.asarray(values, float)
    n = values.shape[0]
    b = ModelBuilder(name, sense)
    x = b.add_block("x", n, upper=1.0, integer=True, cost=values)
    w = weights if sp.issparse(weights) else np.asarray(weights, float).reshape(-1, n)
    if w.shape[0]:
        b.add_rows("capacity", w, upper=np.asarray(capacities, float), cols=[x])
    if groups is not None:
        g = np.asarray(groups, int)
        num_groups = int(g.max()) + 1 if n else 0
        b.add_sparse_rows("choice", g, x, np.ones(n), num_groups, lower=1.0 if exactly_one else -np.inf, upper=1.0)
    return b.build()


def fractional_indices(x: np.ndarray, tol: float = INTEGRALITY_TOL) -> np.ndarray:
    """Indices of the entries of ``x`` that are not within ``tol`` of an integer."""
    x = np.asarray(x, float)
    return np.flatnonzero(np.abs(x - np.round(x)) > tol)
