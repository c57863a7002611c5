"""The ``intra-op`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import (
    PRESETS,
    detect_iopddl,
    export_iopddl_solution,
    generate,
    load_iopddl,
    tiny_instances,
)
from .instance import OBJECTIVE, SOLUTION_SCHEMA, IntraOpInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="intra-op",
    title="intra-operator sharding (one strategy per op; OneFlow SBP, IOPDDL)",
    sense="min",
    instance_type=IntraOpInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/intra_op/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "graph": Option(str, "transformer", "tiny | transformer | random-sp | random | an operator-graph file"),
        "layers": Option(int, 1, "transformer blocks", bounds=Interval(1, 1_000)),
        "hidden": Option(int, 1024, "hidden size", bounds=Interval(1, 1_048_576)),
        "tokens": Option(int, 4096, "tokens per batch (batch x sequence)", bounds=Interval(1, 1_073_741_824)),
        "mesh": Option(str, "4", "device mesh: P or P1xP2"),
        "nodes": Option(int, 12, "nodes of a random graph", bounds=Interval(1, 100_000)),
        "strategies": Option(int, 4, "most strategies per node of a random graph", bounds=Interval(1, 1_000)),
        "memory_ratio": Option(float, 1.1, "memory limit / peak of the least-memory plan", bounds=Interval(0, 1000, closed="right")),
    },
    importers={"iopddl": load_iopddl},
    direct_formats={"iopddl": detect_iopddl},   # solve/check/export read a contest file as it is
    solution_exporters={"iopddl": export_iopddl_solution},
    build_model=build_model,
    default_method="anytime",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
