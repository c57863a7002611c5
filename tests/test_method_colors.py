"""A method's figure colour: the shared table for names many problems use, else what the method's
problem declares on its registration, else a stable palette colour. No problem is named here: a
throwaway problem declares its colours."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.registry import Outcome, Problem, register_problem, unregister_problem
from optsched.plotting.style import METHOD_COLORS, PALETTE, method_color


def _problem(name: str) -> Problem:
    problem = Problem(name=name, title="colours", sense="min", instance_type=object, check=lambda i, s: None,
                      objective="none", solution_schema="{}", spec="(test)")

    def run(instance, ctx):
        return Outcome(solution={})

    problem.method("toy-colored", kind="heuristic", fidelity="ours", summary="x", color="#123456")(run)
    problem.method("milp", kind="exact", fidelity="ours", summary="x", color="#abcdef")(run)
    problem.method("toy-plain", kind="heuristic", fidelity="ours", summary="x")(run)
    return problem


@pytest.fixture
def toy():
    name = "toy-colours"
    register_problem(_problem(name))
    try:
        yield name
    finally:
        unregister_problem(name)


def test_a_declared_colour_is_used_with_and_without_the_problem(toy):
    assert method_color(f"{toy}/toy-colored") == "#123456"
    assert method_color("toy-colored") == "#123456"


def test_the_shared_table_wins_for_a_shared_name(toy):
    assert method_color(f"{toy}/milp") == METHOD_COLORS["milp"] != "#abcdef"


def test_an_undeclared_name_gets_a_stable_palette_colour(toy):
    colour = method_color(f"{toy}/toy-plain")
    assert colour in PALETTE and colour == method_color("toy-plain")


def test_a_colour_must_be_lower_case_hex():
    problem = Problem(name="toy-bad-colour", title="x", sense="min", instance_type=object,
                      check=lambda i, s: None, objective="none", solution_schema="{}", spec="(test)")
    for bad in ("red", "#12345", "#ABCDEF", "#1234567"):
        with pytest.raises(ValueError, match="color"):
            problem.method(f"m{len(bad)}{bad[-1]}", kind="heuristic", fidelity="ours", summary="x", color=bad)(
                lambda i, c: None)


def test_every_declared_colour_is_returned_for_its_method():
    """The colours the problems declare reach the figures (the table no longer lists those names)."""
    declared = [(p.name, m.name, m.color) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                if m.color is not None]
    assert declared, "no problem declares a method colour"
    for problem, method, colour in declared:
        assert method not in METHOD_COLORS, (problem, method)
        assert method_color(f"{problem}/{method}") == colour
