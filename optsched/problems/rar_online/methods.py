"""The methods of ``rar-online``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.errors import InvalidOptionError
from optsched.core.registry import Guarantee, Option, Outcome, size_limit

from .gadget import GadgetPolicy, exact_effort, pricing
from .instance import (
    evaluate,
)
from .model import (
    LP_MAX_COLUMNS,
    MILP_MAX_COLUMNS,
    column_count,
    lp_bound,
    milp,
)
from .policies import FifoRar, TiresiasLas, run_policy
from .problem import PROBLEM

EXACT_MAX_EFFORT = 500_000_000


EXACT_MAX_GRAPH_SERVERS = 10


def _policy_outcome(instance, policy, **stats) -> Outcome:
    allocations = run_policy(instance, policy)
    _, completion, gpu_slots, value = evaluate(instance, allocations)
    if isinstance(policy, GadgetPolicy):
        stats.update(admitted=policy.admitted, rejected=policy.rejected)
    return Outcome(solution={"allocations": allocations}, objective=value,
                   stats={"completed": sum(c is not None for c in completion), "gpu_slots": gpu_slots, **stats})

@PROBLEM.method("gadget", color="#4477aa", kind="online", fidelity="reconstruction",
                summary="posted prices per GPU pool / uplink or link and slot; DP best response over progress buckets "
                        "with greedy ring embedding; admit iff utility > cost (empirical ratio)",
                options={"buckets": Option(int, 32, "progress buckets of the DP (more: less conservative)"),
                         "window": Option(int, 48, "slots after arrival the best response plans over")})
def gadget(instance, ctx):
    """GADGET-style online scheduling [reconstruction]; see :mod:`.gadget`. No guarantee: empirical.

    O(n W L (S log S + B)) for n jobs, W worker counts tried, L = window, S servers, B buckets,
    plus the simulator.

    >>> import optsched
    >>> r = optsched.solve(optsched.generate("rar-online", 0, preset="small"), "gadget")
    >>> r.status, r.objective >= 0
    ('feasible', True)
    """
    for name in ("buckets", "window"):
        if ctx.options[name] < 1:
            raise InvalidOptionError(instance.problem, f"option {name}", "must be >= 1", ctx.options[name])
    policy = GadgetPolicy(instance, buckets=ctx.options["buckets"], window=ctx.options["window"])
    return _policy_outcome(instance, policy, buckets=ctx.options["buckets"], window=ctx.options["window"])

def _theorem_g_applies(inst):
    if inst.is_graph:
        return False, "graph network: Theorem G is registered for the flat network (server uplinks) only"
    if inst.objective != "utility":
        return False, f"objective {inst.objective!r}: Theorem G needs the plain utility objective"
    pr = pricing(inst)
    if pr.v1 <= 0:
        return False, "no job can earn utility alone: V1 = 0"
    if pr.ratio is None:
        return False, f"beta = {pr.beta:.4g} >= 2 (eps = {pr.eps:.4g}: per-slot demands are not small)"
    return True, f"beta = {pr.beta:.4g} < 2 (eps = {pr.eps:.4g}), alpha = {pr.alpha:.4g}"

THEOREM_G = Guarantee(
    form="multiplicative", sense=">=", value=lambda inst: pricing(inst).ratio, reference="OPT",
    statement="ALG >= OPT (2 - beta) / (2 alpha beta^2), beta = max_k b_k^eps < 2; -> OPT / (2 alpha) as eps -> 0",
    source="ours", proof="optsched/problems/rar_online/README.md#theorem-g", applies=_theorem_g_applies)

def _exact_applicable(inst):
    if inst.is_graph and len(inst.servers) > EXACT_MAX_GRAPH_SERVERS:
        return False, (f"{len(inst.servers)} servers on a graph network (gadget-exact enumerates server sets: "
                       f"needs <= {EXACT_MAX_GRAPH_SERVERS})")
    return (exact_effort(inst) <= EXACT_MAX_EFFORT,
            f"DP work {exact_effort(inst)} (gadget-exact needs <= {EXACT_MAX_EFFORT})")

@PROBLEM.method("gadget-exact", kind="online", fidelity="reconstruction", guarantee=THEOREM_G,
                summary="gadget with an exact best response (every slot, exact progress, every embedding)",
                applicable=lambda inst: _exact_applicable(inst))
def gadget_exact(instance, ctx):
    """GADGET-style online scheduling with an exact best response [reconstruction; guarantee ours].

    Guarantee (Theorem G, ``optsched/problems/rar_online/README.md#theorem-g``): on the flat network, with the plain
    utility objective and ``beta < 2``, ``ALG >= OPT (2 - beta) / (2 alpha beta^2)`` (``Pricing`` gives alpha, beta).
    O(sum_j (T - a_j) (F_j + 1) Wmax_j + S Wmax^2 per slot and job), plus the simulator.
    """
    policy = GadgetPolicy(instance, exact=True)
    return _policy_outcome(instance, policy, **_theorem_stats(instance))

def _theorem_stats(inst):
    pr = pricing(inst)
    return {"alpha": pr.alpha, "beta": pr.beta, "eps": pr.eps, "v1": pr.v1}

@PROBLEM.method("fifo", kind="baseline", fidelity="ours",
                summary="arrival order at max_workers, cheapest placement, non-preemptive, head-of-line blocking")
def fifo(instance, ctx):
    """FIFO baseline [ours]: see :class:`.policies.FifoRar`. No guarantee; empirical.
    O(T (n log n + n S)) for n jobs, S servers, T slots, plus the simulator."""
    return _policy_outcome(instance, FifoRar(instance))

@PROBLEM.method("tiresias-las", kind="baseline", fidelity="ours",
                summary="discretized 2D-LAS: queue by attained GPU-slots, preemptive, backfilling",
                options={"threshold": Option(float, 8.0, "GPU-slots after which a job drops to the low queue")})
def tiresias_las(instance, ctx):
    """Tiresias-style 2D-LAS baseline [ours, after Tiresias' discretized 2D-LAS]: see
    :class:`.policies.TiresiasLas`. No guarantee; empirical. O(T (n log n + n S))."""
    if not ctx.options["threshold"] >= 0:
        raise InvalidOptionError(instance.problem, "option threshold", "must be >= 0", ctx.options["threshold"])
    return _policy_outcome(instance, TiresiasLas(instance, ctx.options["threshold"]))

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               applicable=size_limit(column_count, MILP_MAX_COLUMNS, "model columns", "milp"),
               summary="offline time-indexed MILP (exact; small instances)")(milp)

PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True, 
               applicable=size_limit(column_count, LP_MAX_COLUMNS, "model columns", "lp"),
               summary="LP relaxation of the offline MILP: an upper bound on OPT")(lp_bound)

