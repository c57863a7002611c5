"""The ``pipeline-schedule`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem
from optsched.pipeline.partition.instance import FORMAT as PLAN_FORMAT

from .algorithms import build_model
from .generate import PRESETS, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelineScheduleInstance, check

PROBLEM = register_problem(Problem(
    name="pipeline-schedule",
    title="synchronous microbatch scheduling (per-stage order of forwards and backwards)",
    sense="min",
    instance_type=PipelineScheduleInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/pipeline_schedule/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "stages": Option(int, 4, "number of stages K", bounds=Interval(1, 1_024)),
        "microbatches": Option(int, 8, "microbatches per iteration M", bounds=Interval(1, 16_384)),
        "heterogeneity": Option(float, 0.5, "forward times uniform in [1 - h, 1 + h] s", bounds=Interval(0, 1, closed="left")),
        "transfer": Option(float, 0.2, "mean transfer delay as a fraction of the mean forward", bounds=Interval(0, 1000)),
        "allreduce": Option(float, 0.0, "all-reduce of a replicated stage as a fraction of its F + B", bounds=Interval(0, 1000)),
        "cap": Option(str, "none", "in-flight cap: none, 1f1b (K - k) or an integer"),
        "plan": Option(str, "", f"a {PLAN_FORMAT} instance file (with --plan-result)"),
        "plan_result": Option(str, "", f"a {PLAN_FORMAT} result or solution file for --plan"),
        "profile": Option(str, "", f"plan this profile file with {PLAN_FORMAT} (empty + --topology: "
                                   "a random chain)"),
        "topology": Option(str, "", "device topology preset for --profile (default nvlink:4)"),
    },
    build_model=build_model,
    default_method="list",
    reference_method=("milp", "brute"),
    tiny_instances=tiny_instance,
    quality=QualitySet(("milp",), quality_cases([("hetero-small", range(4))])
                       + quality_cases([("hetero-small", range(4))], cap="none")),
))

