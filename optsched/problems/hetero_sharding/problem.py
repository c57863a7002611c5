"""The ``hetero-sharding`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, import_operator_graph, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, HeteroShardingInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="hetero-sharding",
    title="HAP: SPMD program and sharding ratios on heterogeneous devices",
    sense="min",
    instance_type=HeteroShardingInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/hetero_sharding/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "template": Option(str, "random", "'random' or 'transformer' (HAP's config.py)"),
        "devices": Option(int, 4, "number of devices (random; transformer without --gpus)", bounds=Interval(1, 1_024)),
        "stages": Option(int, 8, "stages of a random program", bounds=Interval(1, 10_000)),
        "max_options": Option(int, 3, "options per stage of a random program (1..this)", bounds=Interval(1, 1_000)),
        "segments": Option(int, 2, "ratio segments of a random program", bounds=Interval(1, 10_000)),
        "segment_length": Option(int, 16, "length of each random segment (integer shard sizes)", bounds=Interval(1, 100_000)),
        "speed_ratio": Option(float, 4.0, "fastest / slowest device FLOP/s of a random cluster (at most)", bounds=Interval(1, 1e6)),
        "gpus": Option(str, "", "transformer: Gavel GPU types, e.g. v100:4,k80:4 (needs the data)"),
        "layers": Option(int, 12, "transformer layers", bounds=Interval(1, 10_000)),
    },
    importers={"dnn-partitioning-hap": import_operator_graph},
    build_model=build_model,
    default_method="milp",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
