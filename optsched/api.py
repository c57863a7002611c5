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
    """Check a solution (or a result record's solution) against ``instance``."""
    solution = solution_or_result.solution if isinstance(solution_or_result, Result) else solution_or_result
    return get_problem(instance.problem).check(instance, solution)
