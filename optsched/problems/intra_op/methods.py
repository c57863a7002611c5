"""The registered methods of ``intra-op`` (thin wrappers over model, algorithms and baselines)."""

from __future__ import annotations

import numpy as np

from optsched.core.registry import Option, Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome, relaxation_outcome

from . import algorithms, anytime as _anytime, baselines
from .instance import FORBIDDEN, IntraOpInstance
from . import model as _model
from .model import build_model, decode
from .problem import PROBLEM

__all__ = ["milp", "lp", "brute", "BRUTE_MAX_PLANS"]


#: largest search space (prod_v k_v) brute force enumerates
BRUTE_MAX_PLANS = 200_000


def _milp_fits(instance):
    return _model.milp_fits(instance)


@PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True, applicable=_milp_fits,
                summary="one-hot x, equality-marginal y, memory rows at maximal starts, forbidden columns removed")
def milp(instance: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Exact MILP (:func:`~.model.build_model`) on the context's back-end; ``optimal`` only when
    proved, otherwise the incumbent with the bound and gap. Refused before building when its
    memory estimate exceeds the machine's memory (:func:`~.model.milp_fits`); the building polls
    the clock between its steps."""
    model = build_model(instance, poll=ctx.check_time)
    out = model_outcome(ctx, model, lambda x: decode(instance, model, x))
    out.stats.update(columns=model.num_cols, rows=model.num_rows, nonzeros=int(model.matrix.nnz))
    return out


@PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True, applicable=_milp_fits,
                summary="LP relaxation of the MILP: a lower bound on OPT")
def lp(instance: IntraOpInstance, ctx: SolveContext) -> Outcome:
    return relaxation_outcome(ctx, build_model(instance, poll=ctx.check_time))


def _brute_size(inst):
    return inst.search_space_size


@PROBLEM.method("brute", kind="exact", fidelity="ours",
                summary=f"enumerate every plan (prod k_v <= {BRUTE_MAX_PLANS}; for tests)",
                applicable=size_limit(_brute_size, BRUTE_MAX_PLANS, "prod_v k_v", "brute"))
def brute(instance: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Enumerate all plans, vectorized. Feasibility is computed here from the raw fields (usage of
    the nodes live at each integer time, costs against the sentinel), not by the checker."""
    inst = instance
    k = inst.num_strategies
    n = inst.num_nodes
    total = int(np.prod(k))
    T = inst.horizon
    live = np.zeros((n, T))
    for v in range(n):
        live[v, inst.start[v]:inst.end[v]] = 1.0
    best_val, best_plan = np.inf, None
    chunk = 1 << 15
    for lo in range(0, total, chunk):
        idx = np.arange(lo, min(total, lo + chunk))
        plans = np.stack(np.unravel_index(idx, tuple(int(x) for x in k)), axis=1)
        flat = inst.offsets[:-1] + plans
        node_cost = inst.cost[flat]
        value = node_cost.sum(axis=1)
        bad = (node_cost >= FORBIDDEN).any(axis=1)
        for e in range(inst.num_edges):
            u, v = inst.edge_u[e], inst.edge_v[e]
            c = inst.edge_matrix(e)[plans[:, u], plans[:, v]]
            value = value + c
            bad |= c >= FORBIDDEN
        if inst.usage_limit is not None and T:
            load = inst.usage[flat] @ live
            bad |= (load > inst.usage_limit * (1 + 1e-9)).any(axis=1)
        value = np.where(bad, np.inf, value)
        i = int(np.argmin(value))
        if value[i] < best_val:
            best_val, best_plan = float(value[i]), plans[i]
    if best_plan is None:
        from optsched.core.errors import Infeasible
        raise Infeasible("no plan avoids every forbidden choice within the memory limit")
    return Outcome(solution={"strategy": best_plan.tolist()}, objective=best_val, bound=best_val, status="optimal")


PROBLEM.method("dp", kind="exact", fidelity="ours", applicable=algorithms.dp_applicable,
               summary="elimination DP (exact on series-parallel graphs without memory binding; "
                       "else memory-free bound + repair)",
               options={"rounds": Option(int, 5, "local-search rounds after a memory repair")})(algorithms.dp)
PROBLEM.method("oneflow", kind="heuristic", fidelity="code",
               summary="OneFlow: node/edge elimination + GreedyStrategy(4); [ours] memory repair",
               options={"rounds": Option(int, 3, "memory-aware greedy passes after the repair"),
                        "final_greedy": Option(bool, True, "run the memory-aware greedy passes"),
                        "exact_core": Option(bool, False, "enumerate a small core instead of the greedy")},
               )(algorithms.oneflow)
PROBLEM.method("lp-round", kind="heuristic", fidelity="ours", uses_backend=True,
               summary="LP relaxation, largest value per node, memory repair (+ polish); LP value as bound",
               options={"polish": Option(bool, True, "node and pair sweeps after the repair"),
                        "rounds": Option(int, 5, "polish rounds")})(algorithms.lp_round)
PROBLEM.method("local-search", kind="heuristic", fidelity="ours", randomized=True,
               summary="memory-aware node/pair moves + exact chain DPs (contest-style)",
               options={"init": Option(str, "best", "best | oneflow | least-memory | lagrangian"),
                        "rounds": Option(int, 20, "largest number of rounds"),
                        "pair_moves": Option(bool, True, "joint moves of an edge's two nodes"),
                        "group_moves": Option(bool, True, "joint moves of a node and up to 3 neighbours"),
                        "large_moves": Option(bool, True, "chain and random-path DP moves"),
                        "random_paths": Option(int, 200, "random induced paths per round"),
                        "path_length": Option(int, 8, "nodes per random path"),
                        "regions": Option(int, 50, "random connected regions re-optimized by the elimination DP per round"),
                        "region_size": Option(int, 40, "nodes per region")})(algorithms.local_search)
PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="per node in index order, cheapest given chosen neighbours, memory-aware")(baselines.greedy)
PROBLEM.method("replicated", kind="baseline", fidelity="ours", applicable=baselines.labelled(baselines.REPLICATED),
               summary="every node broadcast (B on each axis), memory-repaired")(baselines.replicated)
PROBLEM.method("data-parallel", kind="baseline", fidelity="ours",
               applicable=baselines.labelled(baselines.DATA_PARALLEL),
               summary="every node S(0) on each axis, memory-repaired")(baselines.data_parallel)

_O = Option
ANYTIME_OPTIONS = {
    "budget": _O(float, 60.0, "seconds to run when no time limit is given"),
    "exact": _O(bool, True, "run the MILP when the instance is small"),
    "milp_max_entries": _O(int, _anytime.MILP_MAX_ENTRIES, "most edge-cost entries for the MILP stage"),
    "milp_share": _O(float, 0.6, "share of the time left given to the MILP stage"),
    "lagrange": _O(bool, True, "the Lagrangian stage (bound and repaired plans)"),
    "lagrange_share": _O(float, 0.7, "share of the time left given to the Lagrangian stage (at most)"),
    "lagrange_min_steps": _O(int, 6, "fewest subgradient steps before the stagnation rule may stop the stage"),
    "lagrange_patience": _O(float, 2.0, "the Lagrangian stage stops once it has taken (1 + this) times as many "
                            "steps as it took to offer its best plan; 0: never early"),
    "lagrange_iterations": _O(int, 200, "most subgradient steps"),
    "repair_every": _O(int, 4, "repair every this many relaxed plans (and those within repair_within)"),
    "repair_within": _O(float, 1.25, "repair every relaxed plan whose peak / limit is at most this"),
    "start_share": _O(float, 0.1, "share of the budget for the start plan's repair"),
    "lean_start": _O(bool, True, "memory-lean start when the least-memory plan keeps forbidden pairs"),
    "defer_lean": _O(bool, False, "lean start only if the Lagrangian stage finds no plan"),
    "full_repair": _O(bool, True, "the point-by-point repair of relaxed plans"),
    "fast_repair": _O(bool, True, "the compiled greedy repair before the full one (kept when it adds no forbidden pair)"),
    "fast_moves": _O(bool, True, "LNS: compiled node and pair sweeps (else the Python ones)"),
    "polish_sweeps": _O(int, 10, "most compiled node + pair passes on each repaired relaxed plan"),
    "clamp": _O(bool, True, "a fast clamped repair of relaxed plans far over the limit"),
    "clamp_over": _O(float, 2.0, "peak / limit above which the clamped repair runs first"),
    "sweeps": _O(int, 0, "diffusion sweeps per Lagrangian step (0: by core size)"),
    "repair": _O(bool, True, "repair each Lagrangian plan into a feasible one"),
    "sequential_decode": _O(bool, True, "Lagrangian core plans: also the sequential decode of the reparametrization"),
    "star_moves": _O(bool, True, "star moves (a hub and all its neighbours) in core plans, polish and LNS"),
    "hub_regions": _O(bool, True, "LNS: exact re-optimisation of large regions grown from the hubs"),
    "hub_region_size": _O(int, 1000, "LNS: most nodes per hub region"),
    "hub_region_per_degree": _O(float, 4.0, "LNS: a hub region's nodes per incident edge of its hub "
                                "(between hub_region_min and hub_region_size)"),
    "hub_region_min": _O(int, 100, "LNS: fewest nodes per hub region"),
    "binding_regions": _O(bool, True, "LNS: exact re-optimisation of regions grown from nodes live where memory binds"),
    "binding_region_size": _O(int, 300, "LNS: nodes per binding region"),
    "priced_regions": _O(bool, True, "LNS: binding regions also try the Lagrangian memory prices as trade-offs"),
    "round_seconds": _O(float, 0.0, "LNS: seconds the expensive moves of a round share (0: 2% of the budget, 0.5-10 s)"),
    "core_greedy": _O(bool, True, "OneFlow's sequential greedy on the first Lagrangian step's core"),
    "lns": _O(bool, True, "the large-neighbourhood search stage"),
    "patience": _O(int, 3, "without a time limit: LNS rounds without gain before stopping"),
    "focus": _O(bool, True, "LNS: after the first round, sweep only near the nodes that changed"),
    "pair_moves": _O(bool, True, "LNS: joint moves of an edge's two nodes"),
    "group_moves": _O(bool, True, "LNS: joint moves of a node and up to 3 neighbours"),
    "large_moves": _O(bool, True, "LNS: chain, random-path and region DP moves"),
    "random_paths": _O(int, 200, "LNS: random induced paths per round"),
    "path_length": _O(int, 8, "LNS: nodes per random path"),
    "regions": _O(int, 50, "LNS: random connected regions re-optimized per round"),
    "region_size": _O(int, 40, "LNS: nodes per region"),
}
PROBLEM.method("anytime", kind="exact", fidelity="ours", uses_backend=True,
               summary="default: least-memory start, MILP when small, Lagrangian memory prices with a "
                       "certified diffusion bound + repaired plans, then large-neighbourhood search; "
                       "optimal only when plan and bound meet",
               options=ANYTIME_OPTIONS)(_anytime.anytime)
