"""Registration of ``graph-partition``."""

from __future__ import annotations

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
    spec="wave2.md §3 (a)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "nodes": Option(int, 100, "number of nodes"),
        "parts": Option(int, 2, "number of parts K"),
        "mean_degree": Option(float, 4.0, "Chung-Lu mean degree"),
        "train_fraction": Option(float, 0.2, "fraction of nodes that are training seeds"),
        "eps": Option(float, 0.1, "balance tolerance of both rows"),
    },
    importers={"planetoid-graph": import_planetoid, "edge-list": import_edge_list},
    build_model=build_model,
    default_method="auto",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
