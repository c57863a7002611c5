"""Status honesty of hetero-sharding's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import pytest

import optsched
from tests.status_support import not_optimal, run_below_guard, stop_parts, tiny


def test_hetero_sharding_brute_one_program_lp_stopped():
    """One ratio LP per program: any one stopped LP means the enumeration proved nothing."""
    from optsched.problems.hetero_sharding.algorithms import num_programs

    brute = optsched.get_problem("hetero-sharding").methods["brute"]
    inst = tiny("hetero-sharding", lambda i: brute.applicable(i)[0] and num_programs(i) >= 2)
    for k in range(num_programs(inst)):
        run = run_below_guard(inst, "brute", degrade=stop_parts(lambda i, m, k=k: i == k))
        not_optimal(run, f"hetero-sharding/brute, program {k} stopped")


@pytest.mark.parametrize("method", ["milp-round", "alternate", "ratio-lp"])
def test_hetero_sharding_lp_or_milp_then_rounding(method):
    inst = tiny("hetero-sharding")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, method, degrade=stop_parts(status=status))
        not_optimal(run, f"hetero-sharding/{method}")
        if run.out is not None:
            assert run.out.bound is None


def test_hetero_sharding_milp_with_the_capped_model():
    """cap_seconds: a feasibility solve, then the MILP of another objective: never optimal."""
    inst = tiny("hetero-sharding")
    run = run_below_guard(inst, "milp", options={"cap_seconds": True})
    not_optimal(run, "hetero-sharding/milp cap_seconds")
