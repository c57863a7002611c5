"""Status honesty of smd's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import optsched
from optsched.core.solving import objective_tolerance
from tests.status_support import not_optimal, run_below_guard, stop_parts, tiny


def test_smd_certified_search_with_node_lps_stopped():
    """smd: inner MC-MKP steps and a branch and bound of node LPs; every solve stopped: not
    optimal, and the reported bound stays <= OPT."""
    for seed in range(6):
        inst = optsched.get_problem("smd").tiny_instances(seed)
        opt = optsched.solve(inst, "milp")
        if opt.status != "optimal":
            continue
        for status in ("time_limit", "feasible"):
            run = run_below_guard(inst, "smd", degrade=stop_parts(status=status), options={"target_gap": 0.0})
            not_optimal(run, "smd/smd")
            if run.out is not None and run.out.bound is not None:
                assert run.out.bound <= opt.objective + objective_tolerance(opt.objective)


def test_lp_round_then_repair_with_the_lp_stopped():
    """LP-round then repair: a stopped LP is not rounded (no bound from it, no ``optimal``)."""
    inst = tiny("smd")
    for status in ("time_limit", "feasible"):
        run = run_below_guard(inst, "lp-round", degrade=stop_parts(status=status))
        not_optimal(run, "smd/lp-round")
        assert run.out is None or run.out.bound is None
