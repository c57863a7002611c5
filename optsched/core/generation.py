"""A registered problem's generated instance: a preset's options overlaid with the caller's, each
option's declared type and interval checked (:func:`optsched.core.params.validate_parameters`).
The one implementation behind ``optsched.generate`` and a problem's tables
(``optsched.experiments.generate``)."""

from __future__ import annotations

from .errors import InvalidOptionError, UnknownNameError, did_you_mean
from .instance import Instance
from .params import validate_parameters
from .registry import get_problem

__all__ = ["generate"]


def generate(problem: str, seed: int = 0, preset: str | None = None, **options) -> Instance:
    """A generated instance of ``problem``: ``preset``'s options overlaid with ``options``, each
    checked against its declared type and interval before the generator runs.

    Parameters
    ----------
    problem : str
        A registered problem's name (``optsched.list_problems()["name"]``; ``optsched problems``).
    seed : int, default=0
        The seed of the generator's random draws: the same problem, seed and options give the
        same instance, on every machine.
    preset : str or None, default=None
        A named set of the problem's generator options (``"tiny"``, ``"small"``, ...; each
        problem declares its own).
    **options
        The problem's generator options, each with a declared type, interval and default: they
        are listed, with the presets, by ``help(optsched.get_problem(problem))`` (or its
        ``describe()``) and by ``optsched methods PROBLEM``.

    Returns
    -------
    Instance
        The problem's instance type (a frozen :class:`~optsched.core.instance.Instance`), ready
        for :func:`optsched.solve`, ``save`` and ``optsched.check``.

    Raises
    ------
    UnknownNameError
        An unknown problem or preset (the message suggests the close names).
    InvalidOptionError
        An unknown option, or a value of the wrong type or outside its interval, naming the field.

    Examples
    --------
    >>> import optsched
    >>> inst = optsched.generate("mknap", seed=1, preset="tiny", tightness=0.25)
    >>> type(inst).__name__, len(inst.profits)
    ('MknapInstance', 8)
    """
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
