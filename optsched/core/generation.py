"""A registered problem's generated instance: a preset's options overlaid with the caller's, each
option's declared type and interval checked (:func:`optsched.core.params.validate_parameters`).
The one implementation behind ``optsched.generate`` and a problem's tables
(``optsched.experiments.generate``)."""

from __future__ import annotations

from typing import Any

from .errors import InvalidOptionError, UnknownNameError, did_you_mean
from .params import validate_parameters
from .registry import get_problem

__all__ = ["generate"]


def generate(problem: str, seed: int = 0, preset: str | None = None, **options) -> Any:
    """A generated instance of ``problem`` (a registered name): ``preset``'s options overlaid with
    ``options``."""
    prob = get_problem(problem)
    if prob.generate is None:
        raise InvalidOptionError(problem, "generate", "this problem has no generator")
    params: dict = {}
    if preset is not None:
        if preset not in prob.presets:
            raise UnknownNameError(f"preset of {problem}", preset, list(prob.presets))
        params.update(prob.presets[preset])
    params.update(options)
    for key in params:  # an unknown name, with the close declared ones (the types: validate_parameters)
        if key not in prob.generator_options:
            known = ", ".join(prob.generator_options) or "none"
            raise InvalidOptionError(problem, key, f"unknown generator option"
                                     f"{did_you_mean(key, prob.generator_options)} (known: {known})")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidOptionError(problem, "seed", "must be an integer", seed)
    # every parameter's declared type and interval, checked here for the API and the command line
    params = validate_parameters(problem, prob.generator_options, params)
    return prob.generate(seed, **params)
