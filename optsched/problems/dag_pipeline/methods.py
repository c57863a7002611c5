"""Method registrations of ``dag-pipeline`` (thin wrappers)."""

from __future__ import annotations

from optsched.core.errors import Infeasible
from optsched.core.registry import Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from . import algorithms as alg
from .instance import plan_values
from .model import build_model, decode, stage_window
from .problem import PROBLEM


@PROBLEM.method("milp", kind="exact", fidelity="code", uses_backend=True,
                summary="Rhino's stage ILP (one-hot stages in [asap, alap], precedence, balance); "
                        "cut-bytes as in TePDist, bottleneck / sync-estimate objectives ours")
def milp(instance, ctx: SolveContext) -> Outcome:
    window = stage_window(instance, ctx.check_time)
    model = build_model(instance, poll=ctx.check_time, window=window)
    out = model_outcome(ctx, model, lambda x: decode(instance, model, x, window))
    if out.solution is not None and out.objective is not None:
        # the plan is the integer stage map; its value is recomputed exactly from it. The model's
        # continuous bottleneck/sync columns may sit up to the solver's feasibility tolerance
        # below the plan's true value (seen: 1e-6 absolute on a 0.22 objective), which is not a
        # value the plan has.
        out.stats["model_objective"] = out.objective
        out.objective = plan_values(instance, out.solution["stages"])[instance.objective]
    return out


@PROBLEM.method("brute", kind="exact", fidelity="ours",
                summary=f"every map of nodes to stages (K^n <= {alg.BRUTE_MAX_ASSIGNMENTS}); for tests",
                applicable=size_limit(lambda i: i.stages ** i.num_nodes, alg.BRUTE_MAX_ASSIGNMENTS,
                                      "K^n", "brute"))
def brute(instance, ctx: SolveContext) -> Outcome:
    stages, value = alg.brute(instance)
    if stages is None:
        raise Infeasible("no map of the nodes to stages meets precedence, non-empty stages and the budget")
    return Outcome(solution={"stages": stages}, objective=value, bound=value, status="optimal")


@PROBLEM.method("order-dp", kind="heuristic", fidelity="ours",
                summary="best plan contiguous in a topological order (chain DP with the DAG's crossing bytes); "
                        "exact on chains",
                applicable=size_limit(lambda i: i.num_nodes, alg.ORDER_DP_MAX_NODES, "nodes", "order-dp"))
def order_dp(instance, ctx: SolveContext) -> Outcome:
    def check(plan, value):  # at the time limit: the best plan of the caps swept so far, if any
        ctx.check_time(None if plan is None else Outcome(
            solution={"stages": plan}, objective=plan_values(instance, plan)[instance.objective],
            stats={"dp_value": value}))

    stages, value = alg.order_dp(instance, check=check)
    if stages is None:
        return Outcome(status="error", reason="no plan contiguous in the topological order meets the budget")
    return Outcome(solution={"stages": stages}, objective=plan_values(instance, stages)[instance.objective],
                   stats={"dp_value": value})


@PROBLEM.method("greedy-balance", kind="baseline", fidelity="ours",
                summary="close a stage along the topological order once it reaches total / K")
def greedy_balance(instance, ctx: SolveContext) -> Outcome:
    stages = alg.greedy_balance(instance)
    return Outcome(solution={"stages": stages}, objective=plan_values(instance, stages)[instance.objective])
