"""Every registered method of every problem passes the conformance battery on tiny instances.

Each promise is its own named test case (``<problem>/<method>::checker_agrees``), in the style of
scikit-learn's ``parametrize_with_checks``: one failure never hides another, and a check that
cannot run is reported as skipped with its reason, never as passed. A new method gets all of
these by being registered (see :mod:`optsched.core.conformance`). The ids come from
:func:`~optsched.core.conformance.battery_cases`, the same as ``run_battery``'s, and each test runs
its check alone: any exception (an assertion, or a crash of the method, the checker or the
generator) fails that one test, naming problem, method and check."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.conformance import CheckSkipped, Harness, battery_cases

PROBLEMS = [p for p in optsched.core.registry.problems().values() if p.tiny_instances is not None]

CASES = [pytest.param(_p.name, cid, id=cid) for _p in PROBLEMS for cid, _ in battery_cases(_p)]

_HARNESSES: dict[str, Harness] = {}


def _harness(problem) -> Harness:
    """One harness per problem for the whole session, so the checks of a method share its runs."""
    if problem.name not in _HARNESSES:
        _HARNESSES[problem.name] = Harness(problem)
    return _HARNESSES[problem.name]


@pytest.mark.parametrize("problem_name,check_id", CASES)
def test_conformance(problem_name, check_id):
    problem = optsched.get_problem(problem_name)
    check = dict(battery_cases(problem))[check_id]
    try:
        check(_harness(problem))
    except CheckSkipped as exc:
        pytest.skip(str(exc))


def test_every_problem_has_tiny_instances():
    missing = [p.name for p in optsched.core.registry.problems().values() if p.tiny_instances is None]
    assert not missing, f"problems without tiny_instances (conformance cannot run): {missing}"
