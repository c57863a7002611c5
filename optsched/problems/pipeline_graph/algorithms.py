"""The registered methods of ``pipeline-graph`` (thin wrappers) and the brute force.

* ``antichain-dp`` (exact): :func:`.dp.solve_lattice` over every down-set, started from the
  ``chain-dp`` optimum (a plan of the same space, so the start keeps exactness and gives the
  first upper bound).
* ``chain-dp``: the same DP over the one path of PipeDream's antichain DAG that optsched's
  chain problems use (:func:`optsched.workloads.profiles.antichain_chain`); exact over that path,
  hence over every plan when the graph is a chain, not on branching graphs.
* ``pipedream``: :mod:`.baselines`.
* ``brute``: every ordered partition into down-set differences and every replica split, from the
  edge list alone (tests; n <= 8 layers, N <= 4 workers).
"""

from __future__ import annotations

import itertools
import time

from optsched.core.errors import InvalidInstanceError, InvalidOptionError, NotApplicable
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached
from optsched.workloads.profiles import LayerGraph, antichain_chain

from . import baselines
from .dp import Plan, chain_lattice, full_lattice, plan_value, single_stage_plan, solve_lattice
from .instance import PipelineGraphInstance

__all__ = ["antichain_dp", "chain_dp", "pipedream", "brute", "one_path", "BRUTE_MAX_LAYERS", "BRUTE_MAX_WORKERS"]

BRUTE_MAX_LAYERS = 8
BRUTE_MAX_WORKERS = 4


def one_path(instance: PipelineGraphInstance, poll=None) -> list[int]:
    """The down-sets of optsched's antichain linearization (bitmasks), in chain order (cached on
    the instance: the applicability test and the method both need it). ``poll`` is the caller's
    clock check (it raises to stop the walk)."""
    cached = instance.__dict__.get("_one_path")
    if cached is not None:
        return cached
    g = LayerGraph(nodes={str(i): {} for i in range(instance.num_layers)},
                   edges={str(i): [] for i in range(instance.num_layers)})
    for u, v in instance.edges:
        g.edges[str(u)].append(str(v))
    path = [sum(1 << int(v) for v in members) for members, _ in antichain_chain(g, poll)]
    object.__setattr__(instance, "_one_path", path)
    return path


def _direct_bound(instance: PipelineGraphInstance) -> float:
    """Total work / workers: every plan's value is at least this (sum_k r_k t_k >= sum_k W_k)."""
    return float(instance.work.sum()) / instance.workers * (1 - 1e-12)


def _stopped(plan: Plan, value: float, lower: float | None, why: str, **stats) -> Outcome:
    return Outcome(solution=plan.solution(), objective=value, bound=lower, status="time_limit", reason=why,
                   stats=stats)


def _outcome(instance, plan: Plan, value: float, lower: float | None, exact: bool, **stats) -> Outcome:
    optimal = exact and lower is not None and value <= lower * (1 + 2.5e-9) and not stats.get("precision_lost")
    limited = exact and not stats.get("precision_lost")
    return Outcome(solution=plan.solution(), objective=value, bound=lower if exact else None,
                   status="optimal" if optimal else ("time_limit" if limited else "feasible"), stats=stats)


def chain_dp(instance: PipelineGraphInstance, ctx: SolveContext) -> Outcome:
    start = time.perf_counter()
    first = single_stage_plan(instance)
    try:
        lat = chain_lattice(instance, one_path(instance, ctx.check_time), ctx.check_time)
    except TimeLimitReached:  # stopped before the path's DP: the one-stage plan
        return Outcome(solution=first.solution(), objective=plan_value(instance, first), status="time_limit",
                       reason="the time limit stopped the linearization: the best one-stage plan")
    plan, value, lower, stats = solve_lattice(instance, lat, start=first, expired=ctx.expired)
    out = _outcome(instance, plan, value, None, False, chain_bound=lower, seconds=time.perf_counter() - start,
                   **stats)
    if stats.get("stopped"):
        out.status, out.reason = "time_limit", "the time limit stopped the search over the path"
    return out


def antichain_dp(instance: PipelineGraphInstance, ctx: SolveContext) -> Outcome:
    """Started from the best one-stage plan, then ``chain-dp``'s; every phase polls the clock,
    and a stop returns the best plan so far with status ``time_limit`` (bound: total work /
    workers, or the search's proven bound)."""
    t0 = time.perf_counter()
    start = single_stage_plan(instance)
    direct = _direct_bound(instance)
    try:
        try:
            chain = chain_lattice(instance, one_path(instance, ctx.check_time), ctx.check_time)
            start, _, _, cstats = solve_lattice(instance, chain, start=start, expired=ctx.expired)
            if cstats.get("stopped"):
                ctx.check_time()
        except InvalidInstanceError:  # a DAG the one-path linearization cannot cover: start from one stage
            pass
        t1 = time.perf_counter()
        lat = full_lattice(instance, poll=ctx.check_time)
    except TimeLimitReached:
        return _stopped(start, plan_value(instance, start), direct,
                        "the time limit stopped the search before the lattice DP: the best plan so far")
    except MemoryError as exc:  # the lattice or memory bound: the chain's plan, not proved optimal
        plan, value = start, plan_value(instance, start)
        return Outcome(solution=plan.solution(), objective=value, status="feasible",
                       reason=f"{exc} (the lattice bound): returned chain-dp's plan, not proved optimal")
    t2 = time.perf_counter()
    plan, value, lower, stats = solve_lattice(instance, lat, start=start, expired=ctx.expired)
    return _outcome(instance, plan, value, lower, True, chain_seconds=t1 - t0, lattice_seconds=t2 - t1,
                    search_seconds=time.perf_counter() - t2, **stats)


def _ratio_option(text: str, instance: PipelineGraphInstance):
    text = str(text).strip().lower()
    if text == "instance":
        return instance.activation_compression_ratio
    if text == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise InvalidOptionError("pipeline-graph", "activation_compression_ratio (option)",
                                   "must be 'instance', 'none' or a number > 0", text)
    return value


def pipedream(instance: PipelineGraphInstance, ctx: SolveContext) -> Outcome:
    ratio = _ratio_option(ctx.options.get("activation_compression_ratio", "instance"), instance)
    try:
        plan, predicted, states = baselines.pipedream_plan(instance, ratio=ratio, poll=ctx.check_time)
    except MemoryError:  # the states counted under the clock (large graphs): the applicability's refusal
        raise NotApplicable(instance.problem, "pipedream", baselines.PIPEDREAM_TOO_MANY) from None
    return Outcome(solution=plan.solution(), objective=plan_value(instance, plan), status="feasible",
                   stats={"pipedream_value": predicted, "pipedream_states": states, "activation_compression_ratio": ratio})


def _downsets(instance: PipelineGraphInstance) -> list[frozenset]:
    n = instance.num_layers
    out = []
    for size in range(1, n + 1):
        for members in itertools.combinations(range(n), size):
            s = set(members)
            if all(u in s for u, v in instance.edges if v in s):
                out.append(frozenset(s))
    return out


def _value(instance: PipelineGraphInstance, stages: list[frozenset], reps: tuple[int, ...]) -> float:
    """The objective written out directly from the definitions (not the checker)."""
    bw, c = instance.bandwidth, instance.activation_compression_ratio
    pred = {v: {u for u, w in instance.edges if w == v} for v in range(instance.num_layers)}

    def ancestors(v):
        seen, stack = set(), list(pred[v])
        while stack:
            u = stack.pop()
            if u not in seen:
                seen.add(u)
                stack.extend(pred[u])
        return seen

    def crossing(D):
        return sum(instance.act[u] for u in D if any(u == a and b not in D for a, b in instance.edges))

    def augmented(D):
        top = [v for v in D if not any(a == v and b in D for a, b in instance.edges)]
        chosen = set(top)
        for a in top:
            anc = ancestors(a)
            chosen |= {p for p in anc if any(x == p and y not in anc and y != a for x, y in instance.edges)}
        return sum(instance.act[v] for v in chosen)

    terms, prefix, K = [], frozenset(), len(stages)
    for k, (s, r) in enumerate(zip(stages, reps)):
        W = sum(instance.work[v] for v in s)
        P = sum(instance.params[v] for v in s)
        if instance.objective == "bottleneck":
            terms.append(W / r + 2.0 * (r - 1) / r * P / bw)
            if k:
                terms.append(crossing(prefix) / bw)
        else:
            terms.append((W + 4.0 * (r - 1) * P / (bw * r)) / r)
            if c is not None and k:
                terms.append(2.0 * augmented(prefix) / (bw * r) / c)
                if k < K - 1:
                    terms.append(2.0 * augmented(prefix | s) / (bw * r) / c)
        prefix = prefix | s
    return max(terms)


def brute(instance: PipelineGraphInstance, ctx: SolveContext) -> Outcome:
    full = frozenset(range(instance.num_layers))
    downs = _downsets(instance)
    N = instance.workers
    best = (float("inf"), None, None)

    def chains(prefix, acc):
        if prefix == full:
            yield list(acc)
            return
        for D in downs:
            if prefix < D:
                acc.append(D - prefix)
                yield from chains(D, acc)
                acc.pop()

    for stages in chains(frozenset(), []):
        K = len(stages)
        if K > N:
            continue
        for reps in itertools.product(range(1, N - K + 2), repeat=K):
            if sum(reps) > N:
                continue
            v = _value(instance, stages, reps)
            if v < best[0]:
                best = (v, stages, reps)
    v, stages, reps = best
    return Outcome(solution={"stages": [sorted(s) for s in stages], "replicas": list(reps)}, objective=v, bound=v,
                   status="optimal")
