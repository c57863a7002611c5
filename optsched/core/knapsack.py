"""Knapsack machinery shared by the problems that reduce to it.

The 0-1 multidimensional knapsack (MKP) and the multiple-choice multidimensional knapsack
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

__all__ = ["build_knapsack_model", "fractional_indices", "INTEGRALITY_TOL", "parse_accepted", "decode_accepted",
           "solve_with_capacity_repair"]

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


def parse_accepted(solution, num_requests: int) -> tuple[list[int] | None, list[str]]:
    """Read the ``{"accepted": [request index, ...]}`` schema of the online allocation problems.

    Returns ``(accepted, violations)``: ``accepted`` is None when the solution is malformed (then
    ``violations`` says why); a repeated index is a violation but the list is still returned.

    >>> parse_accepted({"accepted": [0, 2, 2]}, 3)
    ([0, 2, 2], ['a request is accepted more than once'])
    >>> parse_accepted({"accepted": [5]}, 3)
    (None, ['request index 5 out of range 0..2'])
    """
    if not isinstance(solution, dict) or set(solution) != {"accepted"}:
        return None, ['solution must be an object {"accepted": [...]}']
    accepted = solution["accepted"]
    if not isinstance(accepted, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in accepted):
        return None, ["accepted must be a list of integer request indices"]
    bad = [t for t in accepted if not 0 <= t < num_requests]
    if bad:
        return None, [f"request index {t} out of range 0..{num_requests - 1}" for t in bad]
    return accepted, (["a request is accepted more than once"] if len(set(accepted)) != len(accepted) else [])


def decode_accepted(x: np.ndarray) -> dict:
    """The ``{"accepted": [...]}`` solution of a 0-1 selection vector."""
    return {"accepted": [int(t) for t in np.flatnonzero(np.round(x) > 0.5)]}


def solve_with_capacity_repair(ctx, build, excess, *, tolerance: float, capacity: float = 1.0, rounds: int = 5):
    """Solve the 0-1 model ``build(capacity)`` through ``ctx``; while the decoded set overloads a
    capacity by more than ``tolerance`` (``excess(solution)``: the largest overload; a solver's
    feasibility tolerance can leave one), re-solve with the capacity lowered by the excess (at
    most ``rounds`` times). A repaired answer is reported ``feasible`` (not ``optimal``) with the
    first solve's bound: the lowered capacity may cut off a set whose load lies within the excess
    of the capacity. ``stats["capacity_tightened"]`` counts the rounds."""
    from .solving import model_outcome

    out = model_outcome(ctx, build(capacity), decode_accepted)
    first_bound, tightened = out.bound, 0
    while out.solution is not None and tightened < rounds:
        over = excess(out.solution)
        if over <= tolerance:
            break
        capacity -= over
        tightened += 1
        out = model_outcome(ctx, build(capacity), decode_accepted)
    if tightened:
        out.bound = first_bound
        if out.status == "optimal":
            out.status = "feasible"
        out.stats["capacity_tightened"] = tightened
    return out
