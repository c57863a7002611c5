"""Status honesty of interference-online's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

from tests.status_support import not_optimal, run_below_guard, stop_parts, tiny


def test_interference_online_milp_per_event_with_every_event_stopped():
    inst = tiny("interference-online")
    run = run_below_guard(inst, "milp-per-event", degrade=stop_parts())
    not_optimal(run, "interference-online/milp-per-event")
    assert run.out.bound is None
