"""The ``commit-rate`` problem record."""

from __future__ import annotations

from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, CommitRateInstance, check

PROBLEM = register_problem(Problem(
    name="commit-rate",
    title="commit-rate control of heterogeneous asynchronous workers (ADSP)",
    sense="min",
    instance_type=CommitRateInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="wave2.md section 5 (ADSP)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "workers": Option(int, 6, "workers"),
        "heterogeneity": Option(float, 5.0, "slowest / fastest step time"),
        "model": Option(str, "least-squares", "least-squares (convex) or mlp (non-convex)"),
        "base_step": Option(float, 0.46, "fastest worker's seconds per step"),
        
        "horizon": Option(float, 1800.0, "simulated seconds before censoring"),
        "max_commits": Option(int, 8, "bandwidth cap on C per period"),
    },
    default_method="adsp-search",
    reference_method=None,
    tiny_instances=tiny_instances,
))
