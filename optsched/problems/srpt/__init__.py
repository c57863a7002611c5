"""``srpt``: online scheduling of DL jobs with predictions (A-SRPT; spec ``online.md``, first part).

A GPU cluster receives jobs with job graphs (rings, chains, grids), true and predicted iteration
counts; the objective is total flow time. Methods: ``a-srpt`` (online, reconstruction),
baselines ``fifo``, ``sjf-oracle``, ``tiresias-las`` (each with heuristic or random placement),
and the lower bound ``lb`` (kind ``bound``). No exact method: see ``docs/online.md#srpt``.
"""

from __future__ import annotations

from optsched.core.registry import Option, Problem, register_problem

from . import algorithms
from .generate import PRESETS, generate, load_gavel_stream
from .instance import OBJECTIVE, SOLUTION_SCHEMA, SrptInstance, SrptJob, check

__all__ = ["SrptInstance", "SrptJob", "PROBLEM", "generate", "load_gavel_stream", "check"]

PROBLEM = register_problem(Problem(
    name="srpt",
    title="online DL job scheduling with predictions (total flow time)",
    sense="min",
    instance_type=SrptInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="online.md (A-SRPT)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 40, "number of jobs in the stream"),
        "servers": Option(int, 4, "number of servers"),
        "gpus_per_server": Option(int, 8, "GPUs per server"),
        "load": Option(float, 0.8, "offered GPU utilization (sets the Poisson arrival rate)"),
        "recurrences": Option(int, 10, "number of recurring job kinds"),
        "history_runs": Option(int, 8, "past runs per kind (the predictor's training set)"),
        "noise": Option(float, 0.3, "log-normal spread of a kind's run lengths"),
        "plans": Option(str, "mixed", "parallel plans: mixed, data, pipeline or tensor"),
        "predictor": Option(str, "forest", "forest (random forest on the history) or oracle (truth)"),
        "restart_overhead": Option(float, 30.0, "seconds without progress after each restart"),
        "intra_bandwidth": Option(float, 1e11, "intra-server bandwidth, bytes/s"),
        "inter_bandwidth": Option(float, 1.25e9, "inter-server bandwidth, bytes/s"),
    },
    importers={"gavel-srpt": load_gavel_stream},
    default_method="a-srpt",
    reference_method="lb",   # no exact method: the proven lower bound
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
))

_PLACEMENT = Option(str, "heuristic", "heuristic (greedy + Kernighan-Lin), random, or milp (exact; small graphs)")

PROBLEM.method("a-srpt", kind="online", fidelity="reconstruction",
               summary="virtual single-machine SRPT order on predicted sizes + min-cut placement, preemptive",
               options={"placement": _PLACEMENT, "preemption": Option(bool, True, "preempt per the virtual order")},
               randomized=True)(algorithms.a_srpt)
PROBLEM.method("fifo", kind="baseline", fidelity="ours", summary="first come first served, head-of-line blocking",
               options={"placement": _PLACEMENT}, randomized=True)(algorithms.fifo)
PROBLEM.method("sjf-oracle", kind="baseline", fidelity="ours",
               summary="shortest true size first, backfilling, non-preemptive (reads true sizes)",
               options={"placement": _PLACEMENT}, randomized=True)(algorithms.sjf_oracle)
PROBLEM.method("tiresias-las", kind="baseline", fidelity="ours",
               summary="discretized 2D least attained service (GPU-seconds queues), preemptive",
               options={"placement": _PLACEMENT,
                        "queue_thresholds": Option(str, "3600,36000", "queue limits in attained GPU-seconds"),
                        "tick_s": Option(float, 300.0, "seconds between re-evaluations")},
               randomized=True)(algorithms.tiresias_las)
PROBLEM.method("lb", kind="bound", fidelity="ours",
               summary="max(virtual-machine SRPT flow with true sizes, sum of isolated run times)",
               )(algorithms.lower_bound)
