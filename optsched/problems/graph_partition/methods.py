"""Registered methods of ``graph-partition`` (thin wrappers; the algorithms live beside)."""

from __future__ import annotations

import numpy as np

from optsched.core.registry import Option, Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from . import baselines
from .algorithms import bgl_partition
from .model import BRUTE_MAX_ASSIGNMENTS, brute_force, build_model, decode
from .problem import PROBLEM

MILP_MAX_NODES = 150


def _outcome(instance, parts, stats=None) -> Outcome:
    parts = [int(p) for p in parts]
    return Outcome(solution={"parts": parts}, objective=instance.graph.cut_weight(parts), stats=stats or {})


@PROBLEM.method("milp", kind="exact", fidelity="reconstruction", uses_backend=True,
                summary="min-cut MILP with both balance rows, node 0 in part 0 (spec wave2 §3a)",
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


@PROBLEM.method("bgl", kind="heuristic", fidelity="reconstruction", randomized=True,
                summary="BFS blocks, LDG-like block assignment with balance penalty, FM refinement",
                options={"block_size": Option(int, 16, "nodes per BFS block"),
                         "refine": Option(bool, True, "FM refinement after uncoarsening"),
                         "trials": Option(int, 4, "independent runs (BFS sources), best kept [ours]")})
def bgl(instance, ctx: SolveContext) -> Outcome:
    best, cuts = None, []
    for _ in range(max(1, ctx.options["trials"])):
        parts, stats = bgl_partition(instance.graph, instance.num_parts, instance.node_weights, instance.capacities,
                                     ctx.rng, block_size=ctx.options["block_size"], refine=ctx.options["refine"])
        cuts.append(instance.graph.cut_weight(parts))
        if best is None or cuts[-1] < best[0]:
            best = (cuts[-1], parts, stats)
    return _outcome(instance, best[1], {**best[2], "trial_cuts": cuts})


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
