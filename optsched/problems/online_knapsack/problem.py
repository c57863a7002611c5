"""The ``online-knapsack`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .algorithms import build_model
from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, OnlineKnapsackInstance, check

PROBLEM = register_problem(Problem(
    name="online-knapsack",
    title="online knapsack pricing of one resource (welfare)",
    sense="max",
    instance_type=OnlineKnapsackInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/online_knapsack/README.md#online-knapsack",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "requests": Option(int, 60, "number of requests n", bounds=Interval(1, 1_000_000)),
        "lower": Option(float, 1.0, "smallest unit value L (> 0)", bounds=Interval(0, 1e9, closed="right")),
        "upper": Option(float, 16.0, "largest unit value U (>= L)", bounds=Interval(0, 1e9, closed="right")),
        "eps": Option(float, 0.05, "largest demand eps, in (0, 1]", bounds=Interval(0, 1, closed="right")),
        "values": Option(str, "log-uniform", "value shape: log-uniform, uniform or increasing"),
    },
    build_model=build_model,
    default_method="milp",
    reference_method=("milp", "brute"),
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("small", range(4)),
                                                ("increasing", range(2))])),
))

