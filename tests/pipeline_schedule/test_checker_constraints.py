"""The pipeline-schedule checker's constraint (the in-flight caps), violated alone by hand-built
orders, and its simulated makespan computed by hand.

Two stages, two microbatches: forward 1, backward 2 on each stage, transfer 0.5 between them,
no all-reduce; caps 1 (stage 0) and 2 (stage 1).
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "pipeline-schedule"


def inst(cap=(1, 2), allreduce=(0.0, 0.0)):
    return make(P, {"forward": [1.0, 1.0], "backward": [2.0, 2.0], "transfer": [0.5], "allreduce": list(allreduce),
                    "microbatches": 2, "inflight_cap": list(cap) if cap else None})


ONE_F_ONE_B = [["F", 0], ["B", 0], ["F", 1], ["B", 1]]
GPIPE = [["F", 0], ["F", 1], ["B", 0], ["B", 1]]


def test_one_f_one_b_makespan_by_hand():
    # s0 F0 0-1 | s1 F0 1.5-2.5 | s1 B0 2.5-4.5 | s0 B0 5-7 | s0 F1 7-8 | s1 F1 8.5-9.5 | s1 B1 9.5-11.5
    # | s0 B1 12-14
    assert assert_feasible(P, inst(), {"order": [ONE_F_ONE_B, ONE_F_ONE_B]}).objective == pytest.approx(14.0)


def test_gpipe_makespan_by_hand_and_allreduce():
    # no caps. s0 F0 0-1 F1 1-2 | s1 F0 1.5-2.5 F1 3.5? no: 2.5-3.5 (F1 ready 2.5) | s1 B0 3.5-5.5 B1 5.5-7.5
    # | s0 B0 6-8 B1 8-10; all-reduce 3 on stage 0 after its last backward: 13
    free = inst(cap=None)
    assert assert_feasible(P, free, {"order": [GPIPE, GPIPE]}).objective == pytest.approx(10.0)
    ar = inst(cap=None, allreduce=(3.0, 0.0))
    assert assert_feasible(P, ar, {"order": [GPIPE, GPIPE]}).objective == pytest.approx(13.0)


def test_inflight_cap_of_one_stage():
    assert_only(P, inst(), {"order": [GPIPE, ONE_F_ONE_B]}, r"^stage 0: 2 microbatches in flight, cap 1$")
    assert_feasible(P, inst(cap=(2, 2)), {"order": [GPIPE, GPIPE]})


def test_inflight_cap_of_the_last_stage():
    assert_only(P, inst(cap=(2, 1)), {"order": [GPIPE, GPIPE]}, r"^stage 1: 2 microbatches in flight, cap 1$")


def test_malformed_or_cyclic_orders_are_violations_naming_order():
    # a well-formed file whose order defines no schedule is an infeasible solution (check exit 1),
    # as in every other problem, not invalid input
    assert_only(P, inst(), {"order": [ONE_F_ONE_B, [["F", 0], ["B", 0], ["F", 1]]]}, r"order\[1\]")
    # stage 0 waits for B0 before F1, stage 1 wants F1 before B0: a cycle
    assert_only(P, inst(cap=None), {"order": [ONE_F_ONE_B, GPIPE]}, r"^field 'order': precedence cycle")
    assert_only(P, inst(), {"orders": []}, r"^solution: must be an object")
    assert_only(P, inst(), "x", r"^solution: must be an object")
