"""Status honesty of srpt's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

from tests.status_support import not_optimal, run_below_guard, stop_parts, tiny


def test_srpt_milp_placement_with_every_event_stopped():
    inst = tiny("srpt")
    run = run_below_guard(inst, "a-srpt", degrade=stop_parts(), options={"placement": "milp"})
    not_optimal(run, "srpt/a-srpt milp placement")
    assert run.out is None or run.out.bound is None
