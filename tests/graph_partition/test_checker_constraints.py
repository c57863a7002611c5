"""The graph-partition checker's constraints (node balance, training-node balance, part range), each
violated alone by a minimal change of a valid partition of the tiny instance (8 nodes, training
nodes 0, 2, 5, 7, K = 2, eps 0.25: at most 5 nodes and 2.5 training nodes per part;
docs/checkers.md)."""

import pytest

import optsched
from tests.checker_helpers import assert_feasible, assert_only

P = "graph-partition"


@pytest.fixture(scope="module")
def inst():
    inst = optsched.get_problem(P).tiny_instances(0)
    assert (inst.num_nodes, tuple(inst.train_nodes), inst.num_parts) == (8, (0, 2, 5, 7), 2)
    assert (inst.capacity_nodes, inst.capacity_train) == (5.0, 2.5)
    return inst


def test_valid_partition(inst):
    assert_feasible(P, inst, {"parts": [0, 0, 0, 0, 1, 1, 1, 1]})


def test_node_balance(inst):
    # part 0 = {0, 1, 2, 3, 4, 6}: 6 nodes > 5, training nodes 0, 2 only
    assert_only(P, inst, {"parts": [0, 0, 0, 0, 0, 1, 0, 1]}, r"^part 0: 6 nodes exceed")


def test_training_node_balance(inst):
    # part 0 = {0, 1, 2, 5}: 4 nodes, training nodes 0, 2, 5 = 3 > 2.5
    assert_only(P, inst, {"parts": [0, 0, 0, 1, 1, 0, 1, 1]}, r"^part 0: 3 training nodes exceed")


def test_part_range(inst):
    assert_only(P, inst, {"parts": [0, 0, 0, 0, 1, 1, 1, 2]}, r"^every part index must be an int in 0\.\.1$")
