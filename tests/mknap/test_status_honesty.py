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


def _hard_model():
    import optsched

    return optsched.get_problem("mknap").build_model(optsched.generate("mknap", seed=1, preset="hard"))


def test_highs_stopped_by_its_node_limit_with_an_incumbent_is_feasible_not_optimal():
    """HiGHS stopped by a node limit (a deterministic work limit; the ``hard`` preset is not closed
    in 30 nodes) keeps its incumbent and its bound, with the gap open: ``feasible``, never
    ``optimal``."""
    from optsched.core.backends import SolverSettings, get_backend

    sol = get_backend("highs").solve(_hard_model(), SolverSettings(node_limit=30))
    assert sol.objective is not None and sol.bound is not None and sol.bound > sol.objective
    assert sol.status == "feasible", f"HiGHS stopped by its node limit reports {sol.status!r}"


def test_highs_stopped_by_its_time_limit_with_an_incumbent_is_time_limit_not_optimal():
    """HiGHS stopped by its time limit after it found an incumbent reports ``time_limit`` with that
    incumbent and an open gap, never ``optimal``. The stop is forced: a progress listener (which runs
    inside HiGHS' solver thread) holds the solve at its first incumbent until the 1 s limit has
    passed, so HiGHS stops at its next check whatever the machine's speed (the ``hard`` preset is
    far from closed at that point: its first incumbent is the empty selection)."""
    import time

    import pytest

    from optsched.core.backends import SolverSettings, get_backend
    from optsched.core.backends.highs import progress_listener

    limit = 1.0
    held = []

    def hold(info):
        if info["incumbent"] is not None and not held:
            held.append(info)
            time.sleep(max(0.0, limit + 0.25 - info["time"]))

    model = _hard_model()
    with progress_listener(hold):
        sol = get_backend("highs").solve(model, SolverSettings(time_limit=limit))
    if not held:  # pragma: no cover - the limit passed before any incumbent (an overloaded machine)
        pytest.skip("HiGHS found no incumbent before its time limit")
    assert sol.objective is not None and sol.bound is not None and sol.bound > sol.objective
    assert sol.status == "time_limit", f"HiGHS stopped by its time limit reports {sol.status!r}"
