"""The pipeline-graph checker's constraints (layer ids, each layer in one stage, every layer placed,
replicas >= 1, the worker count, no edge back to an earlier stage), each violated alone by a minimal
change of a valid plan of the tiny instance (edges 0->1, 0->2, 0->3, 3->4; 2 workers;
docs/checkers.md)."""

import pytest

import optsched
from tests.checker_helpers import assert_feasible, assert_only

P = "pipeline-graph"


@pytest.fixture(scope="module")
def inst():
    inst = optsched.get_problem(P).tiny_instances(0)
    assert [tuple(e) for e in inst.edges] == [(0, 1), (0, 2), (0, 3), (3, 4)] and inst.workers == 2
    return inst


def test_valid_plan(inst):
    assert_feasible(P, inst, {"stages": [[0, 1, 2], [3, 4]], "replicas": [1, 1]})


@pytest.mark.parametrize("stages,replicas,pattern", [
    ([[0, 1, 2], [3, 5]], [1, 1], r"^layer ids must be in 0\.\.4$"),
    ([[0, 1, 2, 3], [3, 4]], [1, 1], r"^a layer is in two stages"),
    ([[0, 1, 2], [3]], [1, 1], r"^layers \[4\] are in no stage$"),
    ([[0, 1, 2], [3, 4]], [1, 0], r"^replicas must be >= 1"),
    ([[0, 1, 2], [3, 4]], [2, 1], r"^3 replicas in all, the instance has 2 workers$"),
    # edge 0 -> 3 goes back exactly one stage
    ([[3, 4], [0, 1, 2]], [1, 1], r"^edge 0 -> 3 goes from stage 2 back to stage 1$"),
])
def test_each_constraint_alone(inst, stages, replicas, pattern):
    assert_only(P, inst, {"stages": stages, "replicas": replicas}, pattern)
