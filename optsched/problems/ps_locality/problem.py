"""The ``ps-locality`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PsLocalityInstance, check
from .model import build_ip
from .trace import load_philly_trace

PROBLEM = register_problem(Problem(
    name="ps-locality",
    title="worker/PS placement with locality: mixed packing-covering IP and randomized rounding",
    sense="min",
    instance_type=PsLocalityInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/ps_locality/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs", bounds=Interval(1, 100_000)),
        "machines": Option(int, 3, "number of identical machines", bounds=Interval(1, 10_000)),
        "gpus_per_machine": Option(int, 4, "GPUs per machine (CPUs 6x, memory 32 GB x that)", bounds=Interval(1, 1_024)),
        "max_workers": Option(int, 4, "largest max_workers of a job", bounds=Interval(1, 1_024)),
        "min_workers": Option(int, 1, "smallest max_workers of a job", bounds=Interval(1, 1_024)),
        "job_slots": Option(int, 4, "longest solo co-located duration of a job (slots)", bounds=Interval(1, 10_000)),
        "load": Option(float, 1.5, "offered load (GPU-slots asked / available over the arrival span)", bounds=Interval(0, 100, closed="right")),
        "bandwidth_ex": Option(float, 6000.0, "bandwidth between machines (MB per slot)", bounds=Interval(0, 1e12, closed="right")),
        "bandwidth_ratio": Option(float, 8.0, "bandwidth_in / bandwidth_ex", bounds=Interval(0, 1e6, closed="right")),
        "horizon_slots": Option(int, 0, "horizon (0: the longer baseline makespan + 1)", bounds=Interval(0, 1_000_000)),
    },
    importers={"gavel-trace-ps": load_philly_trace},
    build_model=build_ip,
    default_method="milp",
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    # small 4, 5 and 8: rr's repair order (latest sampled completion loses workers) matters there
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("small", (0, 1, 2, 4, 5, 8))])),
))

