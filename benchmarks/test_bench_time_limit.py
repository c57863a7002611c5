"""How far past ``--time-limit`` each back-end runs (``make bench``).

Every problem that declares a ``hard`` preset and has an exact ``milp`` method (found in the
registry; the instance is that preset's seed-1 draw, so the figures are comparable over time),
with a 2 s limit on every back-end that claims the model: the solver's own run time and the wall
time of the whole method call, reported as ratios to the limit. The honesty of the status
(``time_limit``, never ``optimal``; bound and gap present) is asserted in each problem's tests;
how long a back-end takes to stop depends on the machine's load, so it is reported here rather
than asserted anywhere.
"""

from __future__ import annotations

import time

import pytest

import optsched

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]

LIMIT = 2.0
BACKENDS = ["highs", "pyomo", "cvxpy", "scipy", "scip", "cpsat", "portfolio"]
#: the problems picked by what they declare: a ``hard`` preset and a ``milp`` method
HARD = [name for name, problem in optsched.core.registry.problems().items()
        if "hard" in (problem.presets or {}) and "milp" in problem.methods]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("problem", HARD)
def test_time_limit_overrun(problem, backend, record_property):
    inst = optsched.generate(problem, seed=1, preset="hard")
    start = time.perf_counter()
    r = optsched.solve(inst, "milp", backend=backend, time_limit=LIMIT)
    wall = time.perf_counter() - start
    assert r.status in ("time_limit", "optimal"), (problem, backend, r.status, r.reason)
    assert r.bound is not None and r.objective is not None
    # the bound is on the optimum's side of every feasible value
    if optsched.get_problem(problem).sense == "max":
        assert r.objective <= r.bound
    else:
        assert r.objective >= r.bound
    solver = r.stats.get("solver_run_time")
    record_property("wall_over_limit", wall / LIMIT)
    record_property("solver_over_limit", None if solver is None else solver / LIMIT)
    print(f"\n{problem}, {backend}: status {r.status}, wall {wall / LIMIT:.2f} x limit, "
          f"solver {'-' if solver is None else f'{solver / LIMIT:.2f}'} x limit")
