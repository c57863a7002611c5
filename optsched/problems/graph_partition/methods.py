"""Registered methods of ``graph-partition`` (thin wrappers; the algorithms live beside)."""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError
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


def _positive(instance, ctx, *names) -> None:
    for name in names:
        if ctx.options[name] < 1:
            raise InvalidOptionError(instance.problem, f"option {name}", "must be >= 1", ctx.options[name])


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


@PROBLEM.method("bgl", color="#4477aa", kind="heuristic", fidelity="reconstruction", randomized=True,
                summary="multi-level BGL: BFS-block coarsening, greedy block assignment with balance, FM per level",
                options={"block_size": Option(int, algorithms.BGL_BLOCK_SIZE, "nodes per BFS block at each level"),
                         "vcycles": Option(int, 2, "V-cycles (further ones re-coarsen inside the parts) [ours]"),
                         "refine": Option(bool, True, "FM refinement at every level"),
                         "trials": Option(int, 1, "independent runs (BFS sources), best kept [ours]")})
def bgl(instance, ctx: SolveContext) -> Outcome:
    _positive(instance, ctx, "block_size", "vcycles", "trials")
    best, cuts = None, []
    for _ in range(max(1, ctx.options["trials"])):
        ctx.check_time()
        parts, stats = algorithms.bgl_vcycles(*instance.csr, instance.num_parts, instance.node_weights,
                                              instance.capacities, ctx.rng, block_size=ctx.options["block_size"],
                                              vcycles=ctx.options["vcycles"], refine=ctx.options["refine"])
        cuts.append(instance.graph.cut_weight(parts))
        if best is None or cuts[-1] < best[0]:
            best = (cuts[-1], parts, stats)
    return _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})


@PROBLEM.method("bgl-1level", kind="heuristic", fidelity="reconstruction", randomized=True,
                summary="one-level BGL: BFS blocks of 16, LDG-like block assignment, FM on blocks then nodes",
                options={"block_size": Option(int, 16, "nodes per BFS block"),
                         "refine": Option(bool, True, "FM refinement after uncoarsening"),
                         "trials": Option(int, 4, "independent runs (BFS sources), best kept [ours]")})
def bgl_1level(instance, ctx: SolveContext) -> Outcome:
    _positive(instance, ctx, "block_size", "trials")
    best, cuts = None, []
    for _ in range(max(1, ctx.options["trials"])):
        parts, stats = bgl_partition(instance.graph, instance.num_parts, instance.node_weights, instance.capacities,
                                     ctx.rng, block_size=ctx.options["block_size"], refine=ctx.options["refine"])
        cuts.append(instance.graph.cut_weight(parts))
        if best is None or cuts[-1] < best[0]:
            best = (cuts[-1], parts, stats)
    return _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})


@PROBLEM.method("metis-fm", kind="heuristic", fidelity="ours", randomized=True,
                summary="METIS on the traffic weights (several seeds), repaired, then k-way FM on the exact traffic",
                options={"passes": Option(int, 10, "FM passes at most"),
                         "trials": Option(int, 0, "METIS seeds tried (seed, seed+1, ...), best kept; 0: "
                                                  f"{METIS_FM_SMALL_TRIALS} up to {METIS_FM_SMALL_EDGES:,} edges, else 1")})
def metis_fm(instance, ctx: SolveContext) -> Outcome:
    _positive(instance, ctx, "passes")
    if ctx.options["trials"] < 0:
        raise InvalidOptionError(instance.problem, "option trials", "must be >= 0", ctx.options["trials"])
    trials = ctx.options["trials"] or (METIS_FM_SMALL_TRIALS if len(instance.edges) <= METIS_FM_SMALL_EDGES else 1)
    best, runs = None, []
    for t in range(max(1, trials)):
        ctx.check_time()
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
    for name, fn in runs:
        ctx.check_time()
        out = fn(instance, _with_options(ctx, name))
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
                options={"rounds": Option(int, 2, "rounds over all part pairs")})
def kl(instance, ctx: SolveContext) -> Outcome:
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
