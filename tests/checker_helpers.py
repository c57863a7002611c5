"""Helpers for the checker-constraint tests: a hand-built solution that violates exactly one
constraint must be rejected with that constraint's message and no other."""

from __future__ import annotations

import re

import optsched


def make(problem: str, data: dict):
    """An instance of ``problem`` from a hand-written JSON object (validated)."""
    cls = optsched.get_problem(problem).instance_type
    return cls.from_json({"format_version": 1, "problem": problem, **data})


def assert_feasible(problem: str, instance, solution):
    report = optsched.get_problem(problem).check(instance, solution)
    assert report.feasible, report.violations
    assert report.violations == []
    return report


def assert_only(problem: str, instance, solution, pattern: str, count: int | None = 1):
    """Infeasible, and every violation matches ``pattern`` (``count`` of them when given)."""
    report = optsched.get_problem(problem).check(instance, solution)
    assert not report.feasible, f"accepted a solution violating {pattern!r}"
    assert report.violations, "infeasible without a violation message"
    for v in report.violations:
        assert re.search(pattern, v), f"unexpected violation {v!r} (expected only {pattern!r})"
    if count is not None:
        assert len(report.violations) == count, report.violations
    return report
