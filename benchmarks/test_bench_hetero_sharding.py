"""Benchmarks of hetero-sharding and dag-pipeline (slow; measured, not asserted).

hetero-sharding: the joint MILP on a 1-layer HAP transformer (5 stages x 3 options, 8 devices);
reference in the same run: HAP's alternation on the same instance (one LP per round).
dag-pipeline: the stage MILP (bottleneck) on a 96-node random DAG with K = 4; reference: the
topological-order DP on the same instance.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.dag_pipeline import generate as dag_generate
from optsched.problems.hetero_sharding import transformer_program


@pytest.mark.slow
@pytest.mark.benchmark
def test_hetero_joint_milp_transformer_layer(benchmark):
    inst = transformer_program([5.97e12] * 4 + [1.2e12] * 4, layers=1)
    reference = optsched.solve(inst, "alternate")
    result = benchmark.pedantic(optsched.solve, args=(inst, "milp"), rounds=1, iterations=1)
    assert result.status == "optimal" and result.objective <= reference.objective * (1 + 1e-6)
    benchmark.extra_info.update(milp_s=result.wall_s, alternate_s=reference.wall_s,
                                ratio_to_reference=result.wall_s / max(reference.wall_s, 1e-9))


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
