"""Status honesty of pipeline-graph's composed methods, one part stopped at a time (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import optsched
from optsched.core.backends import SolverSettings, get_backend
from optsched.core.solving import SolveContext


def test_pipeline_graph_antichain_dp_stopped_by_its_deadline():
    """antichain-dp: chain DP, then the lattice DP; a deadline already past stops the lattice
    search: not optimal unless its proven lower bound meets the plan."""
    inst = optsched.generate("pipeline-graph", seed=0)
    problem = optsched.get_problem("pipeline-graph")
    meth = problem.methods["antichain-dp"]
    ctx = SolveContext(problem, meth, get_backend(None).name, SolverSettings(time_limit=1.0), 0,
                       meth.resolve_options({}))
    ctx.remaining = lambda: -1.0   # the budget is spent before the search starts
    out = meth.run(inst, ctx)
    if out.status == "optimal":
        assert out.bound is not None and out.objective <= out.bound * (1 + 2.5e-9)
    else:
        assert out.status in ("time_limit", "feasible")
        assert out.bound is None or out.bound <= out.objective * (1 + 1e-9)
