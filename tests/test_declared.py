"""The problems' declarations for the cross-problem tests (``tests/declared.py``) are well formed:
each ``tests/<folder>/declarations.py`` belongs to a registered problem, defines only known names,
and names methods and fields that exist, so that no declaration is silently ignored."""

from __future__ import annotations

import pytest

import optsched
from tests.declared import KNOWN, TESTS, declarations, declared, folder_of

#: every problem whose tests declare something for the cross-problem tests
DECLARING = sorted(name for name in optsched.core.registry.problems() if declarations(name) is not None)


def test_every_declarations_file_belongs_to_a_registered_problem():
    folders = {folder_of(p) for p in optsched.core.registry.problems().values()}
    files = sorted(path.parent.name for path in TESTS.glob("*/declarations.py"))
    assert files, "no problem declares anything: the discovery is broken"
    assert not set(files) - folders, f"declarations of no registered problem: {set(files) - folders}"


@pytest.mark.parametrize("problem", DECLARING)
def test_declarations_use_known_names_and_existing_methods(problem):
    module = declarations(problem)
    public = {n for n in vars(module) if n.isupper() and not n.startswith("_")}
    assert public <= set(KNOWN), f"{problem}: unknown declarations {public - set(KNOWN)} (known: {KNOWN})"
    methods = optsched.get_problem(problem).methods
    for name in ("STATUS_OWN_BOUND_TEST", "STATUS_OTHER_PROOF", "STATUS_BOUND_PROOF", "GUARANTEE_TIGHTNESS"):
        listed = set(getattr(module, name, ()))
        assert listed <= set(methods), f"{problem}.{name} names no method: {listed - set(methods)}"
    if hasattr(module, "GUARANTEE_REFERENCE"):
        assert module.GUARANTEE_REFERENCE in methods


@pytest.mark.parametrize("name", ["EXTREME_BOUNDS", "HUGE_VALUE_FIELDS", "IMPORT_EXAMPLE"])
def test_the_declared_cases_are_found(name):
    """The parametrized cross-problem tests built from these would otherwise be empty, and skipped."""
    assert declared(name), f"no problem declares {name}"


@pytest.mark.parametrize("problem", sorted(declared("EXTREME_BOUNDS")))
def test_extreme_and_huge_fields_exist_in_the_instances(problem):
    data = optsched.generate(problem, seed=0, preset="tiny").to_json()
    for field, _, others in declared("EXTREME_BOUNDS")[problem]:
        for path in (field, *others):
            node = data
            for part in path.split("."):
                assert isinstance(node, (dict, list)), (problem, path)
                node = node[int(part)] if part.isdigit() else node[part]


def test_every_tight_family_is_run_by_its_problems_tests():
    """A tight family is checked in its problem's ``tests/<folder>/test_guarantee_constants.py``
    (``check_tight_family`` over every ``Tight`` of ``GUARANTEE_TIGHTNESS``): a declared family
    without that file would never run."""
    from tests.guarantee_support import Tight

    for problem, table in declared("GUARANTEE_TIGHTNESS").items():
        if any(isinstance(t, Tight) for t in table.values()):
            path = TESTS / folder_of(problem) / "test_guarantee_constants.py"
            assert path.is_file() and "check_tight_family" in path.read_text(), (problem, path)
