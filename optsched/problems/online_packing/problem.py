"""The ``online-packing`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .algorithms import build_model
from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, OnlinePackingInstance, check

PROBLEM = register_problem(Problem(
    name="online-packing",
    title="online pricing of several resources with multi-dimensional demands (welfare)",
    sense="max",
    instance_type=OnlinePackingInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/online_packing/README.md#online-packing",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "requests": Option(int, 40, "number of requests n", bounds=Interval(1, 500_000)),
        "resources": Option(int, 2, "number of resources m", bounds=Interval(1, 1_000)),
        "lower": Option(float, 1.0, "smallest value density L (> 0)", bounds=Interval(0, 1e9, closed="right")),
        "upper": Option(float, 16.0, "largest value density U (>= L)", bounds=Interval(0, 1e9, closed="right")),
        "eps": Option(float, 0.1, "largest demand of one resource, in (0, 1]", bounds=Interval(0, 1, closed="right")),
        "density": Option(float, 0.6, "probability that a request uses a given resource", bounds=Interval(0, 1, closed="right")),
        "values": Option(str, "log-uniform", "value shape: log-uniform or increasing"),
    },
    build_model=build_model,
    default_method="milp",
    reference_method="milp",
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
))
