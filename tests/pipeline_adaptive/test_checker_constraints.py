"""The pipeline-adaptive checker's constraints (one group size per iteration, each fitting memory),
each violated alone by a minimal change of a valid sequence of the tiny instance (docs/checkers.md)."""

import pytest

import optsched
from tests.checker_helpers import assert_feasible, assert_only

P = "pipeline-adaptive"


@pytest.fixture(scope="module")
def inst():
    return optsched.get_problem(P).tiny_instances(0)


def test_valid_sequence(inst):
    assert_feasible(P, inst, {"group_sizes": [min(inst.candidates)] * inst.iterations})


def test_one_size_per_iteration(inst):
    g = min(inst.candidates)
    assert_only(P, inst, {"group_sizes": [g] * (inst.iterations - 1)},
                rf"^group_sizes has {inst.iterations - 1} entries for {inst.iterations} iterations$")


def test_each_size_fits_memory(inst):
    too_big = max(inst.group_sizes) + 1  # not a candidate: no memory check passes it
    sizes = [min(inst.candidates)] * inst.iterations
    sizes[-1] = too_big
    assert_only(P, inst, {"group_sizes": sizes}, rf"^iteration {inst.iterations - 1}: group size {too_big} does not fit")
