"""The ``pipeline-adaptive`` problem record: instance type, checker, generators, presets."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelineAdaptiveInstance, check

PROBLEM = register_problem(Problem(
    name="pipeline-adaptive",
    title="kFkB group size per iteration under network preemption (Ada-Grouper)",
    sense="min",
    instance_type=PipelineAdaptiveInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/pipeline_adaptive/README.md#ada-grouper",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "iterations": Option(int, 120, "training iterations", bounds=Interval(1, 100_000)),
        "periods": Option(int, 40, "periods of the preemption trace", bounds=Interval(1, 1_000_000)),
        "period": Option(float, 5.0, "length of a trace period (seconds)", bounds=Interval(0, 1e6, closed="right")),
        "group_sizes": Option(str, "1,2,3,4,6,8", "candidate kFkB group sizes, comma-separated"),
        "switch_cost": Option(float, 0.5, "seconds charged when the group size changes", bounds=Interval(0, 1e6)),
        "bandwidth": Option(float, 1.25e9, "nominal link bandwidth (bytes/s)", bounds=Interval(0, 1e15, closed="right")),
    },
    default_method="ada-grouper",
    reference_method=("brute", "lb"),
    tiny_instances=tiny_instance,
))
