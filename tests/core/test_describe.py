"""The API explains itself: ``help(optsched.get_problem(NAME))`` (the problem's ``__doc__``,
``describe()``) lists every generator option and every method option with its type, interval and
default in scikit-learn's "Parameters" form; ``optsched.generate`` documents its parameters and
returns an ``Instance``."""

from __future__ import annotations

import inspect
import pydoc

import pytest

import optsched
from optsched.core.instance import Instance
from optsched.core.params import option_type_doc
from optsched.core.registry import problems

NAMES = sorted(problems())


@pytest.mark.parametrize("name", NAMES)
def test_help_of_a_problem_lists_every_option_with_type_interval_and_default(name):
    problem = optsched.get_problem(name)
    text = pydoc.render_doc(problem, renderer=pydoc.plaintext)
    assert problem.__doc__ == problem.describe() and problem.title in text
    if problem.generate is not None:
        assert "Parameters\n |  ----------" in text
    for key, opt in problem.generator_options.items():
        default = list(opt.default) if isinstance(opt.default, tuple) else opt.default
        assert f" |  {key} : {option_type_doc(opt)}, default={default!r}\n |      {opt.help}" in text
    for preset in problem.presets:
        assert f"{preset}: " in text
    for method in problem.methods.values():
        assert f"{method.name} : {method.kind}, [{method.fidelity}]" in text
        for key, opt in method.options.items():
            assert f"    {key} : {option_type_doc(opt)}, default=" in text
    assert problem.instance_type.__name__ in text


def test_the_type_of_each_kind_of_option():
    declared = [o for p in problems().values() for o in p.generator_options.values()]
    ints = next(o for o in declared if o.type is int and o.bounds is not None and not o.nullable)
    assert option_type_doc(ints) == f"int in {ints.bounds}"
    nullable = next((o for o in declared if o.nullable), None)
    if nullable is not None:
        assert option_type_doc(nullable).endswith(" or None")


def test_generate_documents_its_parameters_and_returns_an_instance():
    doc = inspect.getdoc(optsched.generate)
    for section in ("Parameters", "seed : int, default=0", "preset : str or None", "**options", "Returns",
                    "Instance", "help(optsched.get_problem(problem))"):
        assert section in doc
    assert inspect.signature(optsched.generate).return_annotation in (Instance, "Instance")


def test_a_problem_stays_a_problem():
    from optsched.core.registry import Problem

    problem = optsched.get_problem(NAMES[0])
    assert isinstance(problem, Problem) and type(problem).__name__ == "Problem"
    assert repr(problem).startswith(f"Problem(name={NAMES[0]!r}")
    assert Problem.__doc__.startswith("A problem:")   # the class itself keeps its own docstring
