"""The online packing (multi-resource online pricing) instance and its checker [ours].

optsched's formulation (after the abstract of Du, Huang & Wu, arXiv 2111.10285, which learns online
resource allocation with several resources): m resources of capacity 1 each; requests t = 0..n-1
arrive in order; request t asks ``demands[t][i]`` in [0, eps] of resource i (at least one positive)
and has a value density ``values[t]`` in [L, U] per unit of total demand, i.e. it is worth
``values[t] * sum_i demands[t][i]`` if served.

Objective (authoritative): maximize ``sum_t values[t] * sum_i demands[t][i] * x[t]`` subject to
``sum_t demands[t][i] * x[t] <= 1`` for every resource i, x binary.

Solution schema: ``{"accepted": [t, ...]}`` (0-based, distinct). The checker verifies every
capacity from the instance alone up to ``CAPACITY_TOL``. With m = 1 this is the online knapsack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.knapsack import parse_accepted
from optsched.core.registry import CheckReport

__all__ = ["OnlinePackingInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "CAPACITY_TOL"]

OBJECTIVE = ("maximize sum_t values[t] * sum_i demands[t][i] * x[t]  s.t.  sum_t demands[t][i] * x[t] <= 1 "
             "for every resource i, x binary (welfare of the served requests)")
#: the objective's unit, printed after its value by ``optsched solve`` (welfare: values times demands, no
#: unit)
OBJECTIVE_UNIT = "(unitless)"
SOLUTION_SCHEMA = '{"accepted": [request index, ...]}  (0-based, distinct)'

#: absolute slack on each capacity row: float summation order only (sums of <= 1e5 numbers in [0, 1])
CAPACITY_TOL = 1e-9


@dataclass(frozen=True)
class OnlinePackingInstance(Instance):
    """A request stream for ``resources`` resources of capacity 1.

    >>> inst = OnlinePackingInstance(resources=2, lower=1, upper=4, eps=0.5,
    ...                              demands=[[0.5, 0.0], [0.25, 0.5]], values=[1, 4])
    >>> inst.num_requests, inst.welfare_weights.tolist()
    (2, [0.5, 3.0])
    >>> OnlinePackingInstance(resources=2, lower=1, upper=4, eps=0.5, demands=[[0.5]], values=[1])
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: online-packing: field 'demands[0]': must list one demand per resource (2) (got 1)
    """

    problem = "online-packing"
    resources: int
    lower: float
    upper: float
    eps: float
    demands: tuple[tuple[float, ...], ...]
    values: tuple[float, ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(self.resources >= 1, "resources", "must be >= 1", self.resources)
        self.require(math.isfinite(self.lower) and self.lower > 0, "lower", "must be a finite number > 0", self.lower)
        self.require(math.isfinite(self.upper) and self.upper >= self.lower, "upper",
                     f"must be finite and >= lower ({self.lower:g})", self.upper)
        self.require(0 < self.eps <= 1, "eps", "must be in (0, 1] (capacities are 1)", self.eps)
        self.require(len(self.demands) >= 1, "demands", "the request stream is empty: must list at least one request",
                     len(self.demands))
        self.require(len(self.values) == len(self.demands), "values",
                     f"must have one value per request ({len(self.demands)})", len(self.values))
        for t, row in enumerate(self.demands):
            self.require(len(row) == self.resources, f"demands[{t}]",
                         f"must list one demand per resource ({self.resources})", len(row))
            for i, d in enumerate(row):
                self.require(0 <= d <= self.eps, f"demands[{t}][{i}]", f"must be in [0, eps] = [0, {self.eps:g}]", d)
            self.require(sum(row) > 0, f"demands[{t}]", "must ask for a positive amount of some resource", row)
        for t, v in enumerate(self.values):
            self.require(self.lower <= v <= self.upper, f"values[{t}]",
                         f"must be in [L, U] = [{self.lower:g}, {self.upper:g}]", v)

    @property
    def num_requests(self) -> int:
        return len(self.demands)

    @cached_property
    def demand_matrix(self) -> np.ndarray:
        """``(n, m)`` demands."""
        return np.asarray(self.demands, float).reshape(len(self.demands), self.resources)

    @cached_property
    def value_array(self) -> np.ndarray:
        return np.asarray(self.values, float)

    @cached_property
    def welfare_weights(self) -> np.ndarray:
        """``values[t] * sum_i demands[t][i]``: the welfare of serving request t."""
        return self.value_array * self.demand_matrix.sum(axis=1)


def check(instance: OnlinePackingInstance, solution) -> CheckReport:
    """Verify a served set from the instance alone and compute its welfare."""
    accepted, violations = parse_accepted(solution, instance.num_requests)
    if accepted is None:
        return CheckReport(False, None, violations)
    loads = [math.fsum(instance.demands[t][i] for t in accepted) for i in range(instance.resources)]
    for i, load in enumerate(loads):
        if load > 1.0 + CAPACITY_TOL:
            violations.append(f"resource {i}: load {load!r} exceeds the capacity 1")
    welfare = math.fsum(instance.values[t] * math.fsum(instance.demands[t]) for t in set(accepted))
    return CheckReport(not violations, welfare, violations, {"loads": loads})
