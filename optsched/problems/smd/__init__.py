"""``smd``: parameter-server resource allocation as a sum of ratios (spec ``smd.md``; docs ``docs/smd.md``).

Yu, Wu, Ji, Liu, "A Sum-of-Ratios Multi-Dimensional-Knapsack Decomposition for DNN Resource
Scheduling", IEEE INFOCOM 2021 (arXiv 2105.13855). Each job gets (workers, parameter servers)
from pooled capacities or is deferred; its completion time follows from its layer profile
(:mod:`optsched.workloads.layer_timing`). Formulation [ours] consistent with the paper's abstract.

Methods: ``milp`` and ``brute`` (exact), ``lp`` (bound), ``lp-round`` (additive guarantee when
every job is deferrable, [ours]), ``smd`` (reconstruction; empirical), baselines ``one-to-one``,
``optimus-greedy``, ``drf``.
"""

from __future__ import annotations

from optsched.core.registry import Guarantee, Option, Problem, register_problem

from . import algorithms, baselines
from .algorithms import BRUTE_MAX_COMBINATIONS, brute_combinations, build_model, deferral_penalty_bound
from .generate import PRESETS, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, SmdInstance, SmdJob, check
from .smd import INNER_METHODS, smd

__all__ = ["SmdInstance", "SmdJob", "PROBLEM", "generate", "check", "build_model"]


def _all_deferrable(instance: SmdInstance) -> tuple[bool, str]:
    fixed = [i for i, j in enumerate(instance.jobs) if not j.deferrable]
    if fixed:
        return False, f"jobs {fixed[:5]} are not deferrable: the bound relies on deferring fractional jobs"
    return True, "every job is deferrable"


PROBLEM = register_problem(Problem(
    name="smd",
    title="PS resource allocation: weighted completion time from layer profiles (sum of ratios, MC-MKP)",
    sense="min",
    instance_type=SmdInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="smd.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "jobs": Option(int, 6, "number of jobs"),
        "max_workers": Option(int, 4, "workers per job: 1..max_workers"),
        "max_parameter_servers": Option(int, 3, "parameter servers per job: 1..max_parameter_servers"),
        "layers": Option(int, 8, "synthetic profiles: at most this many layers per job"),
        "resources": Option(int, 2, "resource types: the first of gpu, cpu, memory_gb"),
        "tightness": Option(float, 0.5, "capacity as a fraction of the demand of each job's best configuration"),
        "non_deferrable": Option(float, 0.0, "fraction of jobs that may not be deferred"),
        "round_length": Option(float, 3600.0, "seconds; default defer cost = round_length + JCT(1, 1)"),
        "profiles": Option(str, "synthetic", "'synthetic' or a models/ directory (or .json file) of DNN profiles"),
    },
    build_model=build_model,
    default_method="milp",
    reference_method=("milp", "brute"),
    tiny_instances=tiny_instance,
))

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="MC-MKP over the enumerated configurations (mip_rel_gap = 0)",
               options={"prune": Option(bool, True, "drop dominated configurations first (exact)")})(algorithms.milp)
PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True,
               summary="LP relaxation of the MC-MKP: a lower bound on OPT")(algorithms.lp_bound)
PROBLEM.method(
    "lp-round", kind="approximation", fidelity="ours", uses_backend=True,
    summary="basic LP solution; fractional jobs (at most |Res|) to defer or (1, 1), then greedy fill",
    options={"fill": Option(bool, True, "let the rounded jobs take their cheapest column that still fits")},
    guarantee=Guarantee(
        form="additive", sense="<=", value=deferral_penalty_bound, reference="OPT",
        statement="ALG <= OPT + |Res| * max_i (omega_i defer_i - min_c cost_ic)", source="ours",
        proof="docs/smd.md#lp-round-additive-bound", applies=_all_deferrable),
)(algorithms.lp_round)
PROBLEM.method(
    "smd", kind="heuristic", fidelity="reconstruction", uses_backend=True,
    summary="sum-of-ratios parametric outer loop, Lagrangian MC-MKP inner step (empirical)",
    options={
        "inner": Option(str, "lagrangian", f"inner MC-MKP step: {', '.join(INNER_METHODS)}"),
        "max_outer": Option(int, 30, "outer (Newton) iterations at most"),
        "max_inner": Option(int, 60, "subgradient iterations per Lagrangian inner step at most"),
        "inner_tolerance": Option(float, 1e-4, "Lagrangian inner step: stop when its duality gap is at most "
                                                "this times sum_i |beta_i|"),
        "damping": Option(float, 1.0, "Newton step in (0, 1]; the line search also tries half and a quarter of it"),
        "tolerance": Option(float, 1e-6, "stop when the ratio residual is at most this"),
        "polish": Option(bool, True, "one greedy pass on the true cost over each inner solution"),
    })(smd)
PROBLEM.method("one-to-one", kind="baseline", fidelity="ours",
               summary="1 worker : 1 PS per job, FIFO admission")(baselines.one_to_one)
PROBLEM.method("optimus-greedy", kind="baseline", fidelity="ours",
               summary="add the worker or PS with the largest JCT gain per dominant share")(baselines.optimus_greedy)
PROBLEM.method("drf", kind="baseline", fidelity="ours",
               summary="dominant resource fairness by progressive filling")(baselines.drf)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"every combination of unpruned configurations (<= {BRUTE_MAX_COMBINATIONS}; for tests)",
               applicable=lambda inst: (brute_combinations(inst) <= BRUTE_MAX_COMBINATIONS,
                                        f"{brute_combinations(inst)} combinations, brute needs "
                                        f"<= {BRUTE_MAX_COMBINATIONS}"))(algorithms.brute)
