"""Registered methods of ``domain-decomposition``."""

from __future__ import annotations

from optsched.core.registry import Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from . import baselines
from .algorithms import chain_owner
from .model import BRUTE_MAX, brute_force, build_model, decode
from .problem import PROBLEM

MILP_MAX_CELLS = 64


def _contiguous(inst) -> tuple[bool, str]:
    if inst.contiguous:
        return True, "contiguous decomposition"
    return False, "the chain partition is exact for contiguous decompositions only (contiguous = false)"


def _free(inst) -> tuple[bool, str]:
    if inst.contiguous:
        return False, "recursive bisection is not contiguous along the curve (needs contiguous = false)"
    return True, "free assignment"


def _brute_ok(inst) -> tuple[bool, str]:
    from math import comb

    n, P = inst.num_cells, inst.num_ranks
    count = comb(n + P - 1, P - 1) if inst.contiguous else P ** n
    return (count <= BRUTE_MAX, f"{count} decompositions" + ("" if count <= BRUTE_MAX else f" > {BRUTE_MAX}"))


def _outcome(instance, owner, **stats) -> Outcome:
    loads = [0.0] * instance.num_ranks
    for k, p in enumerate(owner):
        loads[p] += instance.weights[k]
    value = max(l / s for l, s in zip(loads, instance.speeds))
    return Outcome(solution={"owner": [int(p) for p in owner]}, objective=value, stats=stats)


@PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
                summary="MILP (contiguous: monotone prefix binaries; free: assignment), min T",
                applicable=size_limit(lambda inst: inst.num_cells, MILP_MAX_CELLS, "cells", "milp"))
def milp(instance, ctx: SolveContext) -> Outcome:
    model = build_model(instance)
    return model_outcome(ctx, model, lambda x: decode(instance, model, x))


@PROBLEM.method("chain", kind="exact", fidelity="ours", applicable=_contiguous,
                summary="exact chains-on-chains min-max over ranks of given speeds (probe + bisection / Nicol)")
def chain(instance, ctx: SolveContext) -> Outcome:
    owner, value = chain_owner(instance, poll=ctx.check_time)
    out = _outcome(instance, owner)
    out.status, out.bound = "optimal", value
    return out


@PROBLEM.method("dp", kind="exact", fidelity="ours", applicable=_contiguous,
                summary="the same optimum by dynamic programming over prefix sums (O(P n log n))")
def dp(instance, ctx: SolveContext) -> Outcome:
    from optsched.chain import min_max_dp

    part = min_max_dp(instance.weight_array, instance.speed_array, poll=ctx.check_time)
    import numpy as np

    owner = np.repeat(np.arange(instance.num_ranks), np.diff(part.bounds)).tolist()
    out = _outcome(instance, owner)
    out.status, out.bound = "optimal", part.value
    return out


@PROBLEM.method("brute", kind="exact", fidelity="ours", applicable=_brute_ok,
                summary="enumerate every decomposition (tests)")
def brute(instance, ctx: SolveContext) -> Outcome:
    value, owner = brute_force(instance)
    out = _outcome(instance, owner)
    out.status, out.bound = "optimal", value
    return out


@PROBLEM.method("equal-count", kind="baseline", fidelity="ours",
                summary="contiguous, equal particles per unit speed (ignores the work model)")
def equal_count(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, baselines.equal_count(instance))


@PROBLEM.method("rcb", kind="baseline", fidelity="ours", applicable=_free,
                summary="recursive coordinate bisection of the cells by work and speed shares")
def rcb(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, baselines.recursive_bisection(instance))
