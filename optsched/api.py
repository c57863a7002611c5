"""Convenience functions over the registry: generate, load, check (the command line's verbs in
Python, with the same validation and typed errors).

>>> import optsched, tempfile, os
>>> inst = optsched.generate("mknap", seed=1, preset="tiny")
>>> path = os.path.join(tempfile.mkdtemp(), "i.json")
>>> inst.save(path)
>>> optsched.load_instance(path) == inst          # the file names its problem
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .core.errors import InvalidInstanceError, UnknownNameError
from .core.instance import load_json_file
from .core.generation import generate as _generate
from .core.registry import CheckReport, get_problem
from .core.result import Result

__all__ = ["generate", "load_instance", "load_result", "check"]


def generate(problem: str, seed: int = 0, preset: str | None = None, **options) -> Any:
    """A generated instance of ``problem``: a preset's options overlaid with ``options``
    (:func:`optsched.core.generation.generate`)."""
    return _generate(problem, seed, preset, **options)


def load_instance(path: str | Path, *args, problem: str | None = None) -> Any:
    """Read an instance file (JSON with a format version, or its ``.npz`` sidecar); the problem is
    the one the file names. A file of a format some problem reads directly (recognised by
    content, plain or gzip: ``Problem.direct_formats``) is read by that format's importer. ``problem=`` insists on one (a file of another problem is an error
    naming both); the older form ``load_instance(problem, path)`` still works.

    Raises :class:`InvalidInstanceError` (CLI exit 2) for an unreadable file, a result record, a
    file that names no or an unknown problem, and every invalid field.
    """
    if args:                                   # load_instance(problem, path)
        if len(args) > 1:
            raise TypeError("load_instance(path, *, problem=None) takes one path")
        problem, path = str(path), args[0]
    from .core.jsonfile import head_problem
    from .core.registry import not_an_instance, read_direct
    from .core.sidecar import read_json_data, sidecar_path

    # a file whose head names its problem (as optsched writes them), without a sidecar: through
    # that type's own reader (``Instance.load_fast``; a 10^8-entry instance as arrays, not Python
    # lists); any file it does not take (None back) is read the generic way below
    named = head_problem(path)
    if named is None and not sidecar_path(path).exists():
        inst = read_direct(path, problem)   # a foreign format a problem reads as it is (by content)
        if inst is not None:
            return inst
    if named is not None and problem in (None, named) and not sidecar_path(path).exists():
        try:
            fast = getattr(get_problem(named).instance_type, "load_fast", None)
        except UnknownNameError:
            fast = None   # the generic reader names the unknown problem
        inst = fast(path) if fast is not None else None
        if inst is not None:
            return inst
    data = read_json_data(path, problem or "instance")
    if isinstance(data, dict) and "method" in data and "status" in data:
        raise InvalidInstanceError(problem or str(data.get("problem")), "(file)",
                                   f"{path} is a result record (method {data.get('method')!r}), not an instance")
    named = data.get("problem") if isinstance(data, dict) else None
    if isinstance(data, dict) and "format_version" not in data and not isinstance(named, str):
        raise not_an_instance(path, problem or "instance")
    if problem is None:
        if not isinstance(named, str):
            raise InvalidInstanceError("instance", "problem", f"{path} names no problem; pass problem=")
        problem = named
    elif named is not None and named != problem:
        raise InvalidInstanceError(problem, "problem", f"{path} is an instance of {named!r}", named)
    return get_problem(problem).instance_type.from_json(data)


def load_result(path: str | Path) -> Result:
    return Result.from_json(load_json_file(path, "result"))


def check(instance: Any, solution_or_result: Any) -> CheckReport:
    """Check a solution, or judge a result record, against ``instance``.

    A solution: the problem's checker's report. A :class:`Result`: judged like ``optsched check``
    judges a record (:func:`optsched.core.referee.judge_record`): a record of another problem or
    of another instance (its ``instance_sha256``) raises :class:`InvalidInstanceError` naming the
    field; otherwise the report is feasible only when the solution is feasible, the record's
    objective is the checker's and its claims (status, bound, gap) agree with each other. Each
    failed claim is a violation (``"the record contradicts itself: ..."``,
    ``"the record's objective ... is not the checker's ..."``); ``details`` holds
    ``record_contradictions``, ``reported_objective``, ``objective_agrees`` and
    ``solution_feasible``.
    """
    problem = get_problem(instance.problem)
    if not isinstance(solution_or_result, Result):
        return problem.check(instance, solution_or_result)
    from .core.referee import judge_record

    verdict = judge_record(solution_or_result, instance, problem)
    report = verdict.report
    violations = [f"the record contradicts itself: {c}" for c in verdict.contradictions]
    if not verdict.agrees:
        violations.append(f"the record's objective {verdict.reported!r} is not the checker's {report.objective!r}")
    if report is not None:
        violations += report.violations
    details = dict(report.details) if report is not None else {}
    details.update(record_contradictions=list(verdict.contradictions), reported_objective=verdict.reported,
                   objective_agrees=verdict.agrees, solution_feasible=None if report is None else report.feasible)
    return CheckReport(verdict.holds, report.objective if report is not None else None, violations, details)
