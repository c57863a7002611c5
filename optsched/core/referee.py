"""What ``optsched check`` asks of a result record beyond its solution's feasibility.

A result record is a set of claims: a status, an objective, a bound and a gap. ``check`` is a
referee of those claims, so it

* reads the record's fields with their declared types before any arithmetic
  (:func:`validate_result_types`, called by :meth:`optsched.core.result.Result.from_json`): a
  string or a list where a number belongs is invalid input (``InvalidInstanceError`` naming the
  field, CLI exit 2), never a traceback;
* refuses a record computed for another instance (:func:`check_belongs`: its ``instance_sha256``
  is not the instance's; ``InvalidInstanceError`` naming ``instance_sha256``, CLI exit 2), for
  ``check`` and ``plot``, on the command line and in Python;
* rejects a record that contradicts itself (:func:`record_contradictions`; CLI exit 1, like a
  violated constraint): status ``infeasible`` carrying a solution, ``optimal`` with a positive
  gap, a bound that is not finite (a record without a bound says null), an objective better than
  the record's own proven bound, a gap that is not the relative gap of the record's objective and
  bound (an infinite relative gap included: only an infinite gap matches it).

:func:`judge_record` is the whole verdict on a record (its solution by the problem's checker, its
objective against the checker's, its claims), shared by ``optsched check`` and
:func:`optsched.check`.

Exit codes of ``check`` (the one table is in ``docs/cli.md``, "Exit statuses"): 0 the solution is
feasible and every claim of the record holds; 1 a constraint is violated, the record's objective
disagrees with the checker's, or the record contradicts itself; 2 a file is not valid input.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import InvalidInstanceError

__all__ = ["validate_result_types", "record_contradictions", "check_belongs", "judge_record", "RecordVerdict",
           "GAP_TOLERANCE", "ABS_GAP_TOLERANCE"]

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
    if bound is not None and not math.isfinite(bound):
        out.append(f"bound {bound!r} is not finite (a record without a bound says null)")
        bound = None  # no arithmetic with it below: this is the one message about it
    if objective is not None and bound is not None:
        better = objective < bound if sense == "min" else objective > bound
        if better and abs(objective - bound) > objective_tolerance(bound):
            kind = "a lower bound" if sense == "min" else "an upper bound"
            out.append(f"objective {objective!r} is better than the record's own bound {bound!r} "
                       f"(a {'minimization' if sense == 'min' else 'maximization'} bound is {kind})")
    if gap is not None and result.bound is not None and bound is None:
        pass  # the gap of an infinite bound: the bound's message says it
    elif gap is not None:
        expected = relative_gap(objective, bound)
        if expected is None:
            out.append(f"gap {gap!r} given without both an objective and a bound")
        elif not (gap == expected or _gap_close(gap, expected)):
            out.append(f"gap {gap!r} is not |objective - bound| / |objective| = {expected!r}")
    return out


def _gap_close(gap: float, expected: float) -> bool:
    """A stored gap within :data:`GAP_TOLERANCE` of the recomputed one; an infinite gap (objective
    0, bound not 0) is matched only by itself (any slack times infinity would accept every gap)."""
    return math.isfinite(expected) and abs(gap - expected) <= GAP_TOLERANCE * max(1.0, expected)


def check_belongs(result, instance, problem: str) -> None:
    """Raise :class:`InvalidInstanceError` (``problem``, field ``instance_sha256``) unless
    ``result`` was computed for ``instance``: a record that names an instance digest must name
    this instance's (a record without one, written by hand, is taken at its word).

    >>> from optsched.core.result import Result
    >>> class Inst:
    ...     def sha256(self): return "ab" * 32
    >>> check_belongs(Result(problem="p", method="m", fidelity="ours", status="feasible",
    ...                      instance_sha256="cd" * 32), Inst(), "p")
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: p: field 'instance_sha256': the result was computed for another instance (its sha256 cdcdcdcdcdcd..., this instance's abababababab...) (got 'cdcd...')
    """
    claimed = getattr(result, "instance_sha256", None)
    if not claimed:
        return
    actual = instance.sha256()
    if claimed != actual:
        raise InvalidInstanceError(problem, "instance_sha256", f"the result was computed for another instance "
                                   f"(its sha256 {claimed[:12]}..., this instance's {actual[:12]}...)",
                                   claimed[:4] + "...")


class RecordVerdict:
    """The verdict on a result record: ``report`` (the checker's on its solution, None when the
    record carries none), ``contradictions`` (:func:`record_contradictions`), ``reported`` (the
    record's objective) and ``agrees`` (the record's objective is the checker's, within
    :func:`~optsched.core.gaps.objective_tolerance`). ``holds``: feasible and every claim holds."""

    def __init__(self, report, contradictions: list[str], reported: float | None, agrees: bool):
        self.report, self.contradictions, self.reported, self.agrees = report, contradictions, reported, agrees

    @property
    def holds(self) -> bool:
        return bool((self.report is None or self.report.feasible) and self.agrees and not self.contradictions)


def judge_record(result, instance, problem) -> RecordVerdict:
    """Judge ``result`` (a :class:`~optsched.core.result.Result`) as a record of ``instance`` for
    ``problem`` (its :class:`~optsched.core.registry.Problem`): it must be of this problem and this
    instance (typed errors, exit 2), its solution is checked, its objective compared with the
    checker's and its claims with each other. A record without a solution and without a
    contradiction is invalid input: there is nothing to judge."""
    from .gaps import objective_tolerance

    if result.problem != problem.name:
        raise InvalidInstanceError(problem.name, "problem", f"result is for {result.problem!r}", result.problem)
    check_belongs(result, instance, problem.name)
    contradictions = record_contradictions(result, problem.sense)
    if result.solution is None and not contradictions:
        raise InvalidInstanceError(problem.name, "solution", "the result carries no solution to check")
    report = problem.check(instance, result.solution) if result.solution is not None else None
    reported = result.objective
    agrees = bool(reported is None or report is None or report.objective is None
                  or abs(report.objective - reported) <= objective_tolerance(reported))
    return RecordVerdict(report, contradictions, reported, agrees)
