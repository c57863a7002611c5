"""The methods of ``rar-makespan``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.registry import Guarantee, Option, size_limit

from . import algorithms
from .algorithms import BRUTE_MAX_PLANS, brute_plan_count
from .model import MILP_MAX_COLUMNS, column_count, milp_bound
from .problem import PROBLEM


def _theorem5_applies(inst) -> tuple[bool, str]:
    # at n_g = 1 the statement would make SJF-BCO exact for single-GPU jobs (P||Cmax, NP-hard), and
    # it is false there: optsched/problems/rar_makespan/README.md#theorem-5 gives a 4-job counterexample
    if inst.max_gpus < 2:
        return False, "n_g = 1: the statement is false for single-GPU jobs (optsched/problems/rar_makespan/README.md#theorem-5)"
    return True, f"n_g = {inst.max_gpus} >= 2"


THEOREM5 = Guarantee(
    form="multiplicative", sense="<=",
    value=lambda inst: inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,
    reference="OPT",
    statement="makespan <= n_g * phi * (u / l) * OPT (n_g = max_j G_j >= 2, phi from the instance); the paper's "
              "proof is not verified here and the statement is false at n_g = 1: empirical for n_g >= 2",
    source="paper", proof="optsched/problems/rar_makespan/README.md#theorem-5", applies=_theorem5_applies)

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

PROBLEM.method("milp", kind="bound", fidelity="ours", uses_backend=True,
               applicable=size_limit(column_count, MILP_MAX_COLUMNS, "model columns", "milp"),
               summary="contention-free time-indexed MILP: exact without contention, a lower bound on OPT"
               )(milp_bound)

PROBLEM.method(
    "brute", kind="exact", fidelity="ours",
    summary=f"every order x every GPU set (at most {BRUTE_MAX_PLANS} plans; for tests)",
    applicable=size_limit(brute_plan_count, BRUTE_MAX_PLANS, "plans", "brute"),
)(algorithms.brute)

