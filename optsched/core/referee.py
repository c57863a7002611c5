"""What ``optsched check`` asks of a result record beyond its solution's feasibility.

A result record is a set of claims: a status, an objective, a bound and a gap. ``check`` is a
referee of those claims, so it

* reads the record's fields with their declared types before any arithmetic
  (:func:`validate_result_types`, called by :meth:`optsched.core.result.Result.from_json`): a
  string or a list where a number belongs is invalid input (``InvalidInstanceError`` naming the
  field, CLI exit 2), never a traceback;
* rejects a record that contradicts itself (:func:`record_contradictions`; CLI exit 1, like a
  violated constraint): status ``infeasible`` carrying a solution, ``optimal`` with a positive
  gap, an objective better than the record's own proven bound, a gap that is not the relative
  gap of the record's objective and bound.

Exit codes of ``check`` (the one table is in ``docs/cli.md``, "Exit statuses"): 0 the solution is
feasible and every claim of the record holds; 1 a constraint is violated, the record's objective
disagrees with the checker's, or the record contradicts itself; 2 a file is not valid input.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import InvalidInstanceError

__all__ = ["validate_result_types", "record_contradictions", "GAP_TOLERANCE", "ABS_GAP_TOLERANCE"]

#: slack on a recomputed gap and on an ``optimal`` claim's gap: the gap is a ratio of two numbers
#: the record stores exactly (JSON floats round-trip), so only the solver's own tolerance
#: (``settings.mip_rel_gap``) plus float noise of one division may separate them
GAP_TOLERANCE = 1e-6

#: the absolute gap within which a solver calls a solve optimal (HiGHS' ``mip_abs_gap`` default,
#: 1e-6): an optimal record whose objective is within it of its bound is no contradiction, whatever
#: its relative gap (an objective of 0.0035 with a bound 4e-7 away has a relative gap of 1.2e-4)
ABS_GAP_TOLERANCE = 1e-6

_TEXT = ("problem", "method", "fidelity", "status")
_OPTIONAL_TEXT = ("backend", "solver_version", "instance_sha256", "reason")
_NUMBERS = ("objective", "bound", "gap")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def validate_result_types(data: dict) -> None:
    """Raise :class:`InvalidInstanceError` (problem ``result``, naming the field) unless every
    field of the result record ``data`` has its declared type: text fields are strings;
    ``objective`` a finite number or null; ``bound`` and ``gap`` a number (not NaN; the gap of
    an objective of 0 is infinite) or null, the gap >= 0; ``wall_s`` a finite number >= 0;
    ``seed`` an integer or null; ``settings`` and ``stats`` objects.

    >>> validate_result_types({"problem": "mknap", "method": "milp", "fidelity": "ours",
    ...                        "status": "optimal", "objective": "12"})
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: result: field 'objective': must be a number or null (got '12')
    """
    for key in _TEXT:
        if key in data and not isinstance(data[key], str):
            raise InvalidInstanceError("result", key, "must be a string", data[key])
    for key in _OPTIONAL_TEXT:
        if data.get(key) is not None and not isinstance(data[key], str):
            raise InvalidInstanceError("result", key, "must be a string or null", data[key])
    for key in _NUMBERS:
        value = data.get(key)
        if value is None:
            continue
        if not _is_number(value):
            raise InvalidInstanceError("result", key, "must be a number or null", value)
        if math.isnan(value):
            raise InvalidInstanceError("result", key, "must not be NaN", value)
    if data.get("objective") is not None and not math.isfinite(data["objective"]):
        raise InvalidInstanceError("result", "objective", "must be finite", data["objective"])
    if data.get("gap") is not None and data["gap"] < 0:
        raise InvalidInstanceError("result", "gap", "must be >= 0", data["gap"])
    if "wall_s" in data:
        wall = data["wall_s"]
        if not _is_number(wall) or not math.isfinite(wall) or wall < 0:
            raise InvalidInstanceError("result", "wall_s", "must be a finite number >= 0", wall)
    if data.get("seed") is not None and (not isinstance(data["seed"], int) or isinstance(data["seed"], bool)):
        raise InvalidInstanceError("result", "seed", "must be an integer or null", data["seed"])
    for key in ("settings", "stats"):
        if key in data and not isinstance(data[key], dict):
            raise InvalidInstanceError("result", key, "must be an object", data[key])


def record_contradictions(result, sense: str) -> list[str]:
    """The ways ``result`` (a :class:`~optsched.core.result.Result` of a problem of ``sense``
    ``min`` or ``max``) contradicts itself, as messages naming the fields (empty: none).

    >>> from optsched.core.result import Result
    >>> r = Result(problem="p", method="m", fidelity="ours", status="optimal", objective=10.0,
    ...            bound=5.0, gap=0.5)
    >>> record_contradictions(r, "min")
    ["status 'optimal' with gap 0.5 > 0: an optimal record proves its objective"]
    >>> print(record_contradictions(r, "max")[1])
    objective 10.0 is better than the record's own bound 5.0 (a maximization bound is an upper bound)
    """
    from .gaps import objective_tolerance, relative_gap

    out: list[str] = []
    status, objective, bound, gap = result.status, result.objective, result.bound, result.gap
    if status == "infeasible" and result.solution is not None:
        out.append("status 'infeasible' but the record carries a solution")
    allowed = GAP_TOLERANCE
    rel = (result.settings or {}).get("mip_rel_gap")
    if _is_number(rel) and rel > 0:
        allowed += rel
    within_abs = objective is not None and bound is not None and abs(objective - bound) <= ABS_GAP_TOLERANCE
    if status == "optimal" and gap is not None and gap > allowed and not within_abs:
        out.append(f"status 'optimal' with gap {gap!r} > 0: an optimal record proves its objective")
    if objective is not None and bound is not None:
        better = objective < bound if sense == "min" else objective > bound
        if better and abs(objective - bound) > objective_tolerance(bound):
            kind = "a lower bound" if sense == "min" else "an upper bound"
            out.append(f"objective {objective!r} is better than the record's own bound {bound!r} "
                       f"(a {'minimization' if sense == 'min' else 'maximization'} bound is {kind})")
    if gap is not None:
        expected = relative_gap(objective, bound)
        if expected is None:
            out.append(f"gap {gap!r} given without both an objective and a bound")
        elif not (gap == expected or abs(gap - expected) <= GAP_TOLERANCE * max(1.0, expected)):
            out.append(f"gap {gap!r} is not |objective - bound| / |objective| = {expected!r}")
    return out
