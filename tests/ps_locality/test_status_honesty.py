"""Status honesty of ps-locality's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.status_support import assert_not_stronger, not_optimal, run_below_guard, stop_parts, tiny


def test_ps_locality_lower_bound_with_its_lp_stopped():
    """max(sum of solo times, pooled LP): with the LP stopped, not optimal, and the bound is
    max(solo, the LP's dual bound), not the unstopped LP value."""
    inst = tiny("ps-locality")
    full = run_below_guard(inst, "lower-bound")
    run = run_below_guard(inst, "lower-bound", degrade=stop_parts())
    assert run.out.status == "time_limit"
    solo = run.out.stats["sum_solo_slots"]
    lp_bound = run.parts[0][2].bound
    assert_not_stronger("min", run.out.bound, max(solo, lp_bound), "ps-locality/lower-bound")
    assert run.out.objective == run.out.bound
    # and with no dual bound at all, the solo sum alone
    run = run_below_guard(inst, "lower-bound", degrade=lambda i, m, s: dataclasses.replace(
        s, status="time_limit", bound=None, x=None, objective=None))
    assert run.out.status == "time_limit" and run.out.bound == solo
    assert full.out.status == "optimal" and full.out.bound >= solo


@pytest.mark.parametrize("method", ["rr", "online-rr"])
def test_ps_locality_rounding_with_its_lp_stopped(method):
    """LP, then rounding and repair: an LP stopped unproven gives no LP bound and no ``optimal``
    (rr refuses to round a point that is not the LP optimum)."""
    inst = tiny("ps-locality")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, method, degrade=stop_parts(status=status))
        not_optimal(run, f"ps-locality/{method}")
        if run.out is not None:
            assert run.out.bound is None, f"ps-locality/{method}: bound {run.out.bound} from an unproven LP"
