"""The ``commit-rate`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
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
    spec="optsched/problems/commit_rate/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "workers": Option(int, 6, "workers", bounds=Interval(1, 256)),
        "heterogeneity": Option(float, 5.0, "slowest / fastest step time", bounds=Interval(1, 1000)),
        "model": Option(str, "least-squares", "least-squares (convex) or mlp (non-convex)"),
        "base_step": Option(float, 0.46, "fastest worker's seconds per step", bounds=Interval(0.001, 1000)),
        
        "horizon": Option(float, 1800.0, "simulated seconds before censoring", bounds=Interval(0, 1e5, closed="right")),
        "max_commits": Option(int, 8, "bandwidth cap on C per period", bounds=Interval(1, 1_000)),
        "features": Option(int, 20, "least-squares features", bounds=Interval(1, 10_000)),
        "samples": Option(int, None, "training samples (null: the model's default)", nullable=True, bounds=Interval(1, 1_000_000)),
        "hidden": Option(int, 8, "hidden units of the mlp model", bounds=Interval(1, 4_096)),
        "noise": Option(float, 0.3, "label noise", bounds=Interval(0, 100)),
        "local_lr": Option(float, None, "local learning rate (null: the model's default)", nullable=True, bounds=Interval(0, 100, closed="right")),
        "batch": Option(int, 8, "samples per local step", bounds=Interval(1, 100_000)),
        "target_fraction": Option(float, None, "target loss as a fraction of the initial one (null: the default)", nullable=True, bounds=Interval(0, 1, closed="right")),
        "period": Option(float, 60.0, "seconds per commit-rate check period", bounds=Interval(0, 1e5, closed="right")),
        "min_interval": Option(float, 10.0, "shortest seconds between two commits", bounds=Interval(0, 1e5)),
        "momentum": Option(float, 0.0, "momentum of the local optimizer", bounds=Interval(0, 1, closed="left")),
    },
    default_method="adsp-search",
    reference_method=None,
    tiny_instances=tiny_instances,
))
