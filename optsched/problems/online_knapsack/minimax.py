"""The optimal competitive ratio of online pricing, computed by an LP over a value grid [ours].

Problem
-------
One resource of capacity 1, infinitesimal demands, unit values in [L, U]. The classical worst
case of an online algorithm is a stream whose value climbs through a grid ``v_1 < ... < v_K``
(geometric from L to U), each value offered in unlimited infinitesimal supply, and which may stop
after any step j; OPT of the prefix ending at ``v_j`` is ``v_j`` (fill the capacity at the top
value). A deterministic online algorithm facing this family is described by ``x_j``, the capacity
it sells while the value is ``v_j``. The best guaranteed fraction of OPT is the LP

    maximize r  s.t.  sum_j x_j <= 1,   sum_{i <= j} v_i x_i >= r v_j  (j = 1..K),   x >= 0,

and ``1 / r*`` is the optimal competitive ratio against this adversary family. As the grid refines
it tends to ``1 + ln(U / L)``, the ratio of Zhou, Chakrabarty & Lukose (2008), from below (a grid
adversary is weaker than a continuous one).

Formulation [ours; the dense form, measured first, has K^2 / 2 prefix nonzeros]: cumulative welfare
variables ``R_j = R_{j-1} + v_j x_j`` make the prefix rows ``R_j >= r v_j`` two nonzeros each,
so the model has 2K + 1 columns and 6K - 1 nonzeros (the dense prefix rows have K^2 / 2).

The same grid certifies a *posted-price policy* exactly (:func:`policy_grid_ratio`): a policy with
a nondecreasing price ``psi(z)`` sells, while the value is ``v_j``, the capacity up to
``z_j = sup{z : psi(z) <= v_j}``; its ratio on the grid family is ``max_j v_j / W_j``.

Complexity: one LP with O(K) rows and nonzeros.

Reference: Y. Zhou, D. Chakrabarty, R. Lukose, "Budget constrained bidding in keyword auctions
and online knapsack problems", WINE 2008 (the ratio 1 + ln(U/L) and its optimality).

Example
-------
>>> r = minimax_ratio(1.0, 16.0, grid=400)
>>> r.status, abs(r.ratio - (1 + math.log(16))) / (1 + math.log(16)) < 0.01
('optimal', True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core.linear import LinearModel, ModelBuilder
from optsched.core.solving import SolveContext

__all__ = ["value_grid", "build_minimax_model", "minimax_ratio", "MinimaxResult", "policy_grid_ratio",
           "minimax_context"]


def value_grid(lower: float, upper: float, grid: int) -> np.ndarray:
    """``grid`` values geometric from L to U (both included)."""
    if not (math.isfinite(lower) and lower > 0):
        raise InvalidOptionError("online-knapsack", "lower", "must be a finite number > 0", lower)
    if not (math.isfinite(upper) and upper > lower):
        raise InvalidOptionError("online-knapsack", "upper", f"must be finite and > lower ({lower:g})", upper)
    if int(grid) < 2:
        raise InvalidOptionError("online-knapsack", "grid", "must be >= 2 values", grid)
    return lower * (upper / lower) ** (np.arange(int(grid)) / (int(grid) - 1))


def build_minimax_model(lower: float, upper: float, grid: int) -> LinearModel:
    """The sparse minimax LP (columns ``r``, ``x[K]``, ``R[K]``; 6K - 1 nonzeros)."""
    v = value_grid(lower, upper, grid)
    k = v.shape[0]
    b = ModelBuilder(f"minimax-pricing-U{upper / lower:g}-K{k}", sense="max")
    r = b.add_block("r", 1, cost=1.0)
    x = b.add_block("x", k)
    cum = b.add_block("R", k)
    b.add_rows("capacity", np.ones((1, k)), upper=[1.0], cols=[x])
    # R_j - R_{j-1} - v_j x_j = 0  (R_0 = 0)
    rows = np.concatenate([np.arange(k), np.arange(1, k), np.arange(k)])
    cols = np.concatenate([cum, cum[:-1], x])
    vals = np.concatenate([np.ones(k), -np.ones(k - 1), -v])
    b.add_sparse_rows("cumulative", rows, cols, vals, k, lower=0.0, upper=0.0)
    # R_j - v_j r >= 0
    rows = np.concatenate([np.arange(k), np.arange(k)])
    cols = np.concatenate([cum, np.full(k, r[0])])
    vals = np.concatenate([np.ones(k), -v])
    b.add_sparse_rows("prefix", rows, cols, vals, k, lower=0.0)
    return b.build()


@dataclass
class MinimaxResult:
    """``ratio = 1 / r*`` (the optimal competitive ratio on the grid) and the optimal allocation."""

    lower: float
    upper: float
    grid: int
    status: str
    ratio: float | None
    fraction: float | None
    allocation: np.ndarray | None
    backend: str
    wall_s: float
    nonzeros: int
    stats: dict = field(default_factory=dict)

    @property
    def classical(self) -> float:
        """``1 + ln(U / L)``."""
        return 1.0 + math.log(self.upper / self.lower)


def minimax_context(backend: str | None = None, time_limit: float | None = None) -> SolveContext:
    """A solve context for :func:`minimax_ratio` outside :func:`optsched.solve` (the back-end
    and time budget are the context's, as for every exact model)."""
    from optsched.core.backends import SolverSettings, get_backend
    from optsched.core.registry import get_problem

    problem = get_problem("online-knapsack")
    return SolveContext(problem, problem.get_method("lp"), get_backend(backend).name,
                        SolverSettings(time_limit=time_limit))


def minimax_ratio(lower: float, upper: float, grid: int = 2000, ctx: SolveContext | None = None) -> MinimaxResult:
    """Solve the minimax LP on ``grid`` geometric values; ``ratio`` is ``1 / r*``.

    A limit never becomes ``optimal``: on ``time_limit`` the ratio is None.
    """
    ctx = ctx or minimax_context()
    model = build_minimax_model(lower, upper, grid)
    start = time.perf_counter()
    sol = ctx.solve_model(model)
    wall = time.perf_counter() - start
    ok = sol.status == "optimal" and sol.objective is not None and sol.objective > 0
    return MinimaxResult(lower=lower, upper=upper, grid=int(grid), status=sol.status,
                         ratio=1.0 / sol.objective if ok else None, fraction=sol.objective if ok else None,
                         allocation=model.block_values(sol.x, "x") if (ok and sol.x is not None) else None,
                         backend=sol.backend, wall_s=wall, nonzeros=int(model.matrix.nnz),
                         stats={"solver_run_time": sol.run_time, "solver_message": sol.message})


def policy_grid_ratio(price: Callable[[np.ndarray], np.ndarray], lower: float, upper: float, grid: int = 2000,
                      resolution: int = 20001) -> float:
    """The exact ratio of a posted-price policy on the grid family (infinitesimal demands).

    ``price(z)`` maps utilizations (array) to prices; the policy is evaluated on ``resolution``
    utilization points, so it is treated as piecewise constant on steps of ``1 / (resolution - 1)``
    (the price at the start of each step); a non-monotone price is handled by selling greedily in
    utilization order (while the value is ``v_j`` the policy sells until the first step whose price
    exceeds ``v_j``). Returns ``max_j v_j / W_j`` (``inf`` if it sells nothing at some prefix).

    >>> from optsched.problems.online_knapsack.algorithms import threshold_price
    >>> psi = np.vectorize(lambda z: threshold_price(z, 1.0, 16.0))
    >>> 3.7 < policy_grid_ratio(psi, 1.0, 16.0, grid=400) <= 1 + math.log(16) + 1e-3
    True
    """
    v = value_grid(lower, upper, grid)
    z = np.linspace(0.0, 1.0, resolution)
    p = np.asarray(price(z[:-1]), float)
    step = 1.0 / (resolution - 1)
    # the first step whose price exceeds v_j stops the sale (prefix-maximum of the price)
    pmax = np.maximum.accumulate(p)
    sold_steps = np.searchsorted(pmax, v, side="right")  # steps with price <= v_j, in order
    welfare = np.zeros_like(v)
    prev = 0
    total = 0.0
    for j, s in enumerate(sold_steps):
        if s > prev:
            # steps prev..s-1 are sold at value v_j (each request pays >= price, welfare is its value)
            total += v[j] * (s - prev) * step
            prev = s
        welfare[j] = total
    with np.errstate(divide="ignore"):
        ratios = np.where(welfare > 0, v / np.maximum(welfare, 1e-300), np.inf)
    return float(ratios.max())
