"""A problem's generated instance for an experiment, from below the facade.

``optsched.generate`` lives in :mod:`optsched.api`, above the problems; a problem's ``repro.py``
generates its own instances through its own record with :func:`generate`, which applies the same
rules (a preset's options overlaid with ``options``, each option's declared type and interval
checked by :func:`optsched.core.params.validate_parameters`), so both give the same instance.
"""

from __future__ import annotations

from typing import Any

from optsched.core.errors import InvalidOptionError, UnknownNameError
from optsched.core.params import validate_parameters
from optsched.core.registry import get_problem

__all__ = ["generate", "check"]


def generate(problem: str, seed: int = 0, preset: str | None = None, **options) -> Any:
    """A generated instance of ``problem`` (a registered name): ``preset``'s options overlaid with
    ``options``; the same instance as ``optsched.generate(problem, seed, preset, **options)``."""
    prob = get_problem(problem)
    if prob.generate is None:
        raise InvalidOptionError(problem, "generate", "this problem has no generator")
    params: dict = {}
    if preset is not None:
        if preset not in prob.presets:
            raise UnknownNameError(f"preset of {problem}", preset, list(prob.presets))
        params.update(prob.presets[preset])
    params.update(options)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidOptionError(problem, "seed", "must be an integer", seed)
    params = validate_parameters(problem, prob.generator_options, params)
    return prob.generate(seed, **params)


def check(instance: Any, solution: Any):
    """The problem's checker on ``solution`` (a solution dict, or a result record's solution):
    what ``optsched.check`` does, from below the facade."""
    from optsched.core.result import Result

    solution = solution.solution if isinstance(solution, Result) else solution
    return get_problem(instance.problem).check(instance, solution)
