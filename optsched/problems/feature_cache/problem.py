"""Registration of ``feature-cache``."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, import_planetoid_cache, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, FeatureCacheInstance, check

PROBLEM = register_problem(Problem(
    name="feature-cache",
    title="GNN feature cache over a fixed read sequence (BGL)",
    sense="min",
    instance_type=FeatureCacheInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/feature_cache/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "nodes": Option(int, 500, "graph nodes", bounds=Interval(1, 1_000_000)),
        "train_fraction": Option(float, 0.2, "fraction of nodes that are training seeds", bounds=Interval(0, 1, closed="right")),
        "batch_size": Option(int, 16, "seeds per mini-batch", bounds=Interval(1, 1_000_000)),
        "cache_fraction": Option(float, 0.1, "capacity as a fraction of the nodes", bounds=Interval(0, 1)),
        "order": Option(str, "proximity", "seed order: random or proximity (BFS)"),
        "fanouts": Option(tuple, (5, 3), "neighbours sampled per hop, e.g. [5, 3]", items=Interval(1, 1000)),
        "mean_degree": Option(float, 6.0, "Chung-Lu mean degree", bounds=Interval(0, 100, closed="right")),
    },
    importers={"planetoid-cache": import_planetoid_cache},
    default_method="fifo",
    reference_method="min",
    tiny_instances=tiny_instances,
))
