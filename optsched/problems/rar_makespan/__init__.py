"""``rar-makespan``: offline makespan of ring-all-reduce jobs under contention (spec
``ring_allreduce.md``; MobiHoc'22, read in full).

Methods: ``sjf-bco`` [paper] with Theorem 5's bound, baselines ``ff``, ``ls``, ``random`` [paper],
``milp`` (contention-free time-indexed MILP: a lower bound on OPT, kind ``bound``) and ``brute``
(exact over every plan of the solution schema; tiny instances). Docs: ``docs/ring_allreduce.md``.
"""

from __future__ import annotations

from optsched.core.registry import Guarantee, Option, Problem, register_problem

from . import algorithms
from .algorithms import BRUTE_MAX_PLANS, brute_plan_count
from .generate import PRESETS, generate, load_gavel_rar, load_tiresias_rar
from .instance import OBJECTIVE, SOLUTION_SCHEMA, RarJob, RarMakespanInstance, check, simulate
from .milp import MILP_MAX_COLUMNS, build_model, column_count, milp_bound

__all__ = ["RarJob", "RarMakespanInstance", "PROBLEM", "generate", "check", "simulate", "build_model",
           "load_gavel_rar", "load_tiresias_rar", "THEOREM5"]

PROBLEM = register_problem(Problem(
    name="rar-makespan",
    title="ring-all-reduce batch makespan under communication contention (SJF-BCO)",
    sense="min",
    instance_type=RarMakespanInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="ring_allreduce.md (rar-makespan)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs (mix uniform)"),
        "servers": Option(int, 3, "number of servers"),
        "gpu_choices": Option(str, "2,4", "GPU counts a server is drawn from, comma separated"),
        "mix": Option(str, "uniform", "job GPU mix: uniform | mobihoc (the paper's 160 jobs)"),
        "max_job_gpus": Option(int, 32, "largest job (mix uniform)"),
        "iterations_low": Option(int, 1000, "fewest iterations F_j"),
        "iterations_high": Option(int, 6000, "most iterations F_j"),
        "tau_low": Option(float, 0.01, "shortest fastest-placement iteration time (fraction of a slot)"),
        "tau_high": Option(float, 0.05, "longest fastest-placement iteration time (fraction of a slot)"),
        "estimate_error": Option(float, 0.0, "e: l = 1 - e, u = 1 + e, rho_hat = rho U[l, u]"),
        "horizon": Option(int, 1200, "T, the upper end of SJF-BCO's bisection (slots)"),
        "slowdown_budget": Option(float, 0.15, "worst-case contention + overhead slowdown (xi calibration)"),
    },
    importers={"gavel-trace-rar": load_gavel_rar, "tiresias-rar": load_tiresias_rar},
    build_model=build_model,
    default_method="sjf-bco",
    reference_method=("brute", "milp"),   # milp is the contention-free bound
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
))

THEOREM5 = Guarantee(
    form="multiplicative", sense="<=",
    value=lambda inst: inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,
    reference="OPT",
    statement="makespan <= n_g * phi * (u / l) * OPT (n_g = max_j G_j, phi from the instance)",
    source="paper", proof="docs/ring_allreduce.md#theorem-5")

PROBLEM.method(
    "sjf-bco", kind="approximation", fidelity="paper", guarantee=THEOREM5,
    summary="smallest-job-first, balancing contention and overhead: bisect theta, FA-FFP / LBSGF per kappa",
    options={"kappa": Option(int, 0, "FA-FFP for G_j <= kappa, LBSGF above; 0 = try every kappa 1..n_g"),
             "spread_factor": Option(float, 1.0, "lambda: LBSGF takes servers until capacity >= lambda G_j")},
)(algorithms.sjf_bco)
PROBLEM.method("ff", kind="baseline", fidelity="paper",
               summary="first G_j GPUs server by server within the smallest feasible busy-time bound"
               )(algorithms.first_fit)
PROBLEM.method("ls", kind="baseline", fidelity="paper",
               summary="the G_j least busy GPUs, jobs in index order")(algorithms.least_busy)
PROBLEM.method("random", kind="baseline", fidelity="paper", randomized=True,
               summary="G_j GPUs uniformly at random (seeded), jobs in index order")(algorithms.random_placement)
def _milp_applies(inst):
    cols = column_count(inst)
    return cols <= MILP_MAX_COLUMNS, f"{cols} model columns (milp needs <= {MILP_MAX_COLUMNS})"


PROBLEM.method("milp", kind="bound", fidelity="ours", uses_backend=True, applicable=_milp_applies,
               summary="contention-free time-indexed MILP: exact without contention, a lower bound on OPT"
               )(milp_bound)
PROBLEM.method(
    "brute", kind="exact", fidelity="ours",
    summary=f"every order x every GPU set (at most {BRUTE_MAX_PLANS} plans; for tests)",
    applicable=lambda inst: (brute_plan_count(inst) <= BRUTE_MAX_PLANS,
                             f"{brute_plan_count(inst)} plans, brute needs <= {BRUTE_MAX_PLANS}"),
)(algorithms.brute)
