"""The ``dag-pipeline`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, import_operator_graph, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, DagPipelineInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="dag-pipeline",
    title="Rhino: pipeline stages of a DAG (cut bytes, balance budget; bottleneck and sync estimate)",
    sense="min",
    instance_type=DagPipelineInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/dag_pipeline/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "nodes": Option(int, 20, "operators", bounds=Interval(1, 100_000)),
        "stages": Option(int, 4, "pipeline stages K", bounds=Interval(1, 10_000)),
        "shape": Option(str, "dag", "'dag' (layered random DAG) or 'chain'"),
        "objective": Option(str, "bottleneck", "cut-bytes, bottleneck or sync-estimate"),
        "balance_percent": Option(float, -1.0, "per-stage compute budget slack in percent (< 0: none; Rhino: 8)", bounds=Interval(-100, 1e4)),
        "bandwidth": Option(float, 1e9, "bytes/s between consecutive stages", bounds=Interval(0, 1e15, closed="right")),
        "microbatches": Option(int, 8, "microbatches M (sync-estimate)", bounds=Interval(1, 100_000)),
        "width": Option(int, 3, "most nodes per layer of a random DAG", bounds=Interval(1, 100_000)),
    },
    importers={"dnn-partitioning-stages": import_operator_graph},
    build_model=build_model,
    default_method="milp",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
