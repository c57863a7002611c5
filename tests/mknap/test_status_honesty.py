"""Status honesty of mknap's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

from tests.status_support import not_optimal, run_below_guard, stop_parts, tiny


def test_lp_round_then_repair_with_the_lp_stopped():
    """LP-round then repair: a stopped LP is not rounded (no bound from it, no ``optimal``)."""
    inst = tiny("mknap")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, "lp-round", degrade=stop_parts(status=status))
        not_optimal(run, "mknap/lp-round")
        assert run.out is None or run.out.bound is None
