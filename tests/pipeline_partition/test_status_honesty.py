"""Status honesty of pipeline-partition's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import dataclasses

import pytest

import optsched
from optsched.core.solving import objective_tolerance
from tests.status_support import assert_not_stronger, not_optimal, run_below_guard, stop_parts, tiny


def _partition_instance():
    """A pipeline-partition instance with at least two stage counts and an optimized objective."""
    return tiny("pipeline-partition", lambda i: len(i.stage_counts()) >= 3 and i.objective != "sync")


def test_pipeline_partition_milp_one_stage_count_stopped():
    """Per-K MILPs: stopping any one K's MILP gives no ``optimal``, and the bound is the minimum over
    K of the bounds the K's reported (the stopped K's loosened one included)."""
    inst = _partition_instance()
    ks = list(inst.stage_counts())
    for k in range(len(ks)):
        run = run_below_guard(inst, "milp", degrade=stop_parts(lambda i, model, k=k: i == k))
        what = f"pipeline-partition/milp, K = {ks[k]} stopped"
        assert run.out is not None and run.out.status == "time_limit", (what, run.out and run.out.status)
        bounds = [s.bound for _, _, s in run.parts if s.status != "infeasible"]
        assert_not_stronger("min", run.out.bound, min(bounds), what)
        assert run.out.bound is not None and run.out.bound >= min(bounds) - objective_tolerance(min(bounds))


def test_pipeline_partition_milp_bound_is_the_least_not_the_largest():
    """With every K solved, the bound is OPT = min over K; the largest K's value is no bound."""
    inst = _partition_instance()
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.bound is not None
    assert abs(r.bound - r.objective) <= objective_tolerance(r.objective)


def test_pipeline_partition_milp_no_bound_when_a_stage_count_has_none():
    inst = _partition_instance()

    def drop(i, model, sol):
        if i != 0 or sol.status != "optimal":
            return sol
        return dataclasses.replace(sol, status="time_limit", bound=None)
    run = run_below_guard(inst, "milp", degrade=drop)
    assert run.out.status == "time_limit" and run.out.bound is None


@pytest.mark.parametrize("method", ["dp", "subset-dp", "order-dp"])
def test_pipeline_partition_dps_stopped_at_every_clock_read(method, monkeypatch):
    """The DPs poll the clock; stopped after k reads (k = 0, 1, 2, 4, ...), they report
    ``time_limit`` with a bound no plan beats (<= OPT), never ``optimal``. The clock is read at
    every unit of work here (``POLL_EVERY = 1``) so that a small instance stops at many points."""
    from optsched.pipeline.partition import clock

    monkeypatch.setattr(clock, "POLL_EVERY", 1)
    inst = optsched.generate("pipeline-partition", seed=3, layers=24, topology="nvlink:4")
    ref = optsched.solve(inst, "milp")
    assert ref.status == "optimal"
    stopped = 0
    for k in (0, 1, 2, 4, 8, 16, 64, 256, 1024):
        run = run_below_guard(inst, method, stop_after_reads=k)
        if run.raised is None and run.out.status in ("optimal", "feasible"):
            break  # the search finished within k reads
        stopped += 1
        what = f"pipeline-partition/{method} stopped after {k} clock reads"
        not_optimal(run, what)
        if run.out is not None and run.out.bound is not None:
            assert run.out.bound <= ref.objective + objective_tolerance(ref.objective), what
    assert stopped, f"{method} never read the clock on this instance: the test stops nothing"
