"""Registration of ``stage-cores``."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, StageCoresInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="stage-cores",
    title="CPU cores per GNN preprocessing stage (BGL resource isolation)",
    sense="max",
    instance_type=StageCoresInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/stage_cores/README.md#stage-cores",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "cores": Option(int, 32, "CPU cores C", bounds=Interval(1, 100_000)),
        "stages": Option(int, 3, "number of stages", bounds=Interval(1, 10_000)),
        "spread": Option(float, 8.0, "ratio between the fastest and slowest per-core rate", bounds=Interval(1, 1e6)),
    },
    build_model=build_model,
    default_method="greedy",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
