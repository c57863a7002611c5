"""``pipeline-schedule``: the order of forwards and backwards of M microbatches on each stage of
a planned synchronous pipeline (spec ``pipeline.md`` (b); docs ``docs/pipeline_schedule.md``).

The checker is the exact event simulator :mod:`optsched.pipeline.schedule_sim`. Methods:
``gpipe``, ``1f1b``, ``kfkb`` (public schedules), ``list`` (optsched's list scheduler), ``milp``
(exact, small), ``brute`` (exact, tiny). Ada-Grouper under bandwidth preemption:
:mod:`.adagrouper`.
"""

from __future__ import annotations

from optsched.core.registry import Option, Problem, register_problem

from . import algorithms
from .algorithms import BRUTE_MAX_ORDERS, brute_order_count, build_model
from .generate import PRESETS, from_plan, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelineScheduleInstance, check

__all__ = ["PipelineScheduleInstance", "PROBLEM", "generate", "from_plan", "check", "build_model"]

PROBLEM = register_problem(Problem(
    name="pipeline-schedule",
    title="synchronous microbatch scheduling (per-stage order of forwards and backwards)",
    sense="min",
    instance_type=PipelineScheduleInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="pipeline.md (b) pipeline-schedule",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "stages": Option(int, 4, "number of stages K"),
        "microbatches": Option(int, 8, "microbatches per iteration M"),
        "heterogeneity": Option(float, 0.5, "forward times uniform in [1 - h, 1 + h] s"),
        "transfer": Option(float, 0.2, "mean transfer delay as a fraction of the mean forward"),
        "allreduce": Option(float, 0.0, "all-reduce of a replicated stage as a fraction of its F + B"),
        "cap": Option(str, "none", "in-flight cap: none, 1f1b (K - k) or an integer"),
        "plan": Option(str, "", "a pipeline-partition instance file (with --plan-result)"),
        "plan_result": Option(str, "", "a pipeline-partition result or solution file for --plan"),
        "profile": Option(str, "", "plan this profile file with pipeline-partition (empty + --topology: "
                                   "a random chain)"),
        "topology": Option(str, "", "device topology preset for --profile (default nvlink:4)"),
    },
    build_model=build_model,
    default_method="list",
    reference_method=("milp", "brute"),
    tiny_instances=tiny_instance,
))

PROBLEM.method("gpipe", kind="baseline", fidelity="paper",
               summary="GPipe: all forwards, then all backwards (reverse order); peak in flight M"
               )(algorithms.gpipe)
PROBLEM.method("1f1b", kind="baseline", fidelity="code",
               summary="1F1B / PipeDream-Flush: K-1-k warm-up forwards, alternate, drain"
               )(algorithms.one_f_one_b)
PROBLEM.method("kfkb", kind="baseline", fidelity="reconstruction",
               summary="kFkB: 1F1B on groups of group_size microbatches (Ada-Grouper's family)",
               options={"group_size": Option(int, 2, "microbatches per group (>= 1; 1 is 1F1B)")},
               )(algorithms.kfkb)
PROBLEM.method("list", kind="heuristic", fidelity="ours",
               summary="non-delay list scheduling, ties: feed a starving next stage, else backward; caps kept; bound = LB"
               )(algorithms.list_schedule)
PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="disjunctive big-M MILP of the minimum makespan (small instances)"
               )(algorithms.milp)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"simulate every per-stage order (at most {BRUTE_MAX_ORDERS} combinations; tests)",
               applicable=lambda inst: (brute_order_count(inst) <= BRUTE_MAX_ORDERS,
                                        f"{brute_order_count(inst)} order combinations, brute enumerates at "
                                        f"most {BRUTE_MAX_ORDERS}"),
               )(algorithms.brute)
