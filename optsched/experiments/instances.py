"""A problem's generated instance for an experiment, from below the facade.

``optsched.generate`` lives in :mod:`optsched.api`, above the problems; a problem's ``repro.py``
generates its own instances with :func:`generate`, the same function
(:func:`optsched.core.generation.generate`), so both give the same instance.
"""

from __future__ import annotations

from typing import Any

from optsched.core.generation import generate
from optsched.core.registry import get_problem

__all__ = ["generate", "check"]


def check(instance: Any, solution: Any):
    """The problem's checker on ``solution`` (a solution dict, or a result record's solution):
    what ``optsched.check`` does, from below the facade."""
    from optsched.core.result import Result

    solution = solution.solution if isinstance(solution, Result) else solution
    return get_problem(instance.problem).check(instance, solution)
