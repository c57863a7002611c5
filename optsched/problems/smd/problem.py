"""The ``smd`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .algorithms import (
    build_model,
)
from .generate import PRESETS, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, SmdInstance, check

PROBLEM = register_problem(Problem(
    name="smd",
    title="PS resource allocation: weighted completion time from layer profiles (sum of ratios, MC-MKP)",
    sense="min",
    instance_type=SmdInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/smd/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs", bounds=Interval(1, 20_000)),
        "max_workers": Option(int, 4, "workers per job: 1..max_workers", bounds=Interval(1, 10_000)),
        "max_parameter_servers": Option(int, 3, "parameter servers per job: 1..max_parameter_servers", bounds=Interval(1, 10_000)),
        "layers": Option(int, 8, "synthetic profiles: at most this many layers per job", bounds=Interval(1, 10_000)),
        "resources": Option(int, 2, "resource types: the first of gpu, cpu, memory_gb", bounds=Interval(1, 3)),
        "tightness": Option(float, 0.5, "capacity as a fraction of the demand of each job's best configuration", bounds=Interval(0, 100, closed="right")),
        "non_deferrable": Option(float, 0.0, "fraction of jobs that may not be deferred", bounds=Interval(0, 1)),
        "round_length": Option(float, 3600.0, "seconds; default defer cost = round_length + JCT(1, 1)", bounds=Interval(0, 1e9, closed="right")),
        "profiles": Option(str, "synthetic", "'synthetic' or a models/ directory (or .json file) of DNN profiles"),
    },
    build_model=build_model,
    default_method="milp",
    reference_method=("milp", "brute"),
    tiny_instances=tiny_instance,
    # smd-small 118: the greedy polish of the inner solutions changes the outer loop's value there
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("smd-small", (0, 1, 2, 3, 4, 5, 118))])),
))

