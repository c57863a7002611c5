"""The online knapsack (online pricing) instance and its checker (docs ``optsched/problems/online_knapsack/README.md``).

optsched's formulation [ours, after the abstract of Du, Huang & Wu, arXiv 2111.10285]: one
resource of capacity 1; requests t = 0..n-1 arrive in order, request t with demand
``demands[t]`` in (0, eps] and value per unit ``values[t]`` in [L, U] (``lower``, ``upper``).

Objective (authoritative): maximize the welfare ``sum_t values[t] * demands[t] * x[t]`` subject to
``sum_t demands[t] * x[t] <= 1``, x binary (x[t] = 1 iff request t is served).

Solution schema: ``{"accepted": [t, ...]}``: the served requests (0-based, distinct). The checker
verifies capacity from the instance alone, up to ``CAPACITY_TOL`` (float summation order only).
It does not check *how* an online method decided (prices are method-specific and go to the
result's ``stats``); any capacity-feasible set is a valid solution of the hindsight problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.knapsack import parse_accepted
from optsched.core.registry import CheckReport

__all__ = ["OnlineKnapsackInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "CAPACITY", "CAPACITY_TOL"]

OBJECTIVE = ("maximize sum_t values[t] * demands[t] * x[t]  s.t.  sum_t demands[t] * x[t] <= 1, "
             "x binary (welfare of the served requests)")
#: the objective's unit, printed after its value by ``optsched solve`` (welfare: values times demands, no
#: unit)
OBJECTIVE_UNIT = "(unitless)"
SOLUTION_SCHEMA = '{"accepted": [request index, ...]}  (0-based, distinct)'

#: capacity of the single resource (normalized to 1: demands are fractions of it)
CAPACITY = 1.0
#: absolute slack on the capacity row: sums of at most ~1e5 floats in (0, 1] differ by far less
#: than 1e-9 between summation orders, so this admits only rounding, not a real overload
CAPACITY_TOL = 1e-9


@dataclass(frozen=True)
class OnlineKnapsackInstance(Instance):
    """A request stream for one resource of capacity 1.

    ``lower``/``upper`` are L and U (0 < L <= U), ``eps`` the largest demand (0 < eps <= 1);
    ``demands[t]`` in (0, eps] and ``values[t]`` (per unit of demand) in [L, U].

    >>> inst = OnlineKnapsackInstance(lower=1, upper=4, eps=0.5, demands=[0.5, 0.5, 0.25],
    ...                               values=[1, 4, 2])
    >>> inst.num_requests, inst.welfare_weights.tolist()
    (3, [0.5, 2.0, 0.5])
    >>> OnlineKnapsackInstance(lower=1, upper=4, eps=0.5, demands=[0.5], values=[5])
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: online-knapsack: field 'values[0]': must be in [L, U] = [1, 4] (got 5.0)
    """

    problem = "online-knapsack"
    lower: float
    upper: float
    eps: float
    demands: tuple[float, ...]
    values: tuple[float, ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(math.isfinite(self.lower) and self.lower > 0, "lower", "must be a finite number > 0", self.lower)
        self.require(math.isfinite(self.upper) and self.upper >= self.lower, "upper",
                     f"must be finite and >= lower ({self.lower:g})", self.upper)
        self.require(0 < self.eps <= 1, "eps", "must be in (0, 1] (the capacity is 1)", self.eps)
        self.require(len(self.demands) >= 1, "demands", "the request stream is empty: must list at least one request",
                     len(self.demands))
        self.require(len(self.values) == len(self.demands), "values",
                     f"must have one value per request ({len(self.demands)})", len(self.values))
        for t, d in enumerate(self.demands):
            self.require(0 < d <= self.eps, f"demands[{t}]", f"must be in (0, eps] = (0, {self.eps:g}]", d)
        for t, v in enumerate(self.values):
            self.require(self.lower <= v <= self.upper, f"values[{t}]",
                         f"must be in [L, U] = [{self.lower:g}, {self.upper:g}]", v)

    @property
    def num_requests(self) -> int:
        return len(self.demands)

    @cached_property
    def demand_array(self) -> np.ndarray:
        return np.asarray(self.demands, float)

    @cached_property
    def value_array(self) -> np.ndarray:
        return np.asarray(self.values, float)

    @cached_property
    def welfare_weights(self) -> np.ndarray:
        """``values[t] * demands[t]``: the welfare of serving request t."""
        return self.value_array * self.demand_array


def check(instance: OnlineKnapsackInstance, solution) -> CheckReport:
    """Verify a served set from the instance alone and compute its welfare."""
    accepted, violations = parse_accepted(solution, instance.num_requests)
    if accepted is None:
        return CheckReport(False, None, violations)
    load = math.fsum(instance.demands[t] for t in accepted)
    if load > CAPACITY + CAPACITY_TOL:
        violations.append(f"load {load!r} exceeds the capacity 1")
    welfare = math.fsum(instance.values[t] * instance.demands[t] for t in set(accepted))
    return CheckReport(not violations, welfare, violations, {"load": load})
