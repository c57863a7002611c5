"""The exact DP of ``pipeline-graph`` over a lattice of cuts (every down-set, or one chain).

Both objectives are bottlenecks: a plan's value is the maximum of per-stage terms, and every
term of stage k depends only on (D_{k-1}, D_k, r_k). So a plan of value <= T exists iff the
fewest workers g(V) that cover V with stages whose terms are all <= T is at most N. [ours]

Feasibility oracle for a threshold T. A stage (D', D) with r replicas has time
(ΔW + α_r ΔP) / r with ΔW = W(D) - W(D'), ΔP = P(D) - P(D'), α_r = 2 (r - 1) / bw
(``bottleneck``; the ring all-reduce) or 4 (r - 1) / (bw r) (``pipedream``), so with
Φ_r(D) = W(D) + α_r P(D) the time is <= T iff Φ_r(D') >= Φ_r(D) - r T. The transfer terms are
filters on D' alone (``in_ok``) and on D alone (``out_ok``). Hence

    g(D) = min( min{r : Φ_r(D) <= r T},                                   (one stage from {})
                min_r [ r + min{k : M_{k,r}(D^-) >= Φ_r(D) - r T} ]  over r with out_ok(D, r) )

with M_{k,r}(X) = max{Φ_r(D') : {} != D' ⊆ X down-set, g(D') <= k, in_ok(D', r)} and D^- the
proper sub-down-sets of D. Every proper sub-down-set of D lies in D - {v} for a maximal layer v
of D, so M_{k,r}(D^-) = max over the children D - {v} of M_{k,r}(D - {v}) and
M_{k,r}(D) = max(M_{k,r}(D^-), Φ_r(D) if g(D) <= k and in_ok(D, r)). One pass over the lattice
level by level (numpy over a level's down-sets, k and r) computes g for every down-set;
O(S w N^2) for S down-sets of at most w maximal layers, memory O(two levels x N^2) plus one
small integer per down-set.

Search: the optimum is >= W(V) / N (sum_k r_k t_k >= sum_k W_k). Starting from a feasible plan
(the chain optimum, or one replicated stage), bisection on T, each feasible probe lowering the
upper end to the probed plan's true value; once the bracket is narrower than 1e-5, probes at
hi (1 - 1e-9) until one is infeasible: the value is then optimal up to 1e-9 relative
(``status optimal``, ``bound`` = the last infeasible threshold). The threshold test carries a
relative slack of 1e-12 for rounding, far below that gap.

Clock: the enumeration of the lattice, every level of the DP (:meth:`_Oracle.run`), every stage of
the traceback and every probe poll the caller's clock (``poll`` raises to stop, ``expired`` says
whether to stop); a probe stopped half-way is dropped and the best plan so far is returned.

Memory [ours]: the DP holds Φ (and the transfer filter) for every down-set, 8 N bytes each, and two
levels of M plus the temporaries of one level, about :data:`BYTES_PER_PAIR` bytes per (down-set of
the widest level, (k, r) pair), N (N - 1) / 2 pairs: :func:`oracle_bytes`. A lattice whose
estimate exceeds :data:`MEMORY_CAP` is not searched (:func:`full_lattice` raises
:class:`MemoryError` before the DP allocates anything, and stops its enumeration once the
per-down-set part alone exceeds the cap).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from optsched.pipeline.antichain import ChainLattice, DownsetLattice, LayerDag, bits

from .instance import PipelineGraphInstance

__all__ = ["Plan", "full_lattice", "chain_lattice", "solve_lattice", "plan_value", "single_stage_plan",
           "oracle_bytes", "MEMORY_CAP", "MAX_STATES"]

SLACK = 1e-12
#: bisection stops at this relative width; then probes just below the incumbent finish the proof
BISECT_TOL = 1e-4
#: the proven relative gap: the last probe at hi (1 - GAP) is infeasible (GAP >> SLACK, so a
#: plan that probe finds is strictly better than hi)
GAP = 1e-9
INF = math.inf
#: the lattice bound: at most this many down-sets are enumerated
MAX_STATES = 2_000_000
#: the DP's memory estimate (:func:`oracle_bytes`) may not exceed this many bytes (4 GiB)
MEMORY_CAP = 4 << 30
#: bytes per (down-set of a level, (k, r) pair) of one level's step: M of two levels (float64)
#: and the temporaries of the level (the threshold, the row copy and the candidate values,
#: float64; three boolean masks), rounded up
BYTES_PER_PAIR = 48


class Stopped(Exception):
    """The caller's clock stopped a probe (internal to :func:`solve_lattice`)."""


def _per_state_bytes(instance: PipelineGraphInstance) -> int:
    """Bytes the DP keeps per down-set: Φ and, with a transfer term, its filter (float64, N each)."""
    transfer = instance.objective == "bottleneck" or instance.activation_compression_ratio is not None
    return 8 * instance.workers * (2 if transfer else 1)


def oracle_bytes(instance: PipelineGraphInstance, level_sizes) -> int:
    """The DP's memory estimate over a lattice with these level sizes (see the module docstring).

    >>> from optsched.problems.pipeline_graph.generate import random_dag
    >>> oracle_bytes(random_dag(0, 4, 3), [1, 1, 1, 1, 1])   # 5 x 48 + 3 pairs x 48 x 1
    384
    """
    sizes = [int(x) for x in level_sizes]
    N = instance.workers
    pairs = N * (N - 1) // 2
    return _per_state_bytes(instance) * sum(sizes) + BYTES_PER_PAIR * pairs * max(sizes, default=0)


class Plan:
    """A plan as a chain of down-set bitmasks (``cuts[-1]`` = every layer) and replicas."""

    def __init__(self, cuts: list[int], replicas: list[int]):
        self.cuts, self.replicas = list(cuts), list(replicas)

    def solution(self) -> dict:
        stages, prev = [], 0
        for D in self.cuts:
            stages.append(bits(D & ~prev))
            prev = D
        return {"stages": stages, "replicas": list(self.replicas)}


def _coef(instance: PipelineGraphInstance, r: np.ndarray) -> np.ndarray:
    bw = instance.bandwidth
    if instance.objective == "bottleneck":
        return 2.0 * (r - 1) / bw
    return 4.0 * (r - 1) / (bw * r)


def full_lattice(instance: PipelineGraphInstance, max_states: int = MAX_STATES,
                 poll: Callable[[], None] | None = None, memory_cap: int | None = None) -> DownsetLattice:
    """Every down-set; :class:`MemoryError` past ``max_states`` down-sets or when the DP over
    them would exceed ``memory_cap`` bytes (default :data:`MEMORY_CAP`; :func:`oracle_bytes`).
    ``poll`` is the clock check."""
    memory_cap = MEMORY_CAP if memory_cap is None else memory_cap
    pd = instance.act if instance.objective == "pipedream" and instance.activation_compression_ratio else None
    fit = max(1, memory_cap // _per_state_bytes(instance))
    try:
        lat = DownsetLattice(instance.dag, instance.work, instance.params, instance.act, pd,
                             max_states=min(max_states, fit), poll=poll)
    except MemoryError as exc:
        if fit < max_states:
            raise MemoryError(f"{exc}: the DP over them needs more than the {memory_cap / 2**30:g} GiB memory cap "
                              f"at N = {instance.workers}") from None
        raise
    need = oracle_bytes(instance, [len(m) for m in lat.masks])
    if need > memory_cap:
        raise MemoryError(f"the DP over {lat.num_states} down-sets (widest level {max(len(m) for m in lat.masks)}) "
                          f"at N = {instance.workers} needs about {need / 2**30:.1f} GiB, more than the "
                          f"{memory_cap / 2**30:g} GiB memory cap")
    return lat


def chain_lattice(instance: PipelineGraphInstance, chain: list[int], poll: Callable[[], None] | None = None
                  ) -> ChainLattice:
    return ChainLattice(instance.dag, chain, instance.work, instance.params, instance.act, poll=poll)


def plan_value(instance: PipelineGraphInstance, plan: Plan) -> float:
    """The plan's value from bitmasks (the same terms as the checker, computed independently)."""
    dag = instance.dag
    bw, c = instance.bandwidth, instance.activation_compression_ratio
    # PipeDream's augmenting sets only where its transfer term is charged (O(n^2) the first time)
    extras = dag.pipedream_extras() if instance.objective != "bottleneck" and c is not None else None
    terms, prev = [], 0
    K = len(plan.cuts)
    for k, (D, r) in enumerate(zip(plan.cuts, plan.replicas)):
        S = bits(D & ~prev)
        W, P = float(instance.work[S].sum()), float(instance.params[S].sum())
        if instance.objective == "bottleneck":
            terms.append(W / r + (2.0 * (r - 1) / r * P / bw if r > 1 else 0.0))
            if k > 0:
                terms.append(float(instance.act[bits(dag.open_layers(prev))].sum()) / bw)
        else:
            terms.append((W + 4.0 * (r - 1) * P / (bw * r)) / r)
            if c is not None and k > 0:
                terms.append(2.0 * float(instance.act[bits(dag.pipedream_augmented(prev, extras))].sum()) / (bw * r) / c)
                if k < K - 1:
                    terms.append(2.0 * float(instance.act[bits(dag.pipedream_augmented(D, extras))].sum()) / (bw * r) / c)
        prev = D
    return max(terms)


def single_stage_plan(instance: PipelineGraphInstance) -> Plan:
    """One stage of every layer on the best replication (the lowest r among equal values): its
    value, :func:`plan_value`'s terms of one stage, over every r at once."""
    W, P = float(instance.work.sum()), float(instance.params.sum())
    r = np.arange(1, instance.workers + 1, dtype=float)
    bw = instance.bandwidth
    if instance.objective == "bottleneck":
        value = W / r + np.where(r > 1, 2.0 * (r - 1) / r * P / bw, 0.0)
    else:
        value = (W + 4.0 * (r - 1) * P / (bw * r)) / r
    return Plan([instance.dag.full], [int(np.argmin(value)) + 1])


class _Oracle:
    def __init__(self, instance: PipelineGraphInstance, lattice):
        self.inst, self.lat = instance, lattice
        N = instance.workers
        self.N = N
        self.r = np.arange(1, N + 1, dtype=float)
        alpha = _coef(instance, self.r)
        self.phi = [w[:, None] + p[:, None] * alpha[None, :] for w, p in zip(lattice.work, lattice.params)]
        bw, c = instance.bandwidth, instance.activation_compression_ratio
        if instance.objective == "bottleneck":
            self.tin = [np.repeat((x / bw)[:, None], N, axis=1) for x in lattice.cut]
            self.tout = None
        elif c is not None:
            self.tin = [2.0 * x[:, None] / (bw * self.r[None, :]) / c for x in lattice.pd_cut]
            self.tout = self.tin
        else:
            self.tin = self.tout = None
        self.full_level = len(lattice.masks) - 1
        self.g: list[np.ndarray] = []

    def _in_ok(self, L: int, T: float, rows=slice(None)) -> np.ndarray | bool:
        if L == 0:
            return np.zeros((1, self.N), bool)
        if self.tin is None:
            return True
        return self.tin[L][rows] <= T * (1 + SLACK)

    def _out_ok(self, L: int, T: float, rows=slice(None)) -> np.ndarray | bool:
        if self.tout is None or L == self.full_level:
            return True
        return self.tout[L][rows] <= T * (1 + SLACK)

    def _pairs(self):
        """The (k, r) pairs with k + r <= N (prefix workers k >= 1, stage replicas r >= 1), r-major."""
        if not hasattr(self, "_pair_cache"):
            N = self.N
            ks = np.array([k for r in range(1, N) for k in range(1, N - r + 1)], np.int64)
            rs = np.array([r for r in range(1, N) for k in range(1, N - r + 1)], np.int64)
            starts = np.array([sum(N - q for q in range(1, r)) for r in range(1, N)], np.int64)
            self._pair_cache = (ks, rs, starts)
        return self._pair_cache

    def run(self, T: float, fast: bool = False, expired: Callable[[], bool] | None = None) -> bool:
        """Compute g for every cut at threshold T; True iff g(V) <= N. ``expired`` is polled at
        every level; when it says so the run raises :class:`Stopped`.

        Cuts that no plan of value <= T can use are skipped ("dead"): g(D) >= ceil(W(D) / T')
        and the layers after D need >= ceil((W(V) - W(D)) / T') more workers (T' = T with the
        slack: each stage's time is >= its work / its replicas), so D is dead when the two
        bounds exceed N; a dead cut gets g = N + 1 and still passes its sub-cuts' M on."""
        N, r = self.N, self.r
        K = N - 1
        rT = r * T * (1 + SLACK)
        Tl = T * (1 + 4 * SLACK)
        total = float(self.lat.work[-1][0])
        ks, rs, starts = self._pairs()
        P = len(ks)
        self.g = [np.zeros(1, np.int64)]
        dtype = np.float32 if fast else np.float64
        M_prev = np.full((2, P), -INF, dtype)  # level 0 ({}): never a D' of a later stage; row -1 pads
        rint = np.arange(1, N + 1)
        for L in range(1, len(self.lat.masks)):
            if expired is not None and expired():
                raise Stopped
            phi = self.phi[L]
            n_L = phi.shape[0]
            w = self.lat.work[L]
            lb = np.maximum(np.ceil(w / Tl - 1e-9), 1)
            rest = np.maximum(np.ceil((total - w) / Tl - 1e-9), 0)
            if self.tin is not None and L != self.full_level:
                # the stage after D must carry D's activations: its replicas r satisfy
                # tin(D, r) <= T, tin = t1 / r (pipedream) or t1 (bottleneck: dead when t1 > T)
                t1 = self.tin[L][:, 0]
                need_in = np.ceil(t1 / Tl - 1e-9) if self.tout is not None else np.where(t1 > Tl, N + 1, 0)
                rest = np.maximum(rest, need_in)
            alive = np.flatnonzero(lb + rest <= N)
            g = np.full(n_L, N + 1, np.int64)
            if alive.size:
                pa = phi[alive]
                g[alive] = np.where(pa <= rT[None, :], rint[None, :], N + 1).min(axis=1)
            if K == 0:
                self.g.append(g)
                continue
            kids = self.lat.children[L]
            Mk = M_prev[kids[:, 0]]
            for j in range(1, kids.shape[1]):
                np.maximum(Mk, M_prev[kids[:, j]], out=Mk)
            if alive.size:
                theta = pa - rT[None, :]  # (a, N)
                below = Mk[alive] < theta[:, rs - 1]  # (a, P)
                count = np.add.reduceat(below, starts, axis=1)  # (a, N - 1): per r, k's below theta
                limit = N - rint[:-1]  # k ranges over 1..N - r
                need = rint[None, :-1] + count + 1
                out_ok = self._out_ok(L, T, alive)
                ok = (count < limit[None, :]) & (out_ok if out_ok is True else out_ok[:, :-1])
                g[alive] = np.minimum(g[alive], np.where(ok, need, N + 1).min(axis=1))
                in_ok = self._in_ok(L, T, alive)
                ins = (g[alive][:, None] <= ks[None, :]) & (in_ok if in_ok is True else in_ok[:, rs - 1])
                rows = Mk[alive]
                own = np.where(ins, pa[:, rs - 1], -INF)
                if fast:
                    low = own.astype(np.float32)
                    own = np.where(low.astype(np.float64) < own, np.nextafter(low, np.float32(INF)), low)
                np.maximum(rows, own, out=rows)
                Mk[alive] = rows
            M_prev = np.concatenate([Mk, np.full((1, P), -INF, dtype)])
            self.g.append(g)
        return bool(self.g[-1][0] <= N)

    def traceback(self, T: float, expired: Callable[[], bool] | None = None) -> Plan:
        """A plan of value <= T (up to the slack) from the g of the last :meth:`run`
        (``expired`` is polled at every stage; :class:`Stopped` when it says so)."""
        N, r = self.N, self.r
        rT = r * T * (1 + SLACK)
        lat = self.lat
        masks = [np.array(level, dtype=object) for level in lat.masks]
        L, i, budget = self.full_level, 0, N
        cuts, reps = [], []
        while True:
            if expired is not None and expired():
                raise Stopped
            D = lat.masks[L][i]
            phi = self.phi[L][i]
            first = [rr for rr in range(1, budget + 1) if phi[rr - 1] <= rT[rr - 1]]
            if first:
                cuts.append(D)
                reps.append(first[0])
                break
            found = None
            out_ok = np.broadcast_to(self._out_ok(L, T), (len(lat.masks[L]), N))[i]
            for rr in range(1, budget):
                if not out_ok[rr - 1]:
                    continue
                k = budget - rr
                theta = phi[rr - 1] - rT[rr - 1]
                for L2 in range(L - 1, 0, -1):
                    in_ok = np.broadcast_to(self._in_ok(L2, T), (len(lat.masks[L2]), N))
                    cand = np.flatnonzero((self.g[L2] <= k) & in_ok[:, rr - 1]
                                          & (self.phi[L2][:, rr - 1] >= theta))
                    if cand.size == 0:
                        continue
                    sub = np.flatnonzero((masks[L2][cand] & ~D) == 0)
                    if sub.size:
                        found = (L2, int(cand[sub[0]]), rr)
                        break
                if found:
                    break
            if found is None:
                raise RuntimeError("traceback found no predecessor cut (inconsistent DP)")
            cuts.append(D)
            reps.append(found[2])
            L, i = found[0], found[1]
            budget -= found[2]
        return Plan(cuts[::-1], reps[::-1])


def solve_lattice(instance: PipelineGraphInstance, lattice, start: Plan | None = None,
                  expired: Callable[[], bool] | None = None) -> tuple[Plan, float, float, dict]:
    """The optimum over the plans whose cuts are in ``lattice``: (plan, value, lower bound, stats).

    ``start`` is a feasible plan of that space (default: one stage with the best replication);
    the lower bound equals the value up to 1e-12 relative unless ``expired`` (the caller's
    clock, polled before every probe and at every level of one) stops the search first
    (``stats["stopped"]``).
    """
    plan = start or single_stage_plan(instance)
    hi = plan_value(instance, plan)
    lo = float(instance.work.sum()) / instance.workers * (1 - 1e-12)
    oracle = _Oracle(instance, lattice)
    probes = 0
    strict = True  # first probe just below the start's value: one probe proves a start optimal
    precision_lost = stopped = False
    while hi > lo * (1 + 2 * GAP) and hi > 0 and probes <= 400:
        if expired is not None and expired():
            stopped = True
            break
        if strict or hi - lo <= BISECT_TOL * hi:
            T = hi * (1 - GAP)
        else:
            T = 0.5 * (lo + hi)
        strict = False
        probes += 1
        fast = hi - lo > BISECT_TOL * hi
        try:
            feasible = oracle.run(T, fast=fast, expired=expired)
            cand = None
            if feasible and fast:
                try:
                    cand = oracle.traceback(T, expired)
                except RuntimeError:  # float32 was optimistic here: decide in float64
                    feasible = oracle.run(T, expired=expired)
            if feasible:
                cand = cand or oracle.traceback(T, expired)
        except Stopped:  # the probe is dropped: its threshold is neither proved nor refuted
            stopped = True
            break
        if feasible:
            v = plan_value(instance, cand)
            if v > T * (1 + 1e-10) or v >= hi:
                # the DP's float sums disagree with the plan's own value: fields that span many
                # orders of magnitude (a 1e30 next to 1e-3) leave no precision in the sums. Keep
                # the best plan and only the direct bound (total work / workers), which holds
                # whatever the DP said; the run is not proved optimal [ours]
                lo = float(instance.work.sum()) / instance.workers * (1 - 1e-12)
                precision_lost = True
                break
            hi, plan = v, cand
        else:
            lo = T
    lo = min(lo, hi)
    stats = {"probes": probes, "states": lattice.num_states}
    if precision_lost:
        stats["precision_lost"] = True
    if stopped:
        stats["stopped"] = True
    return plan, hi, lo, stats
