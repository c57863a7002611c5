"""What the cross-problem tests know of a problem, read from the problem's own tests (problem-free).

The top-level tests ``tests/test_*.py`` name no problem: they iterate the registry, or pick a
problem by a property (:func:`pick`), or read what a problem's tests declare about it. A problem's
tests folder ``tests/<folder>/`` (the folder name of its package) may hold ``declarations.py``: plain
module-level names, each documented where the cross-problem test that reads it is, e.g.

* ``STATUS_OWN_BOUND_TEST``, ``STATUS_OTHER_PROOF``, ``STATUS_BOUND_PROOF`` (sets of method names):
  the exceptions of ``tests/test_status_honesty.py``, each covered by a test of the folder;
* ``GUARANTEE_TIGHTNESS`` (method -> :class:`tests.guarantee_support.Tight` or the sentence saying
  no tight instance is known), ``GUARANTEE_PRESET_FAMILIES``, ``GUARANTEE_REFERENCE``:
  ``tests/test_guarantee_constants.py``;
* ``EXTREME_BOUNDS``, ``HUGE_VALUE_FIELDS``: ``tests/test_extreme_values.py``,
  ``tests/test_cli_failures.py``;
* ``IMPORT_EXAMPLE``: ``tests/test_output_failures.py``.

:func:`declared` collects one name over every registered problem, in registry order, so a new
problem takes part by declaring it in its own folder, and a removed problem takes its
declarations with it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import optsched

TESTS = Path(__file__).resolve().parent

#: every name a ``declarations.py`` may define (``tests/test_declared.py`` refuses any other, so a
#: misspelt declaration cannot silently drop its problem from a cross-problem test)
KNOWN = ("STATUS_OWN_BOUND_TEST", "STATUS_OTHER_PROOF", "STATUS_BOUND_PROOF", "GUARANTEE_TIGHTNESS",
         "GUARANTEE_PRESET_FAMILIES", "GUARANTEE_REFERENCE", "EXTREME_BOUNDS", "HUGE_VALUE_FIELDS", "IMPORT_EXAMPLE")


def folder_of(problem) -> str:
    """The name of ``problem``'s folder (``optsched/problems/<folder>/``, ``tests/<folder>/``)."""
    problem = optsched.get_problem(problem) if isinstance(problem, str) else problem
    return (problem.package or "").rsplit(".", 1)[-1] or problem.name.replace("-", "_")


def declarations(problem) -> ModuleType | None:
    """``tests/<folder>/declarations.py`` of ``problem``, or None when its folder declares nothing."""
    folder = folder_of(problem)
    if not (TESTS / folder / "declarations.py").is_file():
        return None
    return importlib.import_module(f"tests.{folder}.declarations")


def declared(name: str) -> dict[str, Any]:
    """problem name -> the value of ``name`` in its ``declarations.py``, for every registered problem
    that declares it (registry order)."""
    out = {}
    for problem in optsched.core.registry.problems().values():
        module = declarations(problem)
        if module is not None and hasattr(module, name):
            out[problem.name] = getattr(module, name)
    return out


def declared_pairs(name: str) -> set[tuple[str, str]]:
    """(problem, method) for every method listed under ``name`` by a problem's declarations."""
    return {(problem, method) for problem, methods in declared(name).items() for method in methods}


def candidates(want: Callable[[Any], bool]) -> list:
    """Every registered problem with the wanted property, in registry order."""
    return [p for p in optsched.core.registry.problems().values() if want(p)]


def pick(want: Callable[[Any], bool], what: str):
    """The first registered problem with the wanted property (``what`` says which, for the error)."""
    found = candidates(want)
    if not found:
        raise LookupError(f"no registered problem {what}")
    return found[0]


def exact_model_method(problem) -> str | None:
    """The name of ``problem``'s first exact method that solves a model on a back-end, if any."""
    return next((m.name for m in problem.methods.values() if m.kind == "exact" and m.uses_backend), None)


def solves_tiny_exactly(problem) -> bool:
    """A problem with a ``tiny`` preset whose first exact back-end method proves the optimum of
    the preset's seed-0 instance (a quick, certain solve for the command-line tests)."""
    method = exact_model_method(problem)
    if method is None or "tiny" not in problem.presets or problem.tiny_instances is None:
        return False
    inst = optsched.generate(problem.name, seed=0, preset="tiny")
    return problem.methods[method].applicable(inst)[0]
