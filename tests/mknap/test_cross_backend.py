"""mknap's MILP on the back-ends whose translation of it was once wrong agrees with highs."""

from __future__ import annotations

import pytest

import optsched
from tests.core.crossbackend import compare


@pytest.mark.parametrize("backend", ["pyomo", "cvxpy", "scipy"])
def test_regressions_agree_with_highs(backend):
    inst = optsched.get_problem("mknap").tiny_instances(0)
    verdict, detail = compare(inst, "milp", backend)
    assert verdict == "agrees", detail
