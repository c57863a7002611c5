"""The ``srpt`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, load_gavel_stream
from .instance import OBJECTIVE, SOLUTION_SCHEMA, SrptInstance, check

PROBLEM = register_problem(Problem(
    name="srpt",
    title="online DL job scheduling with predictions (total flow time)",
    sense="min",
    instance_type=SrptInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/srpt/README.md#srpt",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 40, "number of jobs in the stream", bounds=Interval(1, 100_000)),
        "servers": Option(int, 4, "number of servers", bounds=Interval(1, 65_536)),
        "gpus_per_server": Option(int, 8, "GPUs per server", bounds=Interval(1, 1_024)),
        "load": Option(float, 0.8, "offered GPU utilization (sets the Poisson arrival rate)", bounds=Interval(0, 100, closed="right")),
        "recurrences": Option(int, 10, "number of recurring job kinds", bounds=Interval(1, 10_000)),
        "history_runs": Option(int, 8, "past runs per kind (the predictor's training set)", bounds=Interval(1, 10_000)),
        "noise": Option(float, 0.3, "log-normal spread of a kind's run lengths", bounds=Interval(0, 10)),
        "plans": Option(str, "mixed", "parallel plans: mixed, data, pipeline or tensor"),
        "predictor": Option(str, "forest", "forest (random forest on the history) or oracle (truth)"),
        "restart_overhead": Option(float, 30.0, "seconds without progress after each restart", bounds=Interval(0, 1e9)),
        "intra_bandwidth": Option(float, 1e11, "intra-server bandwidth, bytes/s", bounds=Interval(0, 1e15, closed="right")),
        "inter_bandwidth": Option(float, 1.25e9, "inter-server bandwidth, bytes/s", bounds=Interval(0, 1e15, closed="right")),
    },
    importers={"gavel-srpt": load_gavel_stream},
    default_method="a-srpt",
    reference_method=("milp", "lb"),   # the exact method on streams of <= 12 jobs, else the proven lower bound
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    quality=QualitySet(("lb",), quality_cases([("tiny", range(6)), ("small", range(2))]),
                       notes="ratios are to the proven lower bound 'lb' (the exact 'milp' applies to streams of <= 12 jobs and "
                             "does not prove every one of them within a time limit)"),
))

