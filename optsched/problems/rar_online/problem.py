"""The ``rar-online`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, load_gavel_online
from .instance import (
    OBJECTIVE,
    SOLUTION_SCHEMA,
    RarOnlineInstance,
    check,
)
from .model import (
    build_model,
)

PROBLEM = register_problem(Problem(
    name="rar-online",
    title="online elastic ring-all-reduce scheduling with utilities (GADGET-style)",
    sense="max",
    instance_type=RarOnlineInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/rar_online/README.md#rar-online",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs", bounds=Interval(1, 50_000)),
        "servers": Option(int, 3, "number of servers", bounds=Interval(1, 10_000)),
        "gpus_per_server": Option(int, 4, "GPUs per server", bounds=Interval(1, 1_024)),
        "horizon": Option(int, 10, "T (slots)", bounds=Interval(1, 100_000)),
        "max_workers": Option(int, 4, "largest Wmax_j", bounds=Interval(1, 1_024)),
        "objective": Option(str, "utility", "utility | energy | fairness"),
        "energy_price": Option(float, 0.0, "price per GPU-slot (objective energy)", bounds=Interval(0, 1e9)),
        "fairness_u0": Option(float, 1.0, "u0 of log(u0 + U_j) (objective fairness)", bounds=Interval(0, 1e9, closed="right")),
        "arrival_span": Option(float, 0.5, "arrivals uniform over this fraction of the horizon", bounds=Interval(0, 1)),
        "reserve_fractions": Option(str, "0.25,0.5", "r_j / uplink drawn from these, comma separated"),
        "slot_s": Option(float, 60.0, "slot length (s)", bounds=Interval(0, 1e6, closed="right")),
        "network": Option(str, "flat", "flat (server uplinks) | tree (servers under racks, rack links to a core)"),
        "racks": Option(int, 2, "racks of the tree network", bounds=Interval(1, 10_000)),
    },
    importers={"gavel-trace-online": load_gavel_online},
    build_model=build_model,
    default_method="gadget",
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    # energy objective (a positive price per GPU-slot): GADGET must turn down jobs of negative value
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("small", range(4))])
                       + quality_cases([("small", (0, 1))], objective="energy", energy_price=0.5)),
))

