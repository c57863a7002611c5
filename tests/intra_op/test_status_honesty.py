"""Status honesty of intra-op's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

from tests.status_support import assert_not_stronger, not_optimal, run_below_guard, stop_parts, tiny


def test_intra_op_anytime_with_its_milp_stopped():
    """intra-op anytime: MILP stage, then Lagrangian and LNS stages; with the MILP stopped and the
    Lagrangian stage off, no stage proves the plan: not optimal, and the bound is no stronger
    than the MILP's loosened one."""
    inst = tiny("intra-op")
    run = run_below_guard(inst, "anytime", degrade=stop_parts(), options={"lagrange": False})
    assert run.parts, "the MILP stage did not run"
    not_optimal(run, "intra-op/anytime")
    assert_not_stronger("min", run.out.bound, run.parts[0][2].bound, "intra-op/anytime")
