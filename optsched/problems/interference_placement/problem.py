"""The ``interference-placement`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, load_gavel_snapshot, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PlacementInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="interference-placement",
    title="interference-aware gang placement snapshot (JCT proxy)",
    sense="min",
    instance_type=PlacementInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/interference_placement/README.md#snapshot",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 8, "waiting jobs", bounds=Interval(1, 100_000)),
        "servers": Option(int, 4, "servers", bounds=Interval(1, 100_000)),
        "gpus_per_server": Option(int, 4, "GPUs per server (free GPUs drawn in [g/2, g])", bounds=Interval(1, 1_024)),
        "types": Option(int, 5, "job types of the synthetic interference table", bounds=Interval(1, 1_000)),
        "residents": Option(int, 2, "running jobs that stay (one server each)", bounds=Interval(0, 100_000)),
        "spread_penalty": Option(float, 0.2, "gamma: relative slowdown per extra server", bounds=Interval(0, 100)),
        "forbid": Option(float, 0.1, "fraction of type pairs that cannot co-locate", bounds=Interval(0, 1, closed="left")),
        "reject_factor": Option(float, 4.0, "reject_cost = factor x largest job weight", bounds=Interval(0, 1e6, closed="right")),
    },
    importers={"gavel-snapshot": load_gavel_snapshot},
    build_model=build_model,
    default_method="milp",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
