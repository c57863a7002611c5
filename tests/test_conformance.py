"""Every registered method of every problem passes the conformance battery on tiny instances.

Each promise is its own named test case (``mknap/greedy::checker_agrees``), in the style of
scikit-learn's ``parametrize_with_checks``: one failure never hides another, and a check that
cannot run is reported as skipped with its reason, never as passed. A new method gets all of
these by being registered (see :mod:`optsched.core.conformance`)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.conformance import CheckSkipped, Harness, method_checks, problem_checks

PROBLEMS = [p for p in optsched.list_problems().values() if p.tiny_instances is not None]

CASES = []
for _p in PROBLEMS:
    CASES += [pytest.param(_p.name, None, name, id=f"{_p.name}::{name}") for name, _ in problem_checks(_p)]
    for _m in _p.methods.values():
        CASES += [pytest.param(_p.name, _m.name, name, id=f"{_p.name}/{_m.name}::{name}")
                  for name, _ in method_checks(_p, _m)]

_HARNESSES: dict[str, Harness] = {}


def _harness(problem) -> Harness:
    """One harness per problem for the whole session, so the checks of a method share its runs."""
    if problem.name not in _HARNESSES:
        _HARNESSES[problem.name] = Harness(problem)
    return _HARNESSES[problem.name]


@pytest.mark.parametrize("problem_name,method_name,check", CASES)
def test_conformance(problem_name, method_name, check):
    problem = optsched.get_problem(problem_name)
    if method_name is None:
        checks = dict(problem_checks(problem))
    else:
        checks = dict(method_checks(problem, problem.methods[method_name]))
    try:
        checks[check](_harness(problem))
    except CheckSkipped as exc:
        pytest.skip(str(exc))


def test_every_problem_has_tiny_instances():
    missing = [p.name for p in optsched.list_problems().values() if p.tiny_instances is None]
    assert not missing, f"problems without tiny_instances (conformance cannot run): {missing}"
