"""The intra-op checker's constraints (forbidden node strategy, forbidden edge pair, memory at every
time), each violated alone by a minimal change of a valid solution of a hand-built instance and
named in the message (docs/checkers.md).
"""

from optsched.problems.intra_op.instance import FORBIDDEN, IntraOpInstance
from tests.checker_helpers import assert_feasible, assert_only


def intra(node_cost=(1, 3, 2, 1), edge_cost=(0, 5, 5, 0), usage=(1, 1, 2, 1), limit=2.0):
    """Two nodes, two strategies each, live at time 0; one edge 0 -> 1 (row-major 2 x 2 costs)."""
    return IntraOpInstance(num_strategies=[2, 2], cost=list(node_cost), usage=list(usage), start=[0, 0],
                           end=[1, 1], edge_u=[0], edge_v=[1], edge_cost=list(edge_cost), usage_limit=limit)


def test_intra_op_valid_plan_cost_by_hand():
    # s = (0, 1): node costs 1 + 1, edge (0, 1) cost 5 = 7; memory 1 + 1 = 2 <= 2
    assert assert_feasible("intra-op", intra(), {"strategy": [0, 1]}).objective == 7.0


def test_intra_op_forbidden_node_strategy():
    inst = intra(node_cost=(1, FORBIDDEN, 2, 1))
    assert_feasible("intra-op", inst, [0, 1])
    assert_only("intra-op", inst, [1, 1], r"^node 0: strategy 1 is forbidden")


def test_intra_op_forbidden_edge_pair():
    # both nodes' strategies are allowed; only the pair (0, 1) on the edge is forbidden
    inst = intra(edge_cost=(0, FORBIDDEN, 5, 0), limit=3.0)
    assert_feasible("intra-op", inst, [1, 0])
    assert_only("intra-op", inst, [0, 1], r"^edge 0 \(0, 1\): strategy pair \(0, 1\) is forbidden")


def test_intra_op_memory_limit():
    # s = (1, 0): usage 1 + 2 = 3 > 2 at time 0
    inst = intra(usage=(1, 1, 2, 1), limit=2.0)
    assert_only("intra-op", inst, [0, 0], r"^memory: usage 3 at time 0 exceeds the limit 2")
    assert_feasible("intra-op", intra(limit=3.0), [0, 0])


def test_intra_op_strategy_range():
    assert_only("intra-op", intra(), [0, 2], r"^node 1: strategy 2 out of range 0\.\.1$")
