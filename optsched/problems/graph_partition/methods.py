"""Registered methods of ``graph-partition`` (thin wrappers; the algorithms live beside)."""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError, TimeLimitReached
from optsched.core.params import Interval, check_value
from optsched.core.registry import Option, Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from optsched.graphs.kernels import fm_refine_csr, rebalance_csr, stream_assign

from . import algorithms, baselines
from .algorithms import bgl_partition
from .model import BRUTE_MAX_ASSIGNMENTS, brute_force, build_model, decode
from .problem import PROBLEM

MILP_MAX_NODES = 150
#: metis-fm's METIS seeds on small graphs [ours: on generated planted-community graphs of 3,000 to
#: 10,000 nodes the worst of 8 METIS seeds had 1.03-1.13x the traffic of the best; four runs cost
#: well under a second there]
METIS_FM_SMALL_TRIALS = 4
METIS_FM_SMALL_EDGES = 200_000


def _outcome(instance, parts, stats=None) -> Outcome:
    parts = [int(p) for p in parts]
    return Outcome(solution={"parts": parts}, objective=instance.graph.cut_weight(parts), stats=stats or {})


@PROBLEM.method("milp", kind="exact", fidelity="reconstruction", uses_backend=True,
                summary="min-cut MILP with both balance rows, node 0 in part 0 (optsched/problems/graph_partition/README.md)",
                applicable=size_limit(lambda inst: inst.num_nodes, MILP_MAX_NODES, "nodes", "milp"))
def milp(instance, ctx: SolveContext) -> Outcome:
    model = build_model(instance)
    return model_outcome(ctx, model, lambda x: decode(instance, model, x))


@PROBLEM.method("brute", kind="exact", fidelity="ours", summary="enumerate K^(n-1) assignments (tests)",
                applicable=size_limit(lambda inst: inst.num_parts ** (inst.num_nodes - 1), BRUTE_MAX_ASSIGNMENTS,
                                      "assignments K^(n-1)", "brute"))
def brute(instance, ctx: SolveContext) -> Outcome:
    value, parts = brute_force(instance)
    out = _outcome(instance, parts)
    out.status, out.bound = "optimal", value
    return out


#: declared ranges of bgl's counts [ours: each V-cycle and trial is a full multilevel run; beyond
#: these a run is only longer, and a count near 10^400 would otherwise loop until the time limit]
BGL_MAX_VCYCLES = 1_000
BGL_MAX_TRIALS = 1_000
BGL_OPTIONS = {
    "coarsening": Option(str, "lp", "lp: compiled label propagation in BFS order (bgl_lean); blocks: the "
                                    "earlier BFS blocks of block_size nodes (bgl_multilevel)", choices=("lp", "blocks")),
    "block_size": Option(int, algorithms.BGL_BLOCK_SIZE, "nodes per BFS block at each level (coarsening=blocks)",
                         bounds=Interval(1, 1_000_000)),
    "vcycles": Option(int, 0, "V-cycles (further ones re-coarsen inside the parts) [ours]; 0: 2, or 1 above "
                              f"{algorithms.LEAN_FAST_EDGES:,} edges (coarsening=lp)",
                      bounds=Interval(0, BGL_MAX_VCYCLES)),
    "refine": Option(bool, True, "FM refinement at every level"),
    "trials": Option(int, 0, "independent runs (BFS roots), best kept [ours]; 0: "
                             f"{algorithms.LEAN_SMALL_TRIALS} up to {algorithms.LEAN_SMALL_EDGES:,} edges, else 1",
                     bounds=Interval(0, BGL_MAX_TRIALS)),
}


def _in_range(instance, ctx, options: dict) -> None:
    """Each numeric option within its declared interval (a typed error naming it, never clamped)."""
    for name, opt in options.items():
        if opt.bounds is not None:
            check_value(instance.problem, f"option {name}", opt, ctx.options[name])


@PROBLEM.method("bgl", color="#4477aa", kind="heuristic", fidelity="reconstruction", randomized=True,
                summary="multi-level BGL: label-propagation coarsening (BFS blocks: coarsening=blocks), greedy assignment with balance, LP and FM per level",
                options=BGL_OPTIONS)
def bgl(instance, ctx: SolveContext) -> Outcome:
    _in_range(instance, ctx, BGL_OPTIONS)
    best, cuts = None, []

    def poll(current) -> None:
        """The clock, read before every trial, V-cycle and level: at the limit, the best partition
        so far (this run's or an earlier trial's) is the incumbent."""
        if not ctx.expired():
            return
        incumbent = None
        if current is not None:
            cut = instance.graph.cut_weight(current)
            if best is None or cut < best[0]:
                incumbent = _outcome(instance, current, {"trial_cuts": cuts + [cut]})
        if incumbent is None and best is not None:
            incumbent = _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})
        raise TimeLimitReached(f"time limit of {ctx.time_limit} s reached", incumbent)

    trials = ctx.options["trials"] or (algorithms.LEAN_SMALL_TRIALS
                                       if len(instance.edges) <= algorithms.LEAN_SMALL_EDGES else 1)
    if ctx.options["coarsening"] == "lp":
        engine = {"engine": algorithms.bgl_lean,
                  **algorithms.bgl_profile(len(instance.edges), ctx.options["vcycles"])}
    else:
        engine = {"engine": algorithms.bgl_multilevel, "block_size": ctx.options["block_size"],
                  "vcycles": ctx.options["vcycles"] or 2}
    for _ in range(trials):
        poll(None)
        parts, stats = algorithms.bgl_vcycles(*instance.csr, instance.num_parts, instance.node_weights,
                                              instance.capacities, ctx.rng, **engine, refine=ctx.options["refine"],
                                              poll=poll)
        cuts.append(instance.graph.cut_weight(parts))
        if best is None or cuts[-1] < best[0]:
            best = (cuts[-1], parts, stats)
    return _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})


BGL_1LEVEL_OPTIONS = {
    "block_size": Option(int, 16, "nodes per BFS block", bounds=Interval(1, 1_000_000)),
    "refine": Option(bool, True, "FM refinement after uncoarsening"),
    "trials": Option(int, 4, "independent runs (BFS sources), best kept [ours]", bounds=Interval(1, BGL_MAX_TRIALS)),
}


def _best_so_far(ctx, instance, best, stats_of) -> None:
    """At the time limit, stop with the best partition so far (if any) as the incumbent."""
    if ctx.expired():
        raise TimeLimitReached(f"time limit of {ctx.time_limit} s reached",
                               None if best is None else _outcome(instance, best[1], stats_of(best)))


#: the largest graphs of the pure-Python methods [ours, through the CLI at --time-limit 5, on
#: generated graphs of mean degree 4 (about 2 edges per node): kl 3.4 s at 20,000 nodes and past
#: 100 s at 200,000 (networkx's swaps cannot be stopped); bgl-1level 9.8 s at 200,000 nodes and 92 s
#: at 10^6 (its block assignment is a Python loop)]. Their work grows with the edges too, so each
#: refuses more edges than the measured graph had as well (a denser graph of as many nodes).
KL_MAX_NODES, KL_MAX_EDGES = 20_000, 40_000
BGL_1LEVEL_MAX_NODES, BGL_1LEVEL_MAX_EDGES = 200_000, 400_000


def _nodes_and_edges(max_nodes: int, max_edges: int, method: str):
    """An ``applicable`` predicate: at most ``max_nodes`` nodes and at most ``max_edges`` edges."""
    by_nodes = size_limit(lambda inst: inst.num_nodes, max_nodes, "nodes", method)
    by_edges = size_limit(lambda inst: len(inst.edges), max_edges, "edges", method)

    def applies(instance) -> tuple[bool, str]:
        ok, why = by_nodes(instance)
        if not ok:
            return ok, why
        ok_e, why_e = by_edges(instance)
        return ok_e, why_e if not ok_e else f"{why}, {why_e}"
    return applies


@PROBLEM.method("bgl-1level", kind="heuristic", fidelity="reconstruction", randomized=True,
                summary="one-level BGL: BFS blocks of 16, LDG-like block assignment, FM on blocks then nodes",
                options=BGL_1LEVEL_OPTIONS,
                applicable=_nodes_and_edges(BGL_1LEVEL_MAX_NODES, BGL_1LEVEL_MAX_EDGES, "bgl-1level"))
def bgl_1level(instance, ctx: SolveContext) -> Outcome:
    _in_range(instance, ctx, BGL_1LEVEL_OPTIONS)
    best, cuts = None, []
    for _ in range(ctx.options["trials"]):
        _best_so_far(ctx, instance, best, lambda b: {**b[2], "trial_cuts": list(cuts)})
        parts, stats = bgl_partition(instance.graph, instance.num_parts, instance.node_weights, instance.capacities,
                                     ctx.rng, block_size=ctx.options["block_size"], refine=ctx.options["refine"],
                                     stop=ctx.expired)
        cuts.append(instance.graph.cut_weight(parts))
        if best is None or cuts[-1] < best[0]:
            best = (cuts[-1], parts, stats)
    return _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})


METIS_FM_OPTIONS = {
    "passes": Option(int, 10, "FM passes at most", bounds=Interval(1, 1_000)),
    "trials": Option(int, 0, "METIS seeds tried (seed, seed+1, ...), best kept; 0: "
                             f"{METIS_FM_SMALL_TRIALS} up to {METIS_FM_SMALL_EDGES:,} edges, else 1",
                     bounds=Interval(0, BGL_MAX_TRIALS)),
}


@PROBLEM.method("metis-fm", kind="heuristic", fidelity="ours", randomized=True,
                summary="METIS on the traffic weights (several seeds), repaired, then k-way FM on the exact traffic",
                options=METIS_FM_OPTIONS)
def metis_fm(instance, ctx: SolveContext) -> Outcome:
    _in_range(instance, ctx, METIS_FM_OPTIONS)
    trials = ctx.options["trials"] or (METIS_FM_SMALL_TRIALS if len(instance.edges) <= METIS_FM_SMALL_EDGES else 1)
    best, runs = None, []
    for t in range(max(1, trials)):
        _best_so_far(ctx, instance, best, lambda b: {**b[2], "metis_traffic": runs[0][0], "trials": list(runs)})
        parts, stats = baselines.metis(instance, ctx.seed + t)
        metis_traffic = instance.graph.cut_weight(parts)
        parts = fm_refine_csr(*instance.csr, parts, instance.num_parts, instance.node_weights, instance.capacities,
                              max_passes=ctx.options["passes"])
        runs.append((metis_traffic, instance.graph.cut_weight(parts)))
        if best is None or runs[-1][1] < best[0]:
            best = (runs[-1][1], parts, stats)
    # the first trial is METIS with the run's own seed: metis-fm is never worse than metis with that seed
    return _outcome(instance, best[1], {**best[2], "metis_traffic": runs[0][0], "trials": runs})


@PROBLEM.method("auto", kind="heuristic", fidelity="ours", randomized=True,
                summary=f"by graph size: best of metis-fm and bgl up to {algorithms.AUTO_PORTFOLIO_MAX_EDGES:,} edges, "
                        "metis-fm alone above (measured rule, optsched/problems/graph_partition/README.md)")
def auto(instance, ctx: SolveContext) -> Outcome:
    m = len(instance.edges)
    runs = [("metis-fm", metis_fm)]
    if m <= algorithms.AUTO_PORTFOLIO_MAX_EDGES:
        runs.append(("bgl", bgl))
    best, tried = None, {}

    def stop(message: str):
        if best is not None:
            best[1].stats = {**best[1].stats, "chosen": best[0], "tried": dict(tried), "edges": m}
        return TimeLimitReached(message, None if best is None else best[1])

    for name, fn in runs:
        if ctx.expired():
            raise stop(f"time limit of {ctx.time_limit} s reached")
        try:
            out = fn(instance, _with_options(ctx, name))
        except TimeLimitReached as exc:  # the better of the stopped run's incumbent and the earlier run
            late = exc.incumbent
            if late is not None and (best is None or late.objective < best[1].objective):
                best = (name, late)
            raise stop(str(exc)) from None
        tried[name] = out.objective
        if best is None or out.objective < best[1].objective:
            best = (name, out)
    name, out = best
    out.stats = {**out.stats, "chosen": name, "tried": tried, "edges": m}
    return out


def _defaults(name: str) -> dict:
    return {k: o.default for k, o in PROBLEM.methods[name].options.items()}


class _with_options:
    """The context with another method's default options (the portfolio runs each with its own)."""

    def __init__(self, ctx: SolveContext, name: str):
        self._ctx, self.options = ctx, _defaults(name)

    def __getattr__(self, attr):
        return getattr(self._ctx, attr)


@PROBLEM.method("metis", kind="baseline", fidelity="ours", randomized=True,
                summary="METIS k-way (pymetis), multi-constraint, repaired to exact capacities")
def metis(instance, ctx: SolveContext) -> Outcome:
    parts, stats = baselines.metis(instance, ctx.seed)
    return _outcome(instance, parts, stats)


@PROBLEM.method("kl", kind="baseline", fidelity="ours", randomized=True,
                summary="random balanced start + pairwise Kernighan-Lin swaps (networkx)",
                options={"rounds": Option(int, 2, "rounds over all part pairs", bounds=Interval(1, 1_000))},
                applicable=_nodes_and_edges(KL_MAX_NODES, KL_MAX_EDGES, "kl"))
def kl(instance, ctx: SolveContext) -> Outcome:
    _in_range(instance, ctx, PROBLEM.methods["kl"].options)
    parts, stats = baselines.kernighan_lin(instance, ctx.rng, ctx.options["rounds"])
    return _outcome(instance, parts, stats)


@PROBLEM.method("hash", kind="baseline", fidelity="ours",
                summary="node-id order dealt round-robin per stratum (training nodes, others)")
def hash_(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, baselines.stratified_deal(instance, np.arange(instance.num_nodes)))


@PROBLEM.method("random", kind="baseline", fidelity="ours", randomized=True,
                summary="seeded random order dealt round-robin per stratum")
def random(instance, ctx: SolveContext) -> Outcome:
    return _outcome(instance, baselines.stratified_deal(instance, ctx.rng.permutation(instance.num_nodes)))


@PROBLEM.method("ldg", kind="baseline", fidelity="ours", randomized=True,
                summary="streaming LDG (Stanton & Kliot 2012) over the nodes, both balance rows, then repaired",
                options={"order": Option(str, "bfs", "bfs | random | natural", choices=("bfs", "random", "natural"))})
def ldg(instance, ctx: SolveContext) -> Outcome:
    return _stream(instance, ctx, "ldg")


@PROBLEM.method("fennel", kind="baseline", fidelity="ours", randomized=True,
                summary="streaming Fennel (Tsourakakis et al. 2014), gamma 1.5, both balance rows, then repaired",
                options={"order": Option(str, "bfs", "bfs | random | natural", choices=("bfs", "random", "natural"))})
def fennel(instance, ctx: SolveContext) -> Outcome:
    return _stream(instance, ctx, "fennel")


def _stream(instance, ctx, method: str) -> Outcome:
    n = instance.num_nodes
    order = {"natural": lambda: np.arange(n), "random": lambda: ctx.rng.permutation(n),
             "bfs": lambda: algorithms.bfs_node_order(*instance.csr[:2], ctx.rng)}[ctx.options["order"]]()
    parts = stream_assign(*instance.csr, order, instance.num_parts, instance.node_weights, instance.capacities,
                          method=method)
    fixed = rebalance_csr(*instance.csr, parts, instance.num_parts, instance.node_weights, instance.capacities)
    return _outcome(instance, fixed, {"stream_traffic": instance.graph.cut_weight(parts),
                                      "repaired_nodes": int(np.sum(fixed != parts))})
