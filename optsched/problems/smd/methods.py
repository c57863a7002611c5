"""The methods of ``smd``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Guarantee, Option, size_limit

from . import algorithms, baselines
from .algorithms import (
    BRUTE_MAX_COMBINATIONS,
    brute_combinations,
    deferral_penalty_bound,
)
from .instance import SmdInstance
from .problem import PROBLEM
from .smd import DEFAULT_TARGET_GAP, INNER_METHODS, smd


def _all_deferrable(instance: SmdInstance) -> tuple[bool, str]:
    fixed = [i for i, j in enumerate(instance.jobs) if not j.deferrable]
    if fixed:
        return False, f"jobs {fixed[:5]} are not deferrable: the bound relies on deferring fractional jobs"
    return True, "every job is deferrable"


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
        proof="optsched/problems/smd/README.md#lp-round-additive-bound", applies=_all_deferrable),
)(algorithms.lp_round)

PROBLEM.method(
    "smd", color="#4477aa", kind="approximation", fidelity="reconstruction", uses_backend=True,
    summary="sum-of-ratios parametric outer loop, Lagrangian MC-MKP inner step; certified by a Lagrangian "
            "bound and LP branch and bound to within target_gap",
    guarantee=Guarantee(
        form="multiplicative", sense="<=", value=lambda instance: 1.0 + DEFAULT_TARGET_GAP, reference="OPT",
        statement=f"ALG <= (1 + target_gap) * OPT, target_gap = {DEFAULT_TARGET_GAP} by default (the record's "
                  "bound certifies it per run); not when the run stops at its time limit (status time_limit) or a "
                  "node LP fails (stats certify = lp_failed, stated in the record's reason)",
        source="ours", proof="optsched/problems/smd/README.md#smd-certified-bound"),
    options={
        "target_gap": Option(float, DEFAULT_TARGET_GAP, "branch and bound until ALG <= (1 + target_gap) * "
                                                        "certified bound (0: prove OPT; inf: bound only)",
                             bounds=Interval(0, 1e9, infinity="bound only, no branch and bound")),
        "node_rounding": Option(bool, True, "branch and bound: round each node's LP point for a new incumbent"),
        "inner": Option(str, "lagrangian", f"inner MC-MKP step: {', '.join(INNER_METHODS)}"),
        "max_outer": Option(int, 30, "outer (Newton) iterations at most"),
        "max_inner": Option(int, 60, "subgradient iterations per Lagrangian inner step at most"),
        "inner_tolerance": Option(float, 1e-4, "Lagrangian inner step: stop when its duality gap is at most "
                                                "this times sum_i |beta_i|"),
        "damping": Option(float, 1.0, "Newton step in (0, 1]; the line search also tries half and a quarter of it",
                          bounds=Interval(0, 1, closed="right")),
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
               applicable=size_limit(brute_combinations, BRUTE_MAX_COMBINATIONS, "combinations", "brute"),
               )(algorithms.brute)

