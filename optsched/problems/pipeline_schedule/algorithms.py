"""Methods for synchronous microbatch scheduling.

* ``gpipe``, ``1f1b``, ``kfkb``: the public schedules (:func:`~optsched.simulation.pipeline.named_order`).
* ``list``: optsched's list scheduler (active-schedule generation, backward first) [ours].
* ``milp``: exact minimum makespan by a disjunctive MILP (small instances).
* ``brute``: exact by enumerating every per-stage order (tiny instances; tests).

Every method returns the per-stage order; the checker (the simulator) computes its makespan, and
every method reports the lower bound LB as its ``bound``.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Callable

import numpy as np

from optsched.core.linear import LinearModel, ModelBuilder
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached, model_outcome
from optsched.simulation.pipeline import (
    BACKWARD,
    FORWARD,
    PrecedenceCycleError,
    lower_bound,
    named_order,
    order_to_json,
    peak_inflight,
    require_cap,
    simulate_order,
)

from .instance import PipelineScheduleInstance

__all__ = ["run_named", "list_order", "build_model", "milp", "brute", "brute_order_count",
           "BRUTE_MAX_ORDERS", "model_size", "model_nonzeros", "MILP_MAX_NONZEROS", "POLL_STEPS"]

BRUTE_MAX_ORDERS = 20_000
#: the list scheduler polls the clock once per this many placements (each costs O(K))
POLL_STEPS = 64
#: ``milp`` applies to instances whose model has at most this many nonzeros (:func:`model_size`):
#: about 200 bytes per nonzero (the builder's triplets and Python rows, the matrix, its copy in
#: the solver's process and HiGHS's own copies) keep the run under 4 GB [ours]
MILP_MAX_NONZEROS = 20_000_000
#: building the model and handing it to the solver's process cost about this many seconds per
#: nonzero, and the solver's time limit does not cover them: 19.9 million nonzeros (64 x 125) took
#: 146 s to build and 133 s to reach a 1 s HiGHS limit on 2 cores shared at load 20, 14 us per
#: nonzero; this is the unloaded share [ours, measured]
SECONDS_PER_NONZERO = 5e-6


def _outcome(instance: PipelineScheduleInstance, kind: np.ndarray, mb: np.ndarray, *, bound: float | None = None,
             stats: dict | None = None, **extra) -> Outcome:
    """The order's simulated makespan, LB (the bound unless an exact method has a better one)."""
    sim = simulate_order(instance.timing, instance.microbatches, kind, mb)
    report = {"lower_bound": sim.lower_bound, "ratio_to_lower_bound": sim.makespan / sim.lower_bound,
              "peak_inflight": sim.peak_inflight.tolist(), "idle": sim.idle.tolist(),
              "peak_memory_bytes": instance.peak_memory_bytes(sim.peak_inflight), **(stats or {})}
    return Outcome(solution={"order": order_to_json(kind, mb)}, objective=sim.makespan,
                   bound=sim.lower_bound if bound is None else bound, stats=report, **extra)


def fits_caps(schedule: str, group_size: int = 1):
    """``applicable`` of a published schedule: its order keeps within the instance's in-flight
    caps (for kfkb, at its default group size; another size is checked when the method runs)."""
    def applies(instance: PipelineScheduleInstance) -> tuple[bool, str]:
        if instance.inflight_cap is None:
            return True, "no in-flight cap"
        kind, _ = named_order(schedule, instance.stages, instance.microbatches, group_size)
        need, cap = peak_inflight(kind), np.asarray(instance.inflight_cap)
        over = np.flatnonzero(need > cap)
        if over.size:
            k = int(over[0])
            return False, (f"{schedule} keeps {int(need[k])} microbatches in flight at stage {k}, above its cap "
                           f"of {int(cap[k])}")
        return True, "within the in-flight caps"
    return applies


def run_named(instance: PipelineScheduleInstance, schedule: str, group_size: int = 1) -> Outcome:
    """A public schedule on the instance; NotApplicable (exit 2, naming the stage) if it exceeds a cap."""
    kind, mb = named_order(schedule, instance.stages, instance.microbatches, group_size)
    if instance.inflight_cap is not None:
        require_cap(kind, instance.inflight_cap, schedule if schedule != "kfkb" else f"kfkb (group size {group_size})")
    return _outcome(instance, kind, mb)


def gpipe(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """GPipe [paper: Huang et al. 2019; code: torchgpipe]: every forward, then every backward in
    reverse microbatch order. Peak in flight M at every stage. No guarantee beyond LB <= ALG;
    with identical stages and no transfers ALG = (M + K - 1)(F + B). O(K M).

    >>> import optsched
    >>> inst = optsched.generate("pipeline-schedule", seed=0, preset="identical")
    >>> r = optsched.solve(inst, "gpipe")
    >>> r.objective == (inst.microbatches + inst.stages - 1) * (inst.forward[0] + inst.backward[0])
    True
    """
    return run_named(instance, "gpipe")


def one_f_one_b(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """1F1B / PipeDream-Flush [code: PipeDream, Megatron-LM]: K - 1 - k warm-up forwards at stage
    k (0-based), then one forward and one backward alternately, then the drain. Peak in flight
    min(M, K - k). No guarantee; (M + K - 1)(F + B) for identical stages without transfers. O(K M).
    """
    return run_named(instance, "1f1b")


def kfkb(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """kFkB [paper: Ada-Grouper abstract; group layout ours]: 1F1B on groups of ``group_size``
    consecutive microbatches. Peak in flight at most min(M, group_size (K - k)). No guarantee.
    O(K M)."""
    return run_named(instance, "kfkb", ctx.options["group_size"])


# -- list scheduling ---------------------------------------------------------------------------
def list_order(instance: PipelineScheduleInstance, poll: Callable[[], None] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """optsched's list scheduler [ours]: build the order task by task in time order.

    A task is *available* on stage k when the task it waits for (F(k-1, m), B(k+1, m), or
    F(K-1, m) for B(K-1, m)) has been placed; its earliest start is max(stage free, that end +
    transfer). A forward is available only while the stage has fewer than ``inflight_cap[k]``
    microbatches in flight. Each step places, over all stages, the available task that can start
    earliest (non-delay list scheduling: a stage never idles while it has an available task).
    Ties in start time go first to a stage's preferred kind of task: a forward when the next
    stage starves (no forward is queued for it and it has room under its cap), otherwise a
    backward (it frees memory and feeds the drain that LB's tail charges); then to the lower
    stage. On a stage, forwards (backwards) go by earliest
    start, then lowest microbatch. (Chosen on ``hetero-small`` seeds 0-9 against ``milp`` over
    plain backward-first ties and the Giffler-Thompson active rule; see the docs for the
    held-out figures.)

    Never deadlocks for caps >= 1 (proof in ``optsched/problems/pipeline_schedule/README.md#list``): the deepest
    stage holding an in-flight microbatch can always run its backward or pass it on. No
    guarantee: the ratio to OPT and to LB is reported empirically. O(K M (K + log M)).
    ``poll`` (the caller's clock check, raising to stop) runs before every :data:`POLL_STEPS`
    placements.
    """
    K, M = instance.stages, instance.microbatches
    fwd, bwd, x = instance.forward, instance.backward, instance.transfer
    cap = instance.cap_array.tolist()
    free = [0.0] * K
    inflight = [0] * K
    fq: list[list] = [[] for _ in range(K)]
    bq: list[list] = [[] for _ in range(K)]
    fq[0] = [(0.0, m) for m in range(M)]
    kinds: list[list[int]] = [[] for _ in range(K)]
    mbs: list[list[int]] = [[] for _ in range(K)]
    for step in range(2 * K * M):
        if poll is not None and step % POLL_STEPS == 0:
            poll()
        best = None  # (earliest start, 0 for the preferred kind, stage, kind)
        for k in range(K):
            # the next stage starves: no forward queued for it and room under its cap
            feed = k < K - 1 and not fq[k + 1] and inflight[k + 1] < cap[k + 1]
            if bq[k]:
                cand = (max(free[k], bq[k][0][0]), 1 if feed else 0, k, BACKWARD)
                if best is None or cand < best:
                    best = cand
            if fq[k] and inflight[k] < cap[k]:
                cand = (max(free[k], fq[k][0][0]), 0 if feed else 1, k, FORWARD)
                if best is None or cand < best:
                    best = cand
        assert best is not None, "list scheduler: no available task (impossible for caps >= 1)"
        _, _, k, kind = best
        queue = bq[k] if kind == BACKWARD else fq[k]
        ready, m = heapq.heappop(queue)
        end = max(free[k], ready) + (bwd[k] if kind == BACKWARD else fwd[k])
        free[k] = end
        kinds[k].append(kind)
        mbs[k].append(m)
        if kind == FORWARD:
            inflight[k] += 1
            if k < K - 1:
                heapq.heappush(fq[k + 1], (end + x[k], m))
            else:
                heapq.heappush(bq[k], (end, m))
        else:
            inflight[k] -= 1
            if k > 0:
                heapq.heappush(bq[k - 1], (end + x[k - 1], m))
    return np.array(kinds, dtype=np.int8), np.array(mbs, dtype=np.int64)


def list_schedule(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """optsched's list scheduler [ours] (see :func:`list_order`); it runs its own rule only.

    Reports LB as its bound, so ``objective / bound`` bounds its ratio to OPT from above.

    >>> import optsched
    >>> inst = optsched.generate("pipeline-schedule", seed=0, preset="identical")
    >>> optsched.solve(inst, "list").objective == optsched.solve(inst, "1f1b").objective
    True
    """
    kind, mb = list_order(instance, ctx.check_time)
    return _outcome(instance, kind, mb)


# -- exact: MILP ---------------------------------------------------------------------------------
def _pairs(M: int) -> np.ndarray:
    """Task pairs (a, b), a < b, of one stage (task t: F(t) for t < M, B(t - M) otherwise),
    without (F(m), B(m)) whose order precedence fixes."""
    a, b = np.triu_indices(2 * M, 1)
    keep = b != a + M
    return np.stack([a[keep], b[keep]], axis=1)


def _release_tail(instance: PipelineScheduleInstance) -> tuple[np.ndarray, np.ndarray]:
    """Per stage and kind (columns F, B): the earliest start any task can have (``release``) and
    the least time from its end to the makespan (``tail``), from the precedence chains alone.

    release F(k) = sum_{j<k} (F_j + x_j); release B(K-1) = release F(K-1) + F_{K-1};
    release B(k) = release B(k+1) + B_{k+1} + x_k. tail B(k) = max(AR_k, x_{k-1} + B_{k-1} +
    tail B(k-1)) (the all-reduce of every stage the backward chain still reaches);
    tail F(K-1) = B_{K-1} + tail B(K-1); tail F(k) = x_k + F_{k+1} + tail F(k+1).
    """
    K = instance.stages
    fwd, bwd, ar = instance.forward, instance.backward, instance.allreduce
    x = instance.transfer
    release = np.zeros((K, 2))
    tail = np.zeros((K, 2))
    for k in range(1, K):
        release[k, 0] = release[k - 1, 0] + fwd[k - 1] + x[k - 1]
    release[K - 1, 1] = release[K - 1, 0] + fwd[K - 1]
    for k in range(K - 2, -1, -1):
        release[k, 1] = release[k + 1, 1] + bwd[k + 1] + x[k]
    tail[0, 1] = ar[0]
    for k in range(1, K):
        tail[k, 1] = max(ar[k], x[k - 1] + bwd[k - 1] + tail[k - 1, 1])
    tail[K - 1, 0] = bwd[K - 1] + tail[K - 1, 1]
    for k in range(K - 2, -1, -1):
        tail[k, 0] = x[k] + fwd[k + 1] + tail[k + 1, 0]
    return release, tail


def model_size(instance: PipelineScheduleInstance) -> tuple[int, int]:
    """(columns, nonzeros) of :func:`build_model`'s model, exactly, from the sizes alone.

    >>> import optsched
    >>> model_size(optsched.generate("pipeline-schedule", seed=0, preset="identical"))
    (513, 4862)
    """
    K, M = instance.stages, instance.microbatches
    P = (2 * M) * (2 * M - 1) // 2 - M
    capped = int(np.count_nonzero(instance.cap_array < M))
    prec_rows = 2 * (K - 1) * M + M + (M - 1) + K * M
    nonzeros = (2 * prec_rows + 6 * K * P + K * 2 * M * (2 * M) + K * 2 * M * (2 * M - 1)
                + capped * M * 2 * (M - 1))
    return 2 * K * M + 1 + K * P, nonzeros


def model_nonzeros(instance: PipelineScheduleInstance) -> int:
    return model_size(instance)[1]


def build_model(instance: PipelineScheduleInstance, horizon: float | None = None,
                poll: Callable[[], None] | None = None) -> LinearModel:
    """Disjunctive MILP of the minimum makespan.

    Variables: start S[k, t, m] >= 0 (t = 0 for F, 1 for B), makespan C >= LB, and per
    stage a binary y[k, p] for every task pair p = (a, b) (1: a before b on stage k). Rows: the
    precedences with transfer delays; C >= S[k, B, m] + B_k + AR_k; the big-M disjunctions
    S_b >= S_a + d_a - M_ab (1 - y), S_a >= S_b + d_b - M_ba y; the caps (in flight when F(k, m) starts
    = 1 + #{m': F(k, m') before F(k, m)} - #{m': B(k, m') before F(k, m)} <= cap_k); C >= LB.
    Symmetry: stage 0 runs its forwards in microbatch order, as rows S[0, F, m+1] >= S[0, F, m] +
    F_0 (microbatches are identical, so relabelling them in that order maps any schedule to one
    that does, with the same makespan and in-flight counts).
    H defaults to the list schedule's makespan H >= OPT. Every schedule of makespan <= H has
    r_t <= S_t <= H - d_t - q_t (release r and tail q of :func:`_release_tail`), so the pair's
    big-M is M_ab = H - q_a - r_b >= d_a + S_a - S_b (and M_ba alike): the relaxed row of a
    disjunction cuts off only schedules of makespan > H, never an optimum. S >= r are column
    bounds; H - d - q deliberately is not an upper bound on S (nor H on C): with the optimum
    exactly at such a bound, HiGHS 1.15 reported feasible models infeasible for some seeds.
    """
    K, M = instance.stages, instance.microbatches
    if horizon is None:
        kind, mb = list_order(instance)
        horizon = simulate_order(instance.timing, M, kind, mb).makespan
    H = float(horizon)
    fwd, bwd = np.asarray(instance.forward), np.asarray(instance.backward)
    dur = np.stack([fwd, bwd], axis=1)[:, :, None] * np.ones((1, 1, M))  # (K, 2, M)
    release, tail = _release_tail(instance)
    b = ModelBuilder(f"pipeline-schedule-{instance.name or 'instance'}", "min")
    S = b.add_block("start", (K, 2, M), lower=release[:, :, None] * np.ones((1, 1, M)))
    C = b.add_block("makespan", 1, lower=lower_bound(instance.timing, M), cost=1.0)[0]
    pairs = _pairs(M)
    P = pairs.shape[0]
    Y = b.add_block("before", (K, P), lower=0.0, upper=1.0, integer=True)
    Sflat = S.reshape(K, 2 * M)

    def prec(name, later, earlier, gap):
        """later >= earlier + gap, elementwise."""
        later, earlier = np.ravel(later), np.ravel(earlier)
        n = later.size
        rows = np.repeat(np.arange(n), 2)
        cols = np.stack([later, earlier], axis=1).ravel()
        vals = np.tile([1.0, -1.0], n)
        b.add_sparse_rows(name, rows, cols, vals, n, lower=np.ravel(gap))

    x = np.asarray(instance.transfer, float)
    if K > 1:
        prec("forward_chain", S[1:, 0, :], S[:-1, 0, :], ((fwd[:-1] + x)[:, None]) * np.ones((1, M)))
        prec("backward_chain", S[:-1, 1, :], S[1:, 1, :], ((bwd[1:] + x)[:, None]) * np.ones((1, M)))
    prec("turn", S[K - 1, 1, :], S[K - 1, 0, :], np.full(M, fwd[K - 1]))
    # stage-0 symmetry as rows: fixing the binaries instead (lower bound 1) made HiGHS 1.x
    # presolve report feasible models infeasible (seen on hetero-small, cap 2, seed 7)
    if M > 1:
        prec("stage0_forward_order", S[0, 0, 1:], S[0, 0, :-1], np.full(M - 1, fwd[0]))
    ar = np.asarray(instance.allreduce)
    prec("makespan_def", np.full((K, M), C), S[:, 1, :], ((bwd + ar)[:, None]) * np.ones((1, M)))
    # disjunctions, all stages at once
    ks = np.repeat(np.arange(K), P)
    ta, tb = np.tile(pairs[:, 0], K), np.tile(pairs[:, 1], K)
    a_col, b_col, y_col = Sflat[ks, ta], Sflat[ks, tb], Y.ravel()
    d = dur.reshape(K, 2 * M)
    rel = np.repeat(release, M, axis=1)  # (K, 2M) by task index t = kind * M + m
    tl = np.repeat(tail, M, axis=1)
    d_a, d_b = d[ks, ta], d[ks, tb]
    big_ab = H - tl[ks, ta] - rel[ks, tb]  # >= d_a + S_a - S_b whenever the makespan is <= H
    big_ba = H - tl[ks, tb] - rel[ks, ta]
    n = K * P
    if n:
        rows = np.repeat(np.arange(n), 3)
        b.add_sparse_rows("a_before_b", rows, np.stack([b_col, a_col, y_col], 1).ravel(),
                          np.stack([np.ones(n), -np.ones(n), -big_ab], 1).ravel(), n, lower=d_a - big_ab)
        b.add_sparse_rows("b_before_a", rows, np.stack([a_col, b_col, y_col], 1).ravel(),
                          np.stack([np.ones(n), -np.ones(n), big_ba], 1).ravel(), n, lower=d_b)
    index = {(int(u), int(v)): i for i, (u, v) in enumerate(pairs)}

    def before(u, v):
        """(pair index, sign, constant): 'u before v' = y (u < v) or 1 - y (u > v)."""
        return (index[u, v], 1.0, 0.0) if u < v else (index[v, u], -1.0, 1.0)

    # sequence-load cuts: every task after a on its stage runs between a's end and the stage's
    # last end, whose tail is >= the stage's least tail q_min = tail B(k); every task before a
    # runs between the stage's least release r_min = release F(k) and a's start
    after_rows, before_rows = b.rows("load_after"), b.rows("load_before")
    for k in range(K):
        for a in range(2 * M):
            if poll is not None:
                poll()
            twin = a + M if a < M else a - M  # F(m) <-> B(m): F(m) first, by precedence
            const_after = const_before = 0.0
            after = [(C, 1.0), (Sflat[k, a], -1.0)]
            before_terms = [(Sflat[k, a], 1.0)]
            for other in range(2 * M):
                if other in (a, twin):
                    continue
                p_ab, s_ab, c_ab = before(a, other)
                after.append((Y[k, p_ab], -d[k, other] * s_ab))
                const_after += d[k, other] * c_ab
                p_ba, s_ba, c_ba = before(other, a)
                before_terms.append((Y[k, p_ba], -d[k, other] * s_ba))
                const_before += d[k, other] * c_ba
            # the twin: B(m) is after F(m), F(m) before B(m)
            after_rows.add_terms(after, lower=d[k, a] + tail[k, 1] + const_after + (d[k, twin] if a < M else 0.0))
            before_rows.add_terms(before_terms, lower=release[k, 0] + const_before + (d[k, twin] if a >= M else 0.0))
    after_rows.close()
    before_rows.close()

    # caps
    cap = instance.cap_array
    with b.rows("inflight_cap") as cap_rows:
        for k in np.flatnonzero(cap < M):
            for m in range(M):
                if poll is not None:
                    poll()
                const, terms = 0.0, []
                for m2 in range(M):
                    if m2 == m:
                        continue
                    for task, sign in ((m2, 1.0), (M + m2, -1.0)):
                        p, s, c0 = before(task, m)
                        terms.append((Y[k, p], sign * s))
                        const += sign * c0
                cap_rows.add_terms(terms, upper=cap[k] - 1 - const)
    return b.build()


def milp(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """Exact minimum makespan (disjunctive MILP, see :func:`build_model`); small instances only:
    K ((2M choose 2) - M) binaries. The order is read from the start times
    and the simulator recomputes its makespan, which is <= the MILP's (the MILP's starts are one
    schedule of that order; the simulator gives the earliest). Status ``optimal`` only when the
    solver proves it; a limit gives ``time_limit``/``feasible`` with the bound and gap.
    """
    M = instance.microbatches
    kind, mb = list_order(instance, ctx.check_time)
    incumbent = _outcome(instance, kind, mb, status="time_limit",
                         reason="the time limit stopped the model's construction: the list schedule")
    left = ctx.remaining()
    need = model_nonzeros(instance) * SECONDS_PER_NONZERO
    if left is not None and left < need:  # the model could not even be built and handed over in time
        incumbent.reason = (f"the {left:.3g} s left cannot build and pass on a model of {model_nonzeros(instance)} "
                            f"nonzeros (about {need:.3g} s): the list schedule")
        incumbent.stats["milp_skipped"] = True
        return incumbent
    try:
        model = build_model(instance, horizon=incumbent.objective, poll=ctx.check_time)
    except TimeLimitReached as exc:
        raise TimeLimitReached(str(exc), incumbent) from None

    def decode(xv: np.ndarray) -> dict:
        start = model.block_values(xv, "start").reshape(instance.stages, 2 * M)
        order = np.argsort(start, axis=1, kind="stable")
        kind = (order >= M).astype(np.int8)
        return {"kind": kind, "mb": order % M}

    out = model_outcome(ctx, model, decode)
    if out.solution is None:
        if out.status == "time_limit":  # the solver found no schedule in time: the list schedule
            return incumbent
        return out
    return _outcome(instance, out.solution["kind"], out.solution["mb"], bound=out.bound, status=out.status,
                    backend=out.backend, solver_version=out.solver_version, reason=out.reason,
                    stats={**out.stats, "milp_objective": out.objective})


# -- exact: enumeration --------------------------------------------------------------------------
def _stage_orders(M: int, forwards_in_order: bool):
    """Every order of one stage's 2M tasks with F(m) before B(m) (codes: m for F, M + m for B)."""
    def extend(prefix, started, done):
        if len(prefix) == 2 * M:
            yield tuple(prefix)
            return
        for m in range(M):
            if not started[m] and (not forwards_in_order or m == 0 or started[m - 1]):
                started[m] = True
                prefix.append(m)
                yield from extend(prefix, started, done)
                prefix.pop()
                started[m] = False
                if forwards_in_order:
                    break
        for m in range(M):
            if started[m] and not done[m]:
                done[m] = True
                prefix.append(M + m)
                yield from extend(prefix, started, done)
                prefix.pop()
                done[m] = False
    yield from extend([], [False] * M, [False] * M)


def brute_order_count(instance: PipelineScheduleInstance) -> int:
    """How many order combinations :func:`brute` enumerates: (2M)!/(2^M M!) x ((2M)!/2^M)^(K-1)."""
    M, K = instance.microbatches, instance.stages
    per_stage = math.factorial(2 * M) // 2 ** M
    return per_stage // math.factorial(M) * per_stage ** (K - 1)


def brute(instance: PipelineScheduleInstance, ctx: SolveContext) -> Outcome:
    """Exact by simulating every combination of per-stage orders (stage 0's forwards in
    microbatch order, by the relabelling argument of :func:`build_model`), skipping deadlocking
    ones and those above a cap. Independent of the MILP; for tiny instances and tests.
    """
    K, M = instance.stages, instance.microbatches
    cap = instance.cap_array
    first = [o for o in _stage_orders(M, True)]
    rest = [o for o in _stage_orders(M, False)]
    def most_in_flight(order) -> int:
        # counted here, not with the simulator's peak_inflight that the checker uses: the brute
        # force decides the cap on its own (a forward code < M enters, a backward code >= M leaves)
        live = peak = 0
        for code in order:
            live += 1 if code < M else -1
            peak = max(peak, live)
        return peak

    candidates = [[o for o in (first if k == 0 else rest) if most_in_flight(o) <= cap[k]] for k in range(K)]
    best = None
    for combo in itertools.product(*candidates):
        codes = np.array(combo)
        kind, mb = (codes >= M).astype(np.int8), codes % M
        try:
            value = simulate_order(instance.timing, M, kind, mb, engine="plain").makespan
        except PrecedenceCycleError:
            continue
        if best is None or value < best[0]:
            best = (value, kind, mb)
    assert best is not None, "brute: no order (impossible: list_order finds one under any caps >= 1)"
    return _outcome(instance, best[1], best[2], bound=best[0], status="optimal")
