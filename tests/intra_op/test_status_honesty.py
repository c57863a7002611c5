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


def test_intra_op_anytime_stopped_by_its_limit_reports_time_limit():
    """A run whose budget is already spent when it starts keeps only its start plan: it reports
    ``time_limit`` (not ``feasible``, which says the method stopped on its own), with the plan and
    no bound. The deadline is set in the past, so the stop does not depend on the machine's speed;
    the same instance without a limit is solved to optimality, far below the start plan's cost."""
    import time

    import optsched
    from optsched.core.backends import SolverSettings, get_backend
    from optsched.core.solving import SolveContext

    inst = tiny("intra-op")
    problem = optsched.get_problem("intra-op")
    meth = problem.get_method("anytime")

    def run(time_limit):
        ctx = SolveContext(problem, meth, get_backend(None).name, SolverSettings(time_limit=time_limit, seed=0), 0,
                           meth.resolve_options(None))
        if time_limit is not None:
            ctx.start_clock()
            ctx.deadline = time.perf_counter() - 10.0  # spent before the method starts
        return meth.run(inst, ctx)

    stopped, free = run(3600.0), run(None)
    assert stopped.solution is not None and stopped.stats["stages"] == ["start"]
    assert stopped.status == "time_limit", f"a run stopped by its limit reports {stopped.status!r}"
    assert free.status == "optimal" and free.objective < stopped.objective
