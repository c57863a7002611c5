"""The dag-pipeline checker's constraints (precedence, non-empty stages, stage budget, stage range),
each violated alone by a minimal change of a valid solution of a hand-built instance and named in
the message (docs/checkers.md).
"""

from tests.checker_helpers import assert_feasible, assert_only, make


def dag(balance=50.0, stages=2):
    """A chain 0 -> 1 -> 2 -> 3 of 1 s operators, 10 bytes per edge; budget (4 / K) (1 + b / 100)."""
    return make("dag-pipeline", {"compute_s": [1.0, 1.0, 1.0, 1.0], "edges": [[0, 1, 10.0], [1, 2, 10.0], [2, 3, 10.0]],
                                 "stages": stages, "objective": "cut-bytes", "balance_percent": balance,
                                 "bandwidth": 1e9, "microbatches": 1, "node_names": [], "name": "", "provenance": ""})


def test_dag_pipeline_valid_and_cut_by_hand():
    assert assert_feasible("dag-pipeline", dag(), {"stages": [0, 0, 1, 1]}).objective == 10.0


def test_dag_pipeline_an_edge_back_one_stage():
    # edge 1 -> 2 goes from stage 1 back to stage 0; both stages hold 2 s <= budget 3 s
    assert_only("dag-pipeline", dag(), {"stages": [0, 1, 0, 1]}, r"^edge 1->2: stage 1 after stage 0$")


def test_dag_pipeline_an_edge_back_two_stages():
    assert_only("dag-pipeline", dag(balance=200.0, stages=3), {"stages": [0, 2, 0, 1]},
                r"^edge (1->2: stage 2 after stage 0|2->3: stage 0 after|1->2)", count=1)


def test_dag_pipeline_empty_stage():
    assert_only("dag-pipeline", dag(balance=None), {"stages": [0, 0, 0, 0]}, r"^stage\(s\) \[1\] empty$")


def test_dag_pipeline_stage_budget():
    # budget 4 / 2 * 1.2 = 2.4 s; stage 0 holds 3 s
    assert_feasible("dag-pipeline", dag(balance=20.0), {"stages": [0, 0, 1, 1]})
    assert_only("dag-pipeline", dag(balance=20.0), {"stages": [0, 0, 0, 1]}, r"^stage 0 compute 3 exceeds the budget 2\.4$")


def test_dag_pipeline_stage_range():
    assert_only("dag-pipeline", dag(), {"stages": [0, 0, 1, 2]}, r"^node 3: stage 2 not in 0\.\.1$")
