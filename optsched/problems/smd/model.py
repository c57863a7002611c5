"""The multiple-choice multidimensional knapsack (MC-MKP) over a job's configuration columns.

The foundation's knapsack builder (:func:`optsched.core.knapsack.build_knapsack_model`) already
has the multiple-choice rows (``groups``, ``exactly_one``); this module adds what the SMD methods
share on top of it: decoding one column per job, and rounding a basic LP solution.

Basic solutions [classical]: the LP has one "exactly one" row per job and |Res| capacity rows,
so a basic solution has at most ``jobs + |Res|`` basic columns (slacks included). Every job has at
least one positive column, hence at most |Res| jobs have two or more: at most |Res| fractional jobs.
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import SolverError, TimeLimitReached
from optsched.core.knapsack import build_knapsack_model, fractional_indices
from optsched.core.linear import LinearModel, ModelSolution

from .configurations import Configurations, improve_greedily, segment_argmin

__all__ = ["build_mcmkp_model", "decode_choice", "round_basic_lp"]


def build_mcmkp_model(costs: np.ndarray, cfg: Configurations, capacities: np.ndarray, name: str) -> LinearModel:
    """``min sum costs[c] x[c]`` s.t. capacity rows and exactly one column per job, x binary."""
    return build_knapsack_model(costs, cfg.demand.T, capacities, sense="min", groups=cfg.job,
                                exactly_one=True, name=name)


def decode_choice(x: np.ndarray, cfg: Configurations) -> np.ndarray:
    """The column of largest value in each job's segment (the chosen one when ``x`` is integral)."""
    return segment_argmin(-np.asarray(x, float), cfg.start, cfg.job)


def round_basic_lp(solve_model, costs: np.ndarray, cfg: Configurations, capacities: np.ndarray, *,
                   fill: bool, name: str) -> tuple[np.ndarray, ModelSolution, np.ndarray]:
    """Solve the MC-MKP LP to a basic optimum and round it.

    Integral jobs keep their column; each fractional job goes to its least-resource column (defer
    when deferrable, else (1, 1)), which uses no more of any resource than its fractional mix, so
    the rounded point is feasible. With ``fill``, the fractional jobs then take, one by one, their
    cheapest column that fits the capacity left (cost never increases). Returns the choice, the LP
    solution and the fractional jobs. Raises :class:`SolverError` when the LP does not solve or is
    not basic (more than |Res| fractional jobs).
    """
    sol: ModelSolution = solve_model(build_mcmkp_model(costs, cfg, capacities, name).relaxed())
    if sol.status == "time_limit" and sol.x is None:
        raise TimeLimitReached(f"{name}: the time limit stopped the MC-MKP LP ({sol.backend}: {sol.message})")
    if sol.status != "optimal" or sol.x is None:
        raise SolverError(f"{name}: the MC-MKP LP did not solve to optimality ({sol.backend}: {sol.status}, "
                          f"{sol.message})")
    fractional_jobs = np.unique(cfg.job[fractional_indices(sol.x)])
    if fractional_jobs.size > capacities.size:
        raise SolverError(f"{name}: {fractional_jobs.size} fractional jobs in the LP solution, more than "
                          f"|Res| = {capacities.size}: the back-end did not return a basic solution")
    choice = decode_choice(sol.x, cfg)
    choice[fractional_jobs] = cfg.smallest[fractional_jobs]
    if fill:
        choice = improve_greedily(costs, cfg, capacities, choice, fractional_jobs)
    return choice, sol, fractional_jobs
