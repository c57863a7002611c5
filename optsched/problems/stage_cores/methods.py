"""Registered methods of ``stage-cores``."""

from __future__ import annotations

from optsched.core.errors import Infeasible
from optsched.core.registry import Guarantee, Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from . import algorithms
from .model import build_model, decode
from .problem import PROBLEM


def _require_feasible(instance) -> None:
    if not instance.feasible:
        raise Infeasible(f"{instance.cores} cores cannot give {instance.num_stages} stages {instance.min_cores} each")


def _outcome(instance, c, status="feasible") -> Outcome:
    value = float(min(r * x for r, x in zip(instance.rate_per_core, c)))
    return Outcome(solution={"cores": [int(x) for x in c]}, objective=value, status=status,
                   bound=value if status == "optimal" else instance.upper_bound)


@PROBLEM.method("milp", kind="exact", fidelity="reconstruction", uses_backend=True,
                summary="integer program: max t, t <= r_i c_i, sum c_i <= C")
def milp(instance, ctx: SolveContext) -> Outcome:
    _require_feasible(instance)
    model = build_model(instance)
    return model_outcome(ctx, model, lambda x: decode(instance, model, x))


@PROBLEM.method("greedy", kind="exact", fidelity="ours",
                summary="each core to the current bottleneck stage (exact, marginal allocation)",
                guarantee=Guarantee(form="multiplicative", sense=">=", value=lambda inst: 1.0, reference="OPT",
                                    statement="ALG = OPT (greedy marginal allocation is exact for max-min of "
                                              "increasing stage throughputs)", source="classical",
                                    proof="optsched/problems/stage_cores/README.md#stage-cores"))
def greedy(instance, ctx: SolveContext) -> Outcome:
    _require_feasible(instance)
    return _outcome(instance, algorithms.greedy_bottleneck(instance.rate_per_core, instance.cores,
                                                           instance.min_cores), "optimal")


@PROBLEM.method("brute", kind="exact", fidelity="ours", summary="every composition of the cores (tests)",
                applicable=size_limit(lambda inst: inst.cores, 40, "cores", "brute"))
def brute(instance, ctx: SolveContext) -> Outcome:
    _require_feasible(instance)
    _, c = algorithms.brute_force(instance.rate_per_core, instance.cores, instance.min_cores)
    return _outcome(instance, c, "optimal")


@PROBLEM.method("equal", kind="baseline", fidelity="ours", summary="C / S cores per stage (largest remainder)")
def equal(instance, ctx: SolveContext) -> Outcome:
    _require_feasible(instance)
    return _outcome(instance, algorithms.equal_split(instance.rate_per_core, instance.cores, instance.min_cores))


@PROBLEM.method("proportional", kind="baseline", fidelity="ours",
                summary="cores proportional to work per item 1/r_i (largest remainder)")
def proportional(instance, ctx: SolveContext) -> Outcome:
    _require_feasible(instance)
    return _outcome(instance, algorithms.proportional_split(instance.rate_per_core, instance.cores,
                                                            instance.min_cores))
