"""Benchmark of the stage MILP (slow; measured, not asserted).

The stage MILP (bottleneck) on a 96-node random DAG with K = 4; reference in the same run: the
topological-order DP on the same instance.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.dag_pipeline import generate as dag_generate


@pytest.mark.slow
@pytest.mark.benchmark
def test_dag_stage_milp_96_nodes(benchmark):
    inst = dag_generate(0, nodes=96, stages=4, objective="bottleneck")
    reference = optsched.solve(inst, "order-dp")
    result = benchmark.pedantic(optsched.solve, args=(inst, "milp"), kwargs={"time_limit": 300}, rounds=1,
                                iterations=1)
    assert result.objective <= reference.objective * (1 + 1e-6)
    benchmark.extra_info.update(milp_s=result.wall_s, order_dp_s=reference.wall_s, status=result.status,
                                ratio_to_reference=result.wall_s / max(reference.wall_s, 1e-9))
