"""Algorithms for ``intra-op``: OneFlow's elimination + greedy, the exact elimination DP, LP
rounding and a memory-aware local search.

All of them end in a plan that fits in memory whenever their repair succeeds; the checker
decides. Each stage's effect is recorded in ``stats`` so that tests can show it changes results.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from optsched.core.errors import Infeasible, SolverError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from optsched.core.clock import Deadline

from .core_search import CORE_ENUMERATION_LIMIT, core_product, solve_core
from .elimination import Elimination, eliminate
from .instance import FORBIDDEN, IntraOpInstance, plan_cost
from .model import build_model, decode
from .state import PlanState, chains, fix_plan, random_path
from .structure import least_memory_plan, structure

__all__ = ["oneflow", "dp", "lp_round", "local_search", "greedy_plan", "lagrangian_plan", "dp_applicable"]

def _finish(inst: IntraOpInstance, state: PlanState, stats: dict, *, bound=None, status="feasible") -> Outcome:
    s = state.s
    value = plan_cost(inst, s)[0]
    stats.update(peak_usage=state.peak(), usage_limit=inst.usage_limit, moves=dict(state.moves))
    if value >= FORBIDDEN:
        stats["forbidden_choices_left"] = True
    return Outcome(solution={"strategy": s.tolist()}, objective=value, bound=bound, status=status, stats=stats)


def _polish(state: PlanState, *, rounds: int, pairs: bool = True) -> None:
    """Node sweeps (and pair sweeps) until no gain, a round limit or the clock."""
    for _ in range(rounds):
        gain = state.sweep_nodes()
        if pairs and not state.expired():
            gain += state.sweep_pairs()
        if gain <= 0 or state.expired():
            break


_ELIM: dict[int, tuple[IntraOpInstance, Elimination]] = {}


def _elimination(inst: IntraOpInstance) -> Elimination:
    hit = _ELIM.get(id(inst))
    if hit is None or hit[0] is not inst:
        if len(_ELIM) > 4:
            _ELIM.clear()
        hit = _ELIM[id(inst)] = (inst, eliminate(inst))
    return hit[1]


def dp_applicable(inst: IntraOpInstance) -> tuple[bool, str]:
    el = _elimination(inst)
    if el.fully_reduced:
        return True, "the elimination reduces the graph to independent nodes (series-parallel or tree-like)"
    prod = core_product(el)
    if prod <= CORE_ENUMERATION_LIMIT:
        return True, f"the elimination core has {prod:.0f} joint choices <= {CORE_ENUMERATION_LIMIT}"
    return False, (f"the elimination leaves a core of {el.counts['core_nodes']} nodes and {len(el.edges)} edges "
                   f"({prod:.3g} joint choices > {CORE_ENUMERATION_LIMIT}): the graph is not series-parallel")


def greedy_plan(inst: IntraOpInstance, clock: Deadline) -> tuple[PlanState, dict]:
    """Per-node greedy in index order (topological for the generated and IOPDDL graphs): each
    node takes the cheapest strategy given its already-chosen neighbours (edges to later nodes
    ignored) among those that fit in memory while every later node still holds its
    least-memory strategy. Fits whenever the least-memory plan fits. Forbidden pairs with later
    nodes are removed afterwards by the shared fix-up (:func:`_fix`). O(n k + m k^2) before it."""
    st = structure(inst)
    state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
    done = np.zeros(inst.num_nodes, bool)
    for v in range(inst.num_nodes):
        vec = st.node_costs(v).astype(float).copy()
        for i in range(st.inc_ptr[v], st.inc_ptr[v + 1]):
            w = st.inc_other[i]
            if not done[w]:
                continue
            mat = st.edge_matrix(st.inc_edge[i])
            vec += mat[:, state.s[w]] if st.inc_tail[i] else mat[state.s[w], :]
        if math.isfinite(state.limit):
            u = inst.node_usages(v)
            vec = np.where(u - u[state.s[v]] <= state.headroom(v), vec, np.inf)
        state.set_strategy(v, int(np.argmin(vec)))
        done[v] = True
    stats = {"greedy_value": plan_cost(inst, state.s)[0]}
    if stats["greedy_value"] >= FORBIDDEN:
        fix_plan(state)
        stats["forbidden_fixed"] = True
    return state, stats


def _badness(state: PlanState) -> tuple:
    """Lexicographic quality of a start: forbidden pairs, overload, cost."""
    cost = plan_cost(state.inst, state.s)[0]
    return (int(state.forbidden_edges().size) + int(cost >= FORBIDDEN), max(0.0, state.overload()), cost)


def lagrangian_plan(inst: IntraOpInstance, clock: Deadline, *, iterations: int = 12) -> tuple[PlanState, dict]:
    """Memory by prices [ours]: a price per byte at each time point turns the memory rows into
    node costs ``c_v(s) + u_v(s) * sum of prices over v's live points``; the memory-free problem
    is solved by elimination + greedy, prices rise where the plan overflows (projected
    subgradient, step halving), and each plan is repaired. Returns the best repaired plan."""
    st = structure(inst)
    if not math.isfinite(st.limit) or not len(st.times):
        el = _elimination(inst)
        return PlanState(inst, clock=clock, s=el.extend(solve_core(el, exact_limit=0)[0])), {"lagrange_iterations": 0}
    live = st.b > st.a
    typical = np.median(inst.cost[st.allowed & (inst.cost > 0)]) if np.any(st.allowed & (inst.cost > 0)) else 1.0
    scale = typical / max(float(np.median(inst.usage[inst.usage > 0])) if np.any(inst.usage > 0) else 1.0, 1e-300)
    price = np.zeros(len(st.times))
    best, best_value, history = None, math.inf, []
    step = scale
    for it in range(iterations):
        cum = np.concatenate([[0.0], np.cumsum(price)])
        lam = np.where(live, cum[st.b] - cum[st.a], 0.0)
        cost = inst.cost + np.repeat(lam, inst.num_strategies) * inst.usage
        priced = dataclasses.replace(inst, cost=np.minimum(cost, 1e300), usage_limit=None)
        el = eliminate(priced)
        s = el.extend(solve_core(el, exact_limit=0)[0])
        state = PlanState(inst, clock=clock, s=s)
        over = state.load - st.limit
        fix_plan(state)
        value = plan_cost(inst, state.s)[0]
        history.append(value)
        if state.overload() <= state.tol and value < best_value:
            best, best_value = state, value
        if np.all(over <= 0) or state.expired():
            break
        price = np.maximum(0.0, price + step * over / st.limit)
        step *= 0.7
    if best is None:
        best = state
    return best, {"lagrange_iterations": len(history), "lagrange_history": history}


def oneflow(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """OneFlow's SBP search, followed by a memory repair and a memory-aware greedy pass.

    1. node and edge elimination (:func:`~.elimination.eliminate`) [code: oneflow
       sbp_graph.cpp ``NodeAndEdgeEliminations``];
    2. the remaining core: OneFlow's ``GreedyStrategy(4)``: each node with up to 3 neighbours,
       searched jointly, until no improvement [code: sbp_graph.cpp; our enumeration];
    3. back-substitution through the eliminated nodes (exact given the core);
    4. [ours] OneFlow has no memory limit: lower the usage at overloaded times (cheapest cost
       per byte), then one more ``GreedyStrategy(4)`` pass over all nodes that keeps memory.

    No guarantee (exact only when the core is empty and memory does not bind: see ``dp``).
    Complexity: elimination O(sum of k_u k_v k_w) plus the greedy passes.

    >>> import optsched
    >>> from optsched.problems.intra_op.generate import generate
    >>> r = optsched.solve(generate(0, preset="small"), "oneflow")
    >>> r.status
    'feasible'
    """
    clock = ctx.clock
    el = _elimination(inst)
    choice, exact = solve_core(el, exact_limit=0 if not ctx.options.get("exact_core", False) else CORE_ENUMERATION_LIMIT,
                               clock=clock.sub(share=0.5))
    s = el.extend(choice)
    state = PlanState(inst, clock=clock, s=s)
    stats = {"elimination": dict(el.counts), "memory_free_value": plan_cost(inst, s)[0],
             "memory_free_peak": state.peak()}
    fits = fix_plan(state)
    stats["after_repair_value"] = plan_cost(inst, state.s)[0]
    if ctx.options.get("final_greedy", True):
        for _ in range(ctx.options.get("rounds", 3)):
            if clock.expired() or state.neighbourhood_sweep() <= 0:
                break
    stats["memory_repair_fits"] = fits
    if state.overload() > state.tol or plan_cost(inst, state.s)[0] >= FORBIDDEN:
        # [ours] the repaired OneFlow plan still overflows or keeps a forbidden pair: fall back to
        # the least-memory plan, improved by the same memory-aware greedy passes
        stats["fallback"] = "least-memory"
        state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
        state.repair_memory()
        for _ in range(ctx.options.get("rounds", 3)):
            if clock.expired() or (state.sweep_nodes() + state.neighbourhood_sweep()) <= 0:
                break
    return _finish(inst, state, stats)


def dp(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Exact elimination DP on series-parallel graphs; memory checked afterwards.

    The eliminations are exact min-sum steps, so when the graph reduces to independent nodes (or
    to a core small enough to enumerate) the back-substituted plan minimizes the cost with the
    memory limit dropped. That value is a lower bound on OPT. If the plan also fits in memory and
    has no forbidden choice it is optimal (``status = optimal``, bound = value). Otherwise memory
    binds: the plan is repaired and improved by the local search's moves, and the result says
    ``feasible`` with the memory-free optimum as its bound (stats ``memory_binds = True``).

    Guarantee: ``OPT_memory-free <= OPT``; ``status = optimal`` implies ALG = OPT.
    Complexity: O(sum over eliminated nodes of k_u k_v k_w) + the core enumeration.

    >>> import optsched
    >>> from optsched.problems.intra_op.generate import generate
    >>> r = optsched.solve(generate(0, preset="tiny"), "dp")   # memory binds on this one
    >>> r.status, r.stats["memory_binds"], r.bound < r.objective
    ('feasible', True, True)
    """
    clock = ctx.clock
    el = _elimination(inst)
    choice, exact = solve_core(el)
    if not exact:
        raise SolverError("dp: the elimination core is too large to enumerate (see `applicable`)")
    s = el.extend(choice)
    bound, _, _ = plan_cost(inst, s)
    if bound >= FORBIDDEN:
        raise Infeasible("every plan has a forbidden (sentinel-cost) choice: the memory-free optimum costs "
                         f"{bound:g} >= {FORBIDDEN:g}")
    state = PlanState(inst, clock=clock, s=s)
    stats = {"elimination": dict(el.counts), "memory_free_value": bound, "memory_free_peak": state.peak()}
    if state.overload() <= state.tol:
        stats["memory_binds"] = False
        return _finish(inst, state, stats, bound=bound, status="optimal")
    stats["memory_binds"] = True
    if not state.repair_memory():
        stats["repair_failed"] = True
    _polish(state, rounds=ctx.options.get("rounds", 5))
    return _finish(inst, state, stats, bound=bound)


def lp_round(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Solve the MILP's LP relaxation (memory rows included), take per node the strategy of
    largest LP value, then repair memory and forbidden choices [ours].

    The LP value is a lower bound on OPT (returned as ``bound``). With ``polish = true`` (the
    default) node and pair sweeps follow. No guarantee; the equality-marginal LP is often
    integral on these instances [3rd: meta-pytorch/autoparallel PR #484 reports it "empirically
    integral"], in which case rounding changes nothing.
    """
    clock = ctx.clock
    model = build_model(inst)
    sol = ctx.solve_model(model.relaxed())
    if sol.status == "infeasible":
        raise Infeasible(f"the LP relaxation is infeasible ({sol.backend}: {sol.message})")
    if sol.x is None:
        return Outcome(status="time_limit" if sol.status == "time_limit" else "error", backend=sol.backend,
                       solver_version=sol.solver_version, bound=sol.bound,
                       reason=f"lp-round: the LP relaxation returned no point ({sol.status}: {sol.message})")
    xcol = model.x_index
    xv = np.where(xcol >= 0, sol.x[np.maximum(xcol, 0)], -1.0)
    frac = int(np.sum((xv > 1e-6) & (xv < 1 - 1e-6)))
    s = np.array(decode(inst, model, sol.x)["strategy"], dtype=np.int64)
    state = PlanState(inst, clock=clock, s=s)
    stats = {"lp_value": sol.objective, "lp_status": sol.status, "fractional_entries": frac,
             "rounded_value": plan_cost(inst, s)[0], "rounded_peak": state.peak()}
    fits = fix_plan(state)
    stats["memory_repair_fits"] = fits
    if ctx.options.get("polish", True):
        _polish(state, rounds=ctx.options.get("rounds", 5))
    bound = sol.objective if sol.status == "optimal" else sol.bound
    return Outcome(**{**_finish(inst, state, stats, bound=bound).__dict__, "backend": sol.backend,
                      "solver_version": sol.solver_version})


def local_search(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Memory-aware local search in the style of the IOPDDL contest's top entries [ours].

    Start: ``init = best`` (default: the better of ``oneflow`` and the per-node greedy plan),
    ``oneflow`` (the elimination plan, repaired), ``least-memory`` (each
    node's least-usage allowed strategy, which fits on every public IOPDDL instance) or
    ``lagrangian`` (:func:`lagrangian_plan`); an init that overflows or keeps a forbidden pair
    falls back to least-memory. Then,
    until a round gains nothing (or ``rounds`` / the time limit):

    * small moves: every node to its best memory-feasible strategy; every edge's two nodes jointly;
    * large moves: every maximal chain of degree-2 nodes and ``random_paths`` random induced
      paths of up to ``path_length`` nodes re-optimized exactly by a Viterbi DP with the rest
      fixed (the unrestricted optimum if it fits in memory, else the best plan that uses no more
      memory per node than now).

    Every accepted move keeps memory feasible and strictly lowers the cost, so the method stops.
    No guarantee. Deterministic for a seed (``rng`` picks the random paths) unless a time limit
    cuts it short.
    """
    clock = ctx.clock
    opts = ctx.options
    stats = {}
    if opts.get("init", "best") == "lagrangian":
        state, info = lagrangian_plan(inst, clock)
        stats.update(info)
        if state.overload() > state.tol:
            state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
            stats["init_fallback"] = "least-memory"
    elif opts.get("init", "best") == "best":
        # [ours] the better of the repaired OneFlow plan and the per-node greedy (M: greedy
        # 1.26e11 against OneFlow 2.56e12; A: OneFlow feasible, greedy keeps forbidden pairs)
        el = _elimination(inst)
        choice, _ = solve_core(el, exact_limit=0, clock=clock.sub(share=0.3))
        a = PlanState(inst, clock=clock, s=el.extend(choice))
        fix_plan(a)
        b, _ = greedy_plan(inst, clock)
        state = a if _badness(a) <= _badness(b) else b
        stats.update(elimination=dict(el.counts), init_choice="oneflow" if state is a else "greedy",
                     init_candidates=[_badness(a)[2], _badness(b)[2]])
        if state.overload() > state.tol or plan_cost(inst, state.s)[0] >= FORBIDDEN:
            state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
            stats["init_fallback"] = "least-memory"
    elif opts.get("init", "best") == "oneflow":
        el = _elimination(inst)
        choice, _ = solve_core(el, exact_limit=0, clock=clock.sub(share=0.4))
        state = PlanState(inst, clock=clock, s=el.extend(choice))
        stats["elimination"] = dict(el.counts)
        fix_plan(state)
        if state.overload() > state.tol or plan_cost(inst, state.s)[0] >= FORBIDDEN:
            state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
            stats["init_fallback"] = "least-memory"
    else:
        state = PlanState(inst, clock=clock, s=least_memory_plan(inst))
        if state.overload() > state.tol:
            state.repair_memory()
    stats["init_value"] = plan_cost(inst, state.s)[0]
    st = state.st
    paths = chains(inst) if opts.get("large_moves", True) else []
    rng = ctx.rng
    history = []
    for r in range(opts.get("rounds", 20)):
        gain = state.sweep_nodes()
        if opts.get("pair_moves", True) and not state.expired():
            gain += state.sweep_pairs()
        if opts.get("group_moves", True) and not state.expired():
            gain += state.neighbourhood_sweep()
        if opts.get("large_moves", True) and not state.expired():
            for path in paths:
                gain += state.chain_move(path)
            for _ in range(opts.get("random_paths", 200)):
                path = random_path(st, rng, opts.get("path_length", 8))
                if len(path) >= 2:
                    gain += state.chain_move(path)
            for _ in range(opts.get("regions", 50)):
                if clock.expired() or not st.free_nodes.size:
                    break
                seed_node = int(st.free_nodes[int(rng.integers(st.free_nodes.size))])
                gain += state.region_move(state.region([seed_node], opts.get("region_size", 40)))
        history.append(plan_cost(inst, state.s)[0])
        if gain <= 0 or state.expired():
            break
    stats.update(rounds=len(history), history=history, chains=len(paths),
                 stopped_by_time=clock.expired())
    return _finish(inst, state, stats)
