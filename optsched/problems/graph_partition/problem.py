"""Registration of ``graph-partition``."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, import_edge_list, import_planetoid, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, GraphPartitionInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="graph-partition",
    title="sampling-locality graph partition (BGL)",
    sense="min",
    instance_type=GraphPartitionInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/graph_partition/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "nodes": Option(int, 100, "number of nodes", bounds=Interval(1, 500_000)),
        "parts": Option(int, 2, "number of parts K", bounds=Interval(1, 100_000)),
        "mean_degree": Option(float, 4.0, "Chung-Lu mean degree", bounds=Interval(0, 100, closed="right")),
        "train_fraction": Option(float, 0.2, "fraction of nodes that are training seeds", bounds=Interval(0, 1, closed="right")),
        "eps": Option(float, 0.1, "balance tolerance of both rows", bounds=Interval(0, 10)),
        "fanouts": Option(tuple, (10, 5), "neighbours sampled per hop, e.g. [10, 5]", items=Interval(1, 1000)),
        "exponent": Option(float, 2.5, "power-law exponent of the Chung-Lu degrees", bounds=Interval(1, 100, closed="right")),
    },
    importers={"planetoid-graph": import_planetoid, "edge-list": import_edge_list},
    build_model=build_model,
    default_method="auto",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
