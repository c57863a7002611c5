"""The multidimensional knapsack instance and its checker.

Objective (authoritative, ``optsched/problems/mknap/README.md``): maximize ``sum_j profits[j] x[j]`` subject to
``sum_j weights[k][j] x[j] <= capacities[k]`` for k = 1..m, x binary.

Solution schema: ``{"selected": [j, ...]}``: the chosen item indices (0-based, distinct).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

__all__ = ["MknapInstance", "check", "SOLUTION_SCHEMA", "OBJECTIVE"]

OBJECTIVE = "maximize sum_j profits[j] x[j]  s.t.  sum_j weights[k][j] x[j] <= capacities[k] for all k, x binary"
#: the objective's unit, printed after its value by ``optsched solve`` (profit has no unit)
OBJECTIVE_UNIT = "(unitless)"
SOLUTION_SCHEMA = '{"selected": [item index, ...]}  (0-based, distinct)'


@dataclass(frozen=True)
class MknapInstance(Instance):
    """A 0-1 multidimensional knapsack: n items, m capacity rows.

    ``reference_value`` is an externally known value with its ``provenance`` (for OR-Library
    files: the best known solution value, not a proven optimum).
    """

    problem = "mknap"
    profits: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    capacities: tuple[float, ...]
    name: str = ""
    reference_value: float | None = None
    provenance: str = ""

    def validate(self) -> None:
        n, m = len(self.profits), len(self.capacities)
        self.require(n >= 1, "profits", "must list at least one item", n)
        self.require(m >= 1, "capacities", "must list at least one capacity row", m)
        self.require(len(self.weights) == m, "weights", f"must have one row per capacity ({m})", len(self.weights))
        self.require_shape("weights", self.weights, (m, n))
        self.require_nonnegative("profits", self.profits)
        self.require_nonnegative("weights", self.weights)
        self.require_nonnegative("capacities", self.capacities)

    @property
    def num_items(self) -> int:
        return len(self.profits)

    @property
    def num_rows(self) -> int:
        return len(self.capacities)

    @cached_property
    def profit_array(self) -> np.ndarray:
        return np.asarray(self.profits, float)

    @cached_property
    def weight_matrix(self) -> np.ndarray:
        return np.asarray(self.weights, float).reshape(self.num_rows, self.num_items)

    @cached_property
    def capacity_array(self) -> np.ndarray:
        return np.asarray(self.capacities, float)

    def fits_alone(self) -> np.ndarray:
        """Boolean mask of the items that fit every row on their own."""
        return np.all(self.weight_matrix <= self.capacity_array[:, None], axis=0)


def selection_vector(instance: MknapInstance, selected) -> np.ndarray:
    x = np.zeros(instance.num_items)
    x[list(selected)] = 1.0
    return x


def check(instance: MknapInstance, solution) -> CheckReport:
    """Verify a solution from the instance alone and compute its profit."""
    violations: list[str] = []
    if not isinstance(solution, dict) or set(solution) != {"selected"}:
        return CheckReport(False, None, ['solution must be an object {"selected": [...]}'])
    selected = solution["selected"]
    if not isinstance(selected, list) or not all(isinstance(j, int) and not isinstance(j, bool) for j in selected):
        return CheckReport(False, None, ["selected must be a list of integer item indices"])
    bad = [j for j in selected if not 0 <= j < instance.num_items]
    if bad:
        return CheckReport(False, None, [f"item index {j} out of range 0..{instance.num_items - 1}" for j in bad])
    if len(set(selected)) != len(selected):
        violations.append("an item is selected more than once")
    x = selection_vector(instance, selected)
    load = instance.weight_matrix @ x
    for k in np.flatnonzero(load > instance.capacity_array):
        violations.append(f"row {k}: load {load[k]:g} exceeds capacity {instance.capacity_array[k]:g}")
    objective = float(instance.profit_array @ x)
    return CheckReport(not violations, objective, violations, {"load": load.tolist()})
