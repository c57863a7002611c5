"""The ``rar-makespan`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, load_gavel_rar, load_tiresias_rar
from .instance import (
    OBJECTIVE,
    SOLUTION_SCHEMA,
    RarMakespanInstance,
    check,
)
from .model import build_model

PROBLEM = register_problem(Problem(
    name="rar-makespan",
    title="ring-all-reduce batch makespan under communication contention (SJF-BCO)",
    sense="min",
    instance_type=RarMakespanInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/rar_makespan/README.md#rar-makespan",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs (mix uniform)", bounds=Interval(1, 100_000)),
        "servers": Option(int, 3, "number of servers", bounds=Interval(1, 100_000)),
        "gpu_choices": Option(str, "2,4", "GPU counts a server is drawn from, comma separated"),
        "mix": Option(str, "uniform", "job GPU mix: uniform | mobihoc (the paper's 160 jobs)"),
        "max_job_gpus": Option(int, 32, "largest job (mix uniform)", bounds=Interval(1, 100_000)),
        "iterations_low": Option(int, 1000, "fewest iterations F_j", bounds=Interval(1, 1_000_000_000)),
        "iterations_high": Option(int, 6000, "most iterations F_j", bounds=Interval(1, 1_000_000_000)),
        "tau_low": Option(float, 0.01, "shortest fastest-placement iteration time (fraction of a slot)", bounds=Interval(0, 1000, closed="right")),
        "tau_high": Option(float, 0.05, "longest fastest-placement iteration time (fraction of a slot)", bounds=Interval(0, 1000, closed="right")),
        "estimate_error": Option(float, 0.0, "e: l = 1 - e, u = 1 + e, rho_hat = rho U[l, u]", bounds=Interval(0, 1, closed="left")),
        "horizon": Option(int, 1200, "T, the upper end of SJF-BCO's bisection (slots)", bounds=Interval(1, 10_000_000)),
        "slowdown_budget": Option(float, 0.15, "worst-case contention + overhead slowdown (xi calibration)", bounds=Interval(0, 100)),
    },
    importers={"gavel-trace-rar": load_gavel_rar, "tiresias-rar": load_tiresias_rar},
    build_model=build_model,
    default_method="sjf-bco",
    reference_method=("brute", "milp"),   # milp is the contention-free bound
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    # small 8 and the 8-job mixes: SJF-BCO's choice of kappa and of the least busy GPUs matter there
    quality=QualitySet(("brute", "milp"), quality_cases([("tiny", range(4)), ("small", (0, 1, 2, 3, 8))])
                       + quality_cases([("small", (0, 1))], jobs=8, gpu_choices="1,2,4", max_job_gpus=4),
                       notes="brute (exact) where it applies, else milp: the contention-free lower bound"),
))

