"""The ``interference-online`` problem record."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, load_gavel_online, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, OnlineInstance, check

PROBLEM = register_problem(Problem(
    name="interference-online",
    title="online interference-aware job placement (average JCT)",
    sense="min",
    instance_type=OnlineInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/interference_online/README.md#online",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 40, "jobs in the stream", bounds=Interval(1, 100_000)),
        "servers": Option(int, 8, "servers", bounds=Interval(1, 100_000)),
        "gpus_per_server": Option(int, 4, "GPUs per server", bounds=Interval(1, 1_024)),
        "servers_per_group": Option(int, 2, "servers per agent group", bounds=Interval(1, 100_000)),
        "types": Option(int, 6, "job types of the synthetic interference table", bounds=Interval(1, 1_000)),
        "load": Option(float, 0.8, "offered GPU utilization", bounds=Interval(0, 100, closed="right")),
        "spread_penalty": Option(float, 0.2, "gamma: relative slowdown per extra server", bounds=Interval(0, 100)),
        "forbid": Option(float, 0.1, "fraction of type pairs that cannot co-locate", bounds=Interval(0, 1, closed="left")),
        "sizes": Option(tuple, (1, 2, 4, 8), "GPU demands a job may have (sizes above the cluster are dropped)",
                        items=Interval(1, 1_000_000)),
        "size_probs": Option(tuple, (0.6, 0.2, 0.15, 0.05), "probability of each size (renormalized)",
                             item_type=float, items=Interval(0, 1)),
        "runtime": Option(tuple, (600.0, 36000.0), "isolated run time range (lo, hi) in seconds, log-uniform",
                          item_type=float, items=Interval(0, 1e9, closed="right")),
        "table": Option(tuple, None, "interference table (API: rows of slowdowns per type pair; null: synthetic)", nullable=True),
    },
    importers={"gavel-online": load_gavel_online},
    default_method="least-interference",
    reference_method=("bb", "lb"),   # bb: the best decision-instant schedule on small streams; lb beyond
    tiny_instances=tiny_instances,
))
