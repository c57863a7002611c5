"""``Problem.reference_method`` is a name, a tuple of names in order of preference, or None; the
conformance battery and ``compare`` read it through ``Problem.reference_methods``."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.registry import Problem


def _problem(ref):
    return Problem("p", "t", "min", object, None, "", "", "", reference_method=ref)


def test_the_forms_of_a_reference():
    assert _problem("milp").reference_methods == ("milp",)
    assert _problem(("milp", "brute")).reference_methods == ("milp", "brute")
    assert _problem(["milp", "brute"]).reference_method == ("milp", "brute")  # a list means the tuple
    assert _problem(None).reference_methods == ()


@pytest.mark.parametrize("bad", [(), 3, ("milp", 3), {"milp": 1}])
def test_anything_else_is_refused(bad):
    with pytest.raises(TypeError, match="reference_method"):
        _problem(bad)


def test_every_registered_reference_is_a_registered_exact_or_bound_method():
    for prob in optsched.core.registry.problems().values():
        for name in prob.reference_methods:
            assert prob.methods[name].kind in ("exact", "bound"), (prob.name, name)
