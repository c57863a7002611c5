"""How far apart two values of one objective are: the relative gap of a result and the tolerance
when two computations of one objective are compared. The lowest piece of the result record, so
that the record, the referee, the linear model and the back-ends share it without importing each
other (:mod:`optsched.core.result` and :mod:`optsched.core.solving` re-export both names)."""

from __future__ import annotations

import math

__all__ = ["relative_gap", "objective_tolerance"]


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """HiGHS' relative gap ``|objective - bound| / |objective|`` (None if either is unknown).

    >>> relative_gap(90.0, 100.0)
    0.1111111111111111
    >>> relative_gap(0.0, 0.0)
    0.0
    >>> relative_gap(0.0, 1.0)
    inf
    """
    if objective is None or bound is None:
        return None
    diff = abs(objective - bound)
    if diff == 0:
        return 0.0
    if objective == 0:
        return math.inf
    return diff / abs(objective)


def objective_tolerance(value: float) -> float:
    """Tolerance when comparing two computations of one objective: 1e-6 relative (solver
    feasibility tolerances are 1e-7 relative; sums of float products lose a few ulps each)."""
    return 1e-6 * max(1.0, abs(value))
