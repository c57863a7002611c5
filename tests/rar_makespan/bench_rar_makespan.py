"""Benchmark of ``sjf-bco`` (issue 8 target; time reported, not asserted).

``sjf-bco`` on the MobiHoc'22 setup (160 jobs, 20 servers; target under 30 s). Reported beside
``ls`` on the same instance in the same run: ``ls`` is one least-busy pass plus one simulation,
so the ratio is SJF-BCO's cost of bisection and kappa search in units of a single placement pass.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.rar_makespan import PRESETS, generate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mobihoc():
    return generate(0, **PRESETS["mobihoc"])


def test_bench_sjf_bco_mobihoc(benchmark, mobihoc):
    result = benchmark.pedantic(optsched.solve, args=(mobihoc, "sjf-bco"), rounds=3, iterations=1)
    reference = optsched.solve(mobihoc, "ls")
    benchmark.extra_info.update(makespan=result.objective, ls_makespan=reference.objective,
                                sjf_bco_wall_s=result.wall_s, ls_wall_s=reference.wall_s,
                                ratio_to_ls=result.wall_s / reference.wall_s)
    assert result.status == "feasible"
