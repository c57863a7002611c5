"""Benchmark of the joint MILP (slow; measured, not asserted).

The joint MILP on a 1-layer HAP transformer (5 stages x 3 options, 8 devices); reference in the
same run: HAP's alternation on the same instance (one LP per round).
"""

from __future__ import annotations

import pytest

import optsched
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
