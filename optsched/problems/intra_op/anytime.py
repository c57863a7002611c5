"""The anytime default of ``intra-op``: a feasible plan at every moment, a certified lower bound,
``optimal`` only when the two meet [ours].

Stages (each recorded in ``stats["stages"]``; every one can be switched off for tests):

1. **start** -- the least-memory plan (per node the allowed strategy of least usage), repaired
   (memory, forbidden pairs) when needed: the fallback that fits whenever any plan does on the
   public instances.
2. **exact** (``milp_max_entries``) -- when the instance is small enough, the MILP of
   :mod:`.model` on the context's back-end with the remaining time: its incumbent and its proven
   bound (status ``optimal`` when it proves it).
3. **lagrange** -- the memory rows priced by multipliers per time point (:mod:`.dual`); every
   priced, memory-free problem is reduced by the exact eliminations and its core bounded by a
   reparametrization (min-sum diffusion): ``L(lam)`` is a certified lower bound; the core's
   plan (the best of the argmin decode, the sequential decode and OneFlow's greedy, improved by
   compiled node, pair and star moves and OneFlow-4 joint moves) is extended, repaired to memory
   feasibility and polished, and the multipliers move by a Polyak subgradient step on the
   relaxed plan's overloads. The stage ends at its share of the time or, earlier, by a
   stagnation rule in steps (:func:`stagnated`).
4. **lns** -- large-neighbourhood search on the best plan until the deadline: node moves, pair
   moves, star moves (a hub with all its neighbours), small-group moves, exact Viterbi DPs over
   chains and random induced paths, exact (elimination) re-optimisation of random connected
   regions, of regions grown from the hubs (sized by the hub's degree) and of regions grown
   where memory binds (with the Lagrangian prices as memory trade-offs; a region's core searched
   from OneFlow's greedy, the current plan and min-sum diffusion decodes), all memory-feasible
   (:class:`.state.PlanState`);
   the expensive families share each round by their recent gain per second (:class:`_Mix`).

Time: every stage polls the solve's one clock (:mod:`optsched.core.clock`; on the command line
it runs from the command's start) through deadlines cut from it; the method stops
``max(1 s, 1.5 %)`` of the limit early so that the checker, the result, writing it and the
interpreter's exit still fit within it. Without a time limit the budget is the option
``budget`` (default 60 s) and the run stops earlier when the plan is proved optimal.

Bound (``stats["bound_source"]``): ``milp`` (the back-end's proven MILP bound), or
``lagrangian-diffusion`` (``max over tried lam`` of the reparametrization bound of the priced
problem minus ``M sum lam``), whichever is larger. Both are valid lower bounds for any
multipliers; no bound is ever estimated.
"""

from __future__ import annotations

import math
import time

import numpy as np

from optsched.core.clock import Deadline
from optsched.core.errors import Infeasible
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .core_search import core_instance, sequential_greedy
from .dual import Core, lagrangian_value, node_prices, priced_instance
from .elimination import eliminate
from .instance import FORBIDDEN, IntraOpInstance, plan_cost
from .model import build_model, decode
from .plan import Plan
from .state import PlanState, chains as path_chains, fix_plan, random_path
from .structure import all_integral, least_memory_plan, structure

__all__ = ["anytime", "MILP_MAX_ENTRIES", "loads_at_points"]

#: edge-cost entries up to which the exact MILP is run (B, G: 2.4e5 entries, proved optimal in
#: 6-24 s on this machine; A, M, S: 5e6 entries, where HiGHS finds no incumbent in 60 s) [ours]
MILP_MAX_ENTRIES = 1_000_000

#: multiples of the Lagrangian node prices tried, in turn, by a binding region whose unpriced
#: optimum overflows [ours: a geometric grid around the dual prices; in a 60 s trial on S a
#: finer list (0.25-2 in steps of 0.25) gained no more]
PRICE_LEVELS = (0.5, 1.0, 2.0)


def loads_at_points(inst: IntraOpInstance, st, s: np.ndarray, usage: np.ndarray | None = None) -> np.ndarray:
    """Memory in use at every compressed time point (interval start) under plan ``s`` (or with
    the per-node ``usage`` given)."""
    u = inst.usage[st.off[:-1] + s] if usage is None else usage
    live = st.b > st.a
    diff = np.zeros(len(st.times) + 1)
    np.add.at(diff, st.a[live], u[live])
    np.add.at(diff, st.b[live], -u[live])
    return np.cumsum(diff)[:-1]


class _Best:
    """The best feasible plan and the best certified bound so far."""

    def __init__(self, inst: IntraOpInstance, integral: bool):
        self.inst = inst
        self.value = math.inf
        self.s: np.ndarray | None = None
        self.bound = -math.inf
        self.bound_source = None
        self.integral = integral
        self.found_by = None
        self.trace: list = []
        #: the memory prices (per compressed time point) of the best Lagrangian value, if any
        self.price: np.ndarray | None = None
        self.price_value = -math.inf

    def offer(self, state: PlanState, source: str, t0: float) -> bool:
        if state.overload() > state.tol:
            return False
        value = plan_cost(self.inst, state.s)[0]
        if value >= FORBIDDEN or value >= self.value:
            return False
        self.value, self.s, self.found_by = value, state.s.copy(), source
        self.trace.append((round(time.perf_counter() - t0, 3), source, value))
        return True

    def offer_bound(self, bound: float | None, source: str) -> None:
        if bound is None or not math.isfinite(bound):
            return
        # float sums: lower a computed bound by a relative 1e-9 before it certifies anything
        b = bound - 1e-9 * abs(bound)
        if self.integral:
            b = math.ceil(b - 1e-6)
        if b > self.bound:
            self.bound, self.bound_source = b, source

    @property
    def closed(self) -> bool:
        # the bound was lowered by 1e-9 relative before certifying (offer_bound): a plan within
        # twice that of it is proved optimal up to float rounding
        return self.s is not None and self.value <= self.bound + 2e-9 * abs(self.value)


def _allowed_or_raise(inst: IntraOpInstance, st) -> None:
    ok = st.allowed.copy()
    if math.isfinite(st.limit):
        live = np.repeat(st.b > st.a, inst.num_strategies)
        ok &= ~live | (inst.usage <= st.limit)
    per_node = np.add.reduceat(ok.astype(np.int64), st.off[:-1])
    empty = np.flatnonzero(per_node == 0)
    if empty.size:
        raise Infeasible(f"node {int(empty[0])} has no allowed strategy (every cost >= {FORBIDDEN:g} or usage "
                         "over the limit)")
    if math.isfinite(st.limit) and len(st.times):
        # each node at its least usage among allowed strategies minimizes the load at every time
        # at once: if that load exceeds the limit somewhere, no plan fits
        least = np.where(ok, inst.usage, np.inf)
        least = np.minimum.reduceat(least, st.off[:-1])
        load = loads_at_points(inst, st, np.zeros(inst.num_nodes, np.int64), usage=least)
        j = int(np.argmax(load))
        if load[j] > st.limit * (1 + 1e-9):
            raise Infeasible(f"even with every node at its least allowed usage the memory at time "
                             f"{int(st.times[j])} is {load[j]:g} > the limit {st.limit:g}")


def _stage(stats: dict, name: str, t0: float) -> None:
    """Record that a stage starts (its name, and the seconds since the method's start)."""
    stats["stages"].append(name)
    stats.setdefault("stage_start_s", []).append(round(time.perf_counter() - t0, 3))


def _polish(state: PlanState, opts) -> None:
    """Compiled node and pair sweeps on a repaired plan, up to ``polish_sweeps`` passes or until
    one gains nothing."""
    for _ in range(int(opts.get("polish_sweeps", 10))):
        gain = state.fast_sweep()
        if opts.get("star_moves", True) and not state.expired():
            gain += state.star_sweep()
        if gain <= 0 or state.expired():
            break


def _make_feasible(state: PlanState, fast: bool = True) -> None:
    """Memory repair, then the forbidden-pair fixes (until the state's clock). With ``fast``, the
    compiled greedy repair first; its plan is kept when it fits without adding a forbidden pair
    (the full repair then only removes the forbidden pairs the plan had), else the full repair
    runs from the original plan."""
    if fast and state.overload() > state.tol:
        snap = state.snapshot()
        before = state.forbidden_edges().size
        if not (state.fast_repair() and state.forbidden_edges().size <= before):
            state.restore(snap)
    fix_plan(state)


class _Mix:
    """How the LNS shares its rounds among the expensive move families [ours; the adaptive
    weights of adaptive large-neighbourhood search, Ropke and Pisinger 2006, Transportation
    Science 40(4), reduced to one rate per family]: each family's gain per second is tracked
    (an average halving the weight of older rounds), and a round gives each family a slice of
    its length proportional to that rate, at least ``floor`` of the best family's, and at least one
    unit of work. A family that gains nothing on an instance (the binding regions where memory
    is slack, the hub regions where the hubs are settled) thus costs a small part of each round."""

    def __init__(self, names, floor: float = 0.15):
        self.rate = {name: None for name in names}
        self.unit_s: dict = {}
        self.spent: dict = {}
        self.floor = floor

    def slices(self, names, length: float) -> dict:
        known = [self.rate[n] for n in names if self.rate[n] is not None]
        top = max(known) if known else 0.0
        w = {}
        for n in names:
            r = self.rate[n]
            w[n] = 1.0 if r is None or top <= 0 else max(self.floor, r / top)
        total = sum(w.values())
        return {n: length * w[n] / total for n in names}

    def runs(self, name: str, share: float, rng) -> bool:
        """Whether the family runs this round: always when its last unit fitted in its slice
        ``share``, else with probability share / unit (its expected time is then the slice)."""
        unit_s = self.unit_s.get(name)
        return unit_s is None or share >= unit_s or rng.random() < share / unit_s

    def record(self, name: str, gain: float, seconds: float, unit_s: float) -> None:
        r = max(gain, 0.0) / max(seconds, 1e-3)
        old = self.rate.get(name)
        self.rate[name] = r if old is None else 0.5 * old + 0.5 * r
        self.unit_s[name] = unit_s
        self.spent[name] = self.spent.get(name, 0.0) + seconds


def _lns_round(state: PlanState, rng, chains, opts, end: Deadline, focus: set | None = None,
               price: np.ndarray | None = None, mix: _Mix | None = None, length: float = 2.0) -> float:
    """One round of the large-neighbourhood search; returns the gain. With ``focus`` (the nodes
    changed since the last round), the node, pair and group sweeps visit only those nodes and
    their neighbours (elsewhere nothing changed, so those moves would find nothing new). Then
    the expensive families (star and group sweeps, once per round at most; hub regions, binding
    regions, path and region DPs) share about ``length`` seconds as ``mix`` says. ``price``: per
    node, the memory price of the binding regions' trade-offs (None: none)."""
    st = state.st
    pairs = opts.get("pair_moves", True)
    nodes = None
    if focus is not None:
        near = set(focus)
        for x in focus:
            near.update(int(w) for w in st.neighbours[x])
        nodes = sorted(near)
    t_sweeps = time.perf_counter()
    if opts.get("fast_moves", True):
        # compiled node and pair sweeps until they stop gaining (milliseconds each on A)
        gain = 0.0
        for _ in range(10):
            g = state.fast_sweep(nodes, pairs=pairs)
            gain += g
            if g <= 0 or end.expired():
                break
    else:
        gain = state.sweep_nodes(order=nodes)
        if pairs and not end.expired():
            if nodes is None:
                gain += state.sweep_pairs()
            else:
                edges = sorted({int(st.inc_edge[i]) for x in nodes for i in range(st.inc_ptr[x], st.inc_ptr[x + 1])})
                for j, e in enumerate(edges):
                    if j % 256 == 0 and end.expired():
                        break
                    x, y = int(state.inst.edge_u[e]), int(state.inst.edge_v[e])
                    if 1 < st.k[x] * st.k[y] <= 40_000:
                        gain += state.set_move([x, y])
    if mix is not None:
        mix.spent["sweeps"] = mix.spent.get("sweeps", 0.0) + time.perf_counter() - t_sweeps

    units, once = {}, set()
    if opts.get("star_moves", True):
        units["star"] = state.star_sweep
        once.add("star")
    if opts.get("group_moves", True):
        units["group"] = lambda: state.neighbourhood_sweep(nodes=nodes, free=True)
        once.add("group")
    hubs = _hubs(st)
    if opts.get("hub_regions", True) and hubs.size:
        # exact re-optimisation of large regions grown from the hubs (degree >= 8), visiting the
        # hubs in turn across rounds (A: a 900-node region around a hub of degree 303 gains 4.9%
        # where every smaller move finds nothing). A region's size grows with its hub's degree
        # [ours]: with 1,000 nodes for every hub one pass over A's 1,139 hubs takes minutes, with
        # 4 per edge (100-1,000) 42 s, and the 70 nodes around a hub of degree 34 that hold
        # 0.37% of A's cost are reached in 18 s
        hi = int(opts.get("hub_region_size", 1000))
        lo = min(hi, int(opts.get("hub_region_min", 100)))
        per_degree = float(opts.get("hub_region_per_degree", 4.0))
        deg = np.diff(st.inc_ptr)

        def hub_unit() -> float | None:
            h = int(hubs[state.__dict__.setdefault("_hub_cursor", 0) % hubs.size])
            state._hub_cursor += 1
            size = int(min(hi, max(lo, per_degree * deg[h])))
            return state.region_move(state.region([h], size), fast=True)
        units["hub"] = hub_unit
    if opts.get("binding_regions", True) and math.isfinite(st.limit):
        # exact re-optimisation of regions grown from nodes live where memory binds, with the
        # Lagrangian stage's memory prices as trade-offs when the unpriced optimum overflows [ours]
        bsize = int(opts.get("binding_region_size", 300))
        levels = PRICE_LEVELS if opts.get("priced_regions", True) else ()

        def binding_unit() -> float | None:
            seed_node = state.binding_seed(rng)
            if seed_node is None:
                return None  # memory binds nowhere: nothing to trade this round
            return state.region_move(state.region([seed_node], bsize), fast=True, price=price, levels=levels)
        units["binding"] = binding_unit
    if opts.get("large_moves", True):
        n_paths = max(1, int(opts.get("random_paths", 200)) // 10)
        n_regions = max(1, int(opts.get("regions", 50)) // 10)

        def large_unit() -> float | None:
            g = 0.0
            c = state.__dict__.setdefault("_chain_cursor", 0)
            for path in chains[c:c + 64]:
                g += state.chain_move(path)
            state._chain_cursor = c + 64 if c + 64 < len(chains) else 0
            for _ in range(n_paths):
                path = random_path(st, rng, opts.get("path_length", 8))
                if len(path) >= 2:
                    g += state.chain_move(path)
            for _ in range(n_regions):
                if not st.free_nodes.size:
                    break
                seed_node = int(st.free_nodes[int(rng.integers(st.free_nodes.size))])
                g += state.region_move(state.region([seed_node], opts.get("region_size", 40)))
            return g
        units["large"] = large_unit
    if not units or end.expired():
        return gain
    mix = mix if mix is not None else _Mix(units)
    for name, share in mix.slices(list(units), length).items():
        if not mix.runs(name, share, rng):
            continue
        t_start = time.perf_counter()
        got, ran = 0.0, 0
        while not end.expired():
            g = units[name]()
            if g is None:
                break
            got += g
            ran += 1
            if name in once or time.perf_counter() - t_start >= share:
                break
        if ran:
            spent = time.perf_counter() - t_start
            mix.record(name, got, spent, spent / ran)
        gain += got
    return gain


def _hubs(st, min_degree: int = 8) -> np.ndarray:
    """Changeable nodes with at least ``min_degree`` incident edges, largest degree first."""
    deg = np.diff(st.inc_ptr)
    hubs = np.flatnonzero((deg >= min_degree) & (st.k > 1))
    return hubs[np.argsort(-deg[hubs], kind="stable")]


def anytime(inst: IntraOpInstance, ctx: SolveContext) -> Outcome:
    """Anytime plan + certified bound (see the module docstring).

    Guarantee: the returned plan is checked feasible; ``bound <= OPT`` always (MILP bound or a
    Lagrangian / reparametrization dual value); ``status = optimal`` only when the bound meets
    the plan's cost (integral costs: within 1), never at a time limit.
    """
    t0 = time.perf_counter()
    opts = ctx.options
    left = ctx.remaining()
    limited = left is not None
    budget = left if limited else float(opts.get("budget", 60.0))
    clock = ctx.clock if limited else Deadline.after(budget)
    # the checker, the result record, writing it and the interpreter's exit follow the method
    # (the exit alone took 0.7-1.2 s with every module imported, measured at load 10-12)
    reserve = max(1.0, 0.015 * (ctx.time_limit if limited else budget))
    end = Deadline(clock.at - reserve)
    st = structure(inst)
    _allowed_or_raise(inst, st)
    integral = all_integral(inst.cost) and all_integral(inst.edge_cost)   # chunked: no 1.2 GB temporary
    best = _Best(inst, integral)
    stats: dict = {"stages": []}
    rng = ctx.rng

    def out() -> bool:
        return end.expired()

    # 1. start: the least-memory plan, repaired
    state = PlanState(inst, least_memory_plan(inst), end.sub(float(opts.get("start_share", 0.1)) * budget))
    if plan_cost(inst, state.s)[0] >= FORBIDDEN and state.overload() <= state.tol:
        # memory-feasible node moves first: they remove most forbidden pairs in a second
        for _ in range(3):
            if state.fast_sweep(pairs=False) <= 0 or state.expired():
                break
    # forbidden pairs left: the memory-lean start (least total usage without forbidden pairs).
    # Option defer_lean: only if the Lagrangian stage finds no plan (measured on A under load:
    # no plan before the 60 s limit's last second, so the default runs it first)
    forbidden_left = plan_cost(inst, state.s)[0] >= FORBIDDEN
    defer_lean = forbidden_left and opts.get("lean_start", True) and opts.get("lagrange", True) and \
        math.isfinite(st.limit) and opts.get("defer_lean", False)
    if forbidden_left and opts.get("lean_start", True) and not defer_lean:
        _stage(stats, "lean-start", t0)
        lean = _lean_plan(inst, st, end.sub(5 * float(opts.get("start_share", 0.1)) * budget))
        if lean is not None and plan_cost(inst, lean.s)[0] < FORBIDDEN:
            state = lean
    if not defer_lean and (state.overload() > state.tol or plan_cost(inst, state.s)[0] >= FORBIDDEN):
        _make_feasible(state, opts.get("fast_repair", True))
    best.offer(state, "least-memory", t0)
    _stage(stats, "start", t0)
    stats["start_value"] = best.value if best.s is not None else None

    # 2. exact: the MILP when the instance is small
    milp_status = None
    if opts.get("exact", True) and inst.edge_cost.size <= opts.get("milp_max_entries", MILP_MAX_ENTRIES) and not out():
        _stage(stats, "milp", t0)
        model = build_model(inst)
        share = float(opts.get("milp_share", 0.6))
        sol = ctx.solve_model(model, time_limit=max(0.0, share * end.remaining()))
        milp_status = sol.status
        stats["milp_status"] = sol.status
        if sol.status == "infeasible":
            raise Infeasible(f"the MILP is infeasible ({sol.backend}: {sol.message})")
        if sol.x is not None:
            cand = PlanState(inst, np.array(decode(inst, model, sol.x)["strategy"], dtype=np.int64))
            best.offer(cand, "milp", t0)
        if sol.status == "optimal" and sol.objective is not None:
            best.offer_bound(sol.objective, "milp")
        elif sol.bound is not None:
            best.offer_bound(sol.bound, "milp")

    # 3. lagrange: priced memory-free problems, bound + repaired plans
    # uninterruptible set-up of the next stages, roughly (seconds on a loaded 2-core machine):
    # a stage is skipped when it could not start and stop before the deadline
    setup = 5e-5 * (inst.num_nodes + inst.num_edges) + 1e-6 * inst.edge_cost.size
    if (opts.get("lagrange", True) or best.s is None) and not best.closed and not out() and (
            best.s is None or end.remaining() > setup):
        _stage(stats, "lagrange", t0)
        share = float(opts.get("lagrange_share", 0.7))
        lag_end = end.sub(share=share)
        reserve_lean = 0.3 * budget if defer_lean else 0.0
        _lagrange(inst, st, best, stats, lag_end, end, opts, t0, no_plan_end=Deadline(end.at - reserve_lean))
    if best.s is None and defer_lean and not out():
        _stage(stats, "lean-start", t0)
        state = _lean_plan(inst, st, end)
        if state.overload() > state.tol or plan_cost(inst, state.s)[0] >= FORBIDDEN:
            _make_feasible(state, opts.get("fast_repair", True))
        best.offer(state, "lean", t0)

    # 4. lns on the best plan
    if opts.get("lns", True) and best.s is not None and not best.closed and not out() and \
            end.remaining() > 0.3 * setup:
        _stage(stats, "lns", t0)
        state = PlanState(inst, best.s, end)
        chains = path_chains(inst) if opts.get("large_moves", True) else []
        node_price = node_prices(st, best.price) if best.price is not None and opts.get("priced_regions", True) \
            else None
        rounds = stale = 0
        focus = None
        mix = _Mix(("star", "group", "hub", "binding", "large"))
        # a round's expensive moves share about 2% of the budget (1.2 s at 60 s, 4.8 s at 240 s)
        length = float(opts.get("round_seconds", 0.0)) or min(10.0, max(0.5, 0.02 * budget))
        while not out() and not best.closed:
            state.touched = set()
            gain = _lns_round(state, rng, chains, opts, end, focus if opts.get("focus", True) else None,
                              price=node_price, mix=mix, length=length)
            focus = state.touched
            rounds += 1
            best.offer(state, "lns", t0)
            stale = 0 if gain > 0 else stale + 1
            if not limited and stale >= opts.get("patience", 3):
                break
            if rounds >= opts.get("max_rounds", 10_000):
                break
        stats["lns_rounds"] = rounds
        stats["lns_gain_per_s"] = {k: (None if v is None else round(v, 3)) for k, v in mix.rate.items()}
        stats["lns_seconds"] = {k: round(v, 2) for k, v in mix.spent.items()}

    if best.s is None:
        return Outcome(status="time_limit" if limited and out() else "error", bound=_bound(best),
                       reason="no memory-feasible plan found (the least-memory plan and every repair overflow)",
                       stats=stats)
    stats.update(bound_source=best.bound_source, found_by=best.found_by, trace=best.trace[-20:],
                 elapsed_s=round(time.perf_counter() - t0, 3), budget_s=round(budget, 3),
                 stop_s=round(end.at - t0, 3))
    if best.closed:
        status = "optimal"
    elif limited and end.expired():
        status = "time_limit"
    else:
        status = "feasible"
    if milp_status == "optimal" and best.found_by == "milp":
        status = "optimal"
    return Outcome(solution={"strategy": best.s.tolist()}, objective=best.value, bound=_bound(best),
                   status=status, stats=stats)


def _bound(best: _Best):
    return best.bound if math.isfinite(best.bound) else None


def stagnated(steps: int, best_step: int, patience: float, min_steps: int) -> bool:
    """Whether a stage that offered its best plan at step ``best_step`` (0: none) has taken
    enough steps without a better one: ``steps >= max(min_steps, (1 + patience) * best_step)``
    [ours; a stagnation rule, in steps so that it does not depend on the machine's speed].
    ``patience <= 0``: never."""
    return patience > 0 and steps >= max(min_steps, (1.0 + patience) * best_step)


def _lagrange(inst, st, best: _Best, stats: dict, lag_end: Deadline, end: Deadline, opts, t0: float, *,
              no_plan_end: Deadline | None = None) -> None:
    """Subgradient on memory prices; each step gives a bound and a repaired plan. Runs until
    ``lag_end``, or until it has taken ``1 + lagrange_patience`` times as many steps as it took
    to offer its best plan, and at least ``lagrange_min_steps`` (:func:`stagnated`): then the LNS
    gets the rest (on S the best relaxed plan came at step 12 after 36 s, and 44 more steps in
    130 s found none better, while the LNS still gained at the deadline)."""
    limit = st.limit
    memory = math.isfinite(limit) and len(st.times) > 0
    price = np.zeros(len(st.times)) if memory else None
    t_setup = time.perf_counter()
    st.release_edge_costs()   # memory: rebuilt by the first repair (see the loop)
    el = eliminate(priced_instance(inst, st, price))
    core = Core(el)
    setup_s = time.perf_counter() - t_setup
    sweeps = int(opts.get("sweeps", 0)) or max(20, min(400, int(2e8 / max(1, core.entries))))
    step_scale, last_best, stall = 1.0, -math.inf, 0
    history, times = [], []
    it = 0
    no_plan_end = end if no_plan_end is None else no_plan_end
    patience = float(opts.get("lagrange_patience", 2.0))
    min_steps = int(opts.get("lagrange_min_steps", 6))
    best_step, stop_reason = 0, "share"
    while not (lag_end if best.s is not None else no_plan_end).expired():
        tt = [time.perf_counter()]
        stop = lag_end if best.s is not None else no_plan_end
        if it and stop.remaining() < 1.5 * setup_s:
            break  # the next step's uninterruptible setup would not fit
        priced = priced_instance(inst, st, price)
        if it:
            st.release_edge_costs()   # memory: see below
            el = eliminate(priced)
            core.set_costs(el)
            setup_s = time.perf_counter() - tt[0]
        lb = core.diffuse(sweeps if it == 0 else max(10, sweeps // 3), damping=0.8, clock=lag_end)
        value = lagrangian_value(lb, price, limit) if memory else lb
        if memory and value > best.price_value:
            # the multipliers of the best dual value: the LNS prices memory with them
            best.price, best.price_value = price.copy(), value
        best.offer_bound(value, "lagrangian-diffusion")
        tt.append(time.perf_counter())
        # OneFlow's sequential greedy only on the first step: later the warm reparametrization
        # decodes well and the greedy costs as much as the rest of the step
        s = _core_plan(el, core, lag_end if best.s is not None else end, rounds=2,
                       greedy=it == 0 and opts.get("core_greedy", True),
                       sequential=opts.get("sequential_decode", True), compiled=opts.get("star_moves", True))
        # memory: besides the instance's, one array of the edge costs' size at a time (1.2 GB
        # on a 1.45e8-entry file): the core's costs live from the elimination to the core
        # plan (dropped here; phi stays for the warm start), the working costs of the moves on
        # the instance from the repair below (rebuilt on first use, the same numbers) to the next
        # elimination (released above)
        el = None
        core.release()
        loads = loads_at_points(inst, st, s) if memory else None
        tt.append(time.perf_counter())
        history.append(value)
        it += 1
        over = float(loads.max()) / limit if memory and loads.size else 0.0
        repair_every = int(opts.get("repair_every", 4))
        if opts.get("repair", True) and not end.expired() and (
                it == 1 or over <= float(opts.get("repair_within", 1.25)) or it % repair_every == 0
                or lag_end.expired()):
            if over > float(opts.get("clamp_over", 2.0)) and opts.get("clamp", True):
                # far over the limit: a fast plan first -- every node live at an overloaded time to
                # its least-usage strategy, then the forbidden-pair fixes and node moves
                fast = PlanState(inst, s, Deadline(min(no_plan_end.at, end.sub(share=0.25).at)))
                fast.clamp_overloaded()
                _make_feasible(fast, opts.get("fast_repair", True))
                if fast.overload() <= fast.tol:
                    _polish(fast, opts)
                best.offer(fast, f"lagrange-clamp[{it}]", t0)
            state = None
            # the first relaxed plan may take half the time left to repair (all of it while no
            # plan exists; A: the repaired memory-free plan is 2-4x cheaper than the memory-lean
            # start); later ones a tenth
            if opts.get("full_repair", True):
                fix_by = (no_plan_end if best.s is None else end.sub(share=0.5)) if it == 1 else \
                    Deadline(min(end.at, max(lag_end.at, end.sub(share=0.1).at)))
                state = PlanState(inst, s, fix_by)
                _make_feasible(state, opts.get("fast_repair", True))
                if state.overload() <= state.tol:
                    _polish(state, opts)
                best.offer(state, f"lagrange[{it}]", t0)
        tt.append(time.perf_counter())
        times.append([round(b - a, 2) for a, b in zip(tt, tt[1:])] + [round(over, 3)])
        if not memory or best.closed or it >= int(opts.get("lagrange_iterations", 200)) or step_scale < 1e-4:
            break
        if best.s is not None and lag_end.expired():
            break
        if best.found_by is not None and best.found_by.endswith(f"[{it}]"):
            best_step = it  # this step's relaxed plan, repaired, is the best plan
        if best.s is not None and stagnated(it, best_step, patience, min_steps):
            stop_reason = "stagnation"
            break
        g = loads - limit
        if value > last_best + 1e-9 * abs(last_best if math.isfinite(last_best) else 0):
            last_best, stall = value, 0
        else:
            stall += 1
            if stall >= 2:
                step_scale, stall = step_scale / 2, 0
        target = best.value if best.s is not None else abs(value) * 1.5 + 1.0
        gg = np.where((price > 0) | (g > 0), g, 0.0)
        norm = float(gg @ gg)
        if norm <= 0:
            break
        price = np.maximum(0.0, price + step_scale * max(target - value, 1e-9 * abs(target)) / norm * gg)
    if stop_reason != "stagnation":
        stop_reason = "share" if lag_end.expired() else "steps"
    stats.update(lagrange_iterations=it, lagrange_stop=stop_reason, lagrange_best_step=best_step,
                 lagrange_history=[float(x) for x in history[-30:]],
                 core_nodes=int(core.nodes.size), core_edges=len(core.keys), diffusion_sweeps=sweeps,
                 lagrange_times=times[-30:])


def _lean_plan(inst: IntraOpInstance, st, deadline: Deadline) -> PlanState | None:
    """A plan of least total usage among those without forbidden pairs, approximately: the
    memory-free problem with node costs ``u_v(s) + eps c_v(s)`` and edge costs ``eps E`` (forbidden
    entries at the working penalty), reduced by the eliminations, the core decoded from a
    reparametrization and polished by node moves; then node moves on the real instance that keep
    memory. None if the clock ran out."""
    import dataclasses

    from .instance import _Adopt
    from .structure import CHUNK

    # memory (a file of 1.45e8 edge-cost entries: 1.2 GB an array): the moves' working edge costs
    # are dropped until the plan below rebuilds them; the lean edge costs are made a chunk at a
    # time (elementwise: the same numbers) and handed to the instance without a copy
    st.release_edge_costs()
    allowed_e = inst.edge_cost < FORBIDDEN
    upper = float(np.where(st.allowed, inst.cost, 0).sum() + np.where(allowed_e, inst.edge_cost, 0).sum()) + 1.0
    pos = inst.usage[inst.usage > 0]
    eps = (float(pos.min()) if pos.size else 1.0) / (2 * upper)
    cost = np.where(st.allowed, inst.usage + eps * inst.cost, 2 * FORBIDDEN)
    ecost = np.empty_like(inst.edge_cost)
    for lo in range(0, ecost.size, CHUNK):
        ecost[lo:lo + CHUNK] = np.where(allowed_e[lo:lo + CHUNK], eps * inst.edge_cost[lo:lo + CHUNK], 2 * FORBIDDEN)
    del allowed_e
    lean = dataclasses.replace(inst, cost=cost, edge_cost=_Adopt(ecost), usage_limit=None)
    del ecost
    el = eliminate(lean)
    # memory: the lean costs are dead once eliminated (the core holds its own); the elimination
    # keeps its instance only for the node count (``extend``), which ``inst`` has too
    el.inst = inst
    del lean
    s = _core_plan(el, None, deadline)
    del el   # memory: dead before the plan's moves rebuild their working costs
    state = PlanState(inst, s, deadline)
    if state.overload() > state.tol:
        state.repair_memory(allow_forbidden=False)
    if state.overload() <= state.tol:
        for _ in range(2):
            if state.fast_sweep(pairs=False) <= 0 or state.expired():
                break
    return state


def _core_plan(el, core: Core | None, deadline: Deadline, rounds: int = 3, greedy: bool = True,
               sequential: bool = False, compiled: bool = False) -> np.ndarray:
    """A plan of the memory-free problem behind ``el``: the core's choice from the better of the
    reparametrization's decode (without one: each node's cheapest strategy), with ``sequential``
    also its sequential decode (:meth:`.dual.Core.sequential_decode`), and OneFlow's
    sequential greedy, improved (with ``compiled``: first by compiled node and pair sweeps) by
    joint moves of a node with up to 3 neighbours (OneFlow's ``GreedyStrategy(4)``
    neighbourhood), then extended exactly through the eliminated nodes."""
    choice = core.decode() if core is not None else el.independent_choice()
    linked = sorted({v for key in el.edges for v in key})
    if not linked:
        return el.extend(choice)
    sub = core_instance(el, linked)
    start = np.array([choice[v] for v in linked], dtype=np.int64)
    if sequential and core is not None:
        seq_choice = core.sequential_decode()
        cand = np.array([seq_choice[v] for v in linked], dtype=np.int64)
        if plan_cost(sub, cand)[0] < plan_cost(sub, start)[0]:
            start = cand
    if greedy:
        seq = sequential_greedy(sub)
        if plan_cost(sub, seq)[0] < plan_cost(sub, start)[0]:
            start = seq
    state = Plan(sub, start, deadline)
    if compiled:
        for _ in range(20):
            gain = state.fast_sweep()
            if not state.expired():
                gain += state.star_sweep()
            if gain <= 0 or state.expired():
                break
    for _ in range(rounds):
        gain = state.sweep_nodes(memory=False)
        if not state.expired():
            gain += state.neighbourhood_sweep(memory=False)
        if gain <= 0 or state.expired():
            break
    choice.update({v: int(state.s[i]) for i, v in enumerate(linked)})
    return el.extend(choice)
