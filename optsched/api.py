"""Convenience functions over the registry: generate, load, check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .core.errors import InvalidInstanceError, UnknownNameError
from .core.instance import load_json_file
from .core.params import validate_parameters
from .core.registry import CheckReport, get_problem
from .core.result import Result

__all__ = ["generate", "load_instance", "load_result", "check"]


def generate(problem: str, seed: int = 0, preset: str | None = None, **options) -> Any:
    """A generated instance of ``problem``: a preset's options overlaid with ``options``."""
    prob = get_problem(problem)
    if prob.generate is None:
        raise InvalidInstanceError(problem, "generate", "this problem has no generator")
    params: dict = {}
    if preset is not None:
        if preset not in prob.presets:
            raise UnknownNameError(f"preset of {problem}", preset, list(prob.presets))
        params.update(prob.presets[preset])
    params.update(options)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidInstanceError(problem, "seed", "must be an integer", seed)
    # every parameter's declared type and interval, checked here for the API and the command line
    params = validate_parameters(problem, prob.generator_options, params)
    return prob.generate(seed, **params)


def load_instance(problem: str, path: str | Path) -> Any:
    """Read an instance file of ``problem`` (JSON with a format version)."""
    return get_problem(problem).load_instance(path)


def load_result(path: str | Path) -> Result:
    return Result.from_json(load_json_file(path, "result"))


def check(instance: Any, solution_or_result: Any) -> CheckReport:
    """Check a solution (or a result record's solution) against ``instance``."""
    solution = solution_or_result.solution if isinstance(solution_or_result, Result) else solution_or_result
    return get_problem(instance.problem).check(instance, solution)
