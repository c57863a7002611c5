"""Exact, brute-force and greedy methods of ``interference-placement``.

>>> from optsched.problems.interference_placement import generate
>>> import optsched
>>> inst = generate(3, jobs=4, servers=3, gpus_per_server=2, types=3, residents=1)
>>> exact = optsched.solve(inst, "milp"); brute = optsched.solve(inst, "brute")
>>> exact.status, abs(exact.objective - brute.objective) < 1e-6 * exact.objective
('optimal', True)
>>> optsched.solve(inst, "least-interference").objective >= exact.objective - 1e-6
True
"""

from __future__ import annotations

import itertools

from optsched.core.registry import Outcome
from optsched.core.solving import model_outcome
from optsched.workloads.colocation import decode_placement, greedy_placement, placement_cost

from .instance import encode
from .model import build_model

__all__ = ["milp", "brute", "least_interference", "pack", "spread", "BRUTE_MAX_JOBS", "BRUTE_MAX_SERVERS"]

BRUTE_MAX_JOBS = 5
BRUTE_MAX_SERVERS = 4


#: the MILP's pair rows (one per job pair and server) it writes at most: 2e6 rows of 3 nonzeros,
#: about 1 GB and tens of seconds of writing [ours]; larger snapshots are refused before building
MILP_MAX_PAIR_ROWS = 2_000_000


def milp_pair_rows(instance) -> int:
    n = instance.num_jobs
    return n * (n - 1) // 2 * instance.num_servers


def milp(instance, ctx) -> Outcome:
    """Solve the snapshot MILP on the context's back-end (exact at ``mip_rel_gap = 0``)."""
    model = build_model(instance, poll=ctx.check_time)
    snap = instance.snapshot
    return model_outcome(ctx, model, lambda x: encode(instance, decode_placement(snap, model, x)))


def _splits(g: int, free: list[int]):
    """Every vector of per-server GPU counts summing to ``g`` within ``free``."""
    def rec(s, need):
        if s == len(free):
            if need == 0:
                yield ()
            return
        for take in range(min(need, free[s]) + 1):
            for rest in rec(s + 1, need - take):
                yield (take,) + rest
    return list(rec(0, g))


def brute(instance, ctx) -> Outcome:
    """Enumerate every assignment (reject, or any GPU split); its own feasibility and cost code.

    Complexity: ``prod_j (1 + splits_j)``, tiny instances only.
    """
    n, S = instance.num_jobs, instance.num_servers
    types = [j.type for j in instance.jobs]
    w = [j.weight for j in instance.jobs]
    beta, forb, gamma = instance.beta, instance.forbidden, instance.spread_penalty
    options = [[None] + _splits(job.gpus, list(instance.gpus_per_server)) for job in instance.jobs]
    best, best_val = None, float("inf")
    for combo in itertools.product(*options):
        used = [0] * S
        on = [[] for _ in range(S)]  # new jobs per server
        ok = True
        for j, vec in enumerate(combo):
            if vec is None:
                continue
            for s, take in enumerate(vec):
                if take:
                    used[s] += take
                    on[s].append(j)
        if any(used[s] > instance.gpus_per_server[s] for s in range(S)):
            continue
        res_on = [[r for r, res in enumerate(instance.residents) if s in res.servers] for s in range(S)]
        for s in range(S):
            members = [types[j] for j in on[s]] + [instance.residents[r].type for r in res_on[s] if on[s]]
            if any(forb[a][b] or forb[b][a] for a, b in itertools.combinations(members, 2)):
                ok = False
                break
        if not ok:
            continue
        val = 0.0
        for j, vec in enumerate(combo):
            if vec is None:
                val += instance.reject_cost
                continue
            mine = {s for s, take in enumerate(vec) if take}
            mates = {k for s in mine for k in on[s] if k != j}
            res = {r for s in mine for r in res_on[s]}
            val += w[j] * (1 + sum(beta[types[j]][types[k]] for k in mates) + gamma * (len(mine) - 1))
            val += sum(w[j] * beta[types[j]][instance.residents[r].type]
                       + instance.residents[r].weight * beta[instance.residents[r].type][types[j]] for r in res)
        if val < best_val - 1e-12:
            best_val, best = val, combo
    placements = [None if vec is None else {s: t for s, t in enumerate(vec) if t} for vec in best]
    return Outcome(solution=encode(instance, placements), objective=best_val, bound=best_val, status="optimal")


def _greedy(instance, rule, ctx, order=None) -> Outcome:
    snap = instance.snapshot
    placements = greedy_placement(snap, rule, order, poll=ctx.check_time)
    return Outcome(solution=encode(instance, placements), objective=placement_cost(snap, placements))


def least_interference(instance, ctx) -> Outcome:
    """Least marginal cost per job (queue order or largest weight first); ``O(n S (n + r))``."""
    order = None
    if ctx.options.get("order", "queue") == "weight":
        order = sorted(range(instance.num_jobs), key=lambda j: -instance.jobs[j].weight)
    return _greedy(instance, "least-interference", ctx, order)


def pack(instance, ctx) -> Outcome:
    """Best fit in queue order, interference-oblivious."""
    return _greedy(instance, "pack", ctx)


def spread(instance, ctx) -> Outcome:
    """Worst fit in queue order, interference-oblivious."""
    return _greedy(instance, "spread", ctx)
