"""The exact offline optimum of ``srpt`` for small streams: a piece-indexed MILP [ours].

Docs and the proof: ``optsched/problems/srpt/README.md#milp``.

A schedule is cut into ``K`` consecutive *pieces* ``[t_{k-1}, t_k]`` (free continuous
boundaries, not fixed slots); in each piece every job is idle or runs in one *configuration*:
a per-server GPU count vector ``c`` (``sum_s c_s = g_j``, ``c_s <= G_s``) with the minimum-cut
placement of the job graph for those counts (iteration time ``tau_c``). Variables: ``y[j,k,c]``
binary (j runs in piece k in config c), ``u[j,k,c] = (t_k - t_{k-1}) y[j,k,c]`` (exact big-M
linearisation of a bounded continuous times a binary), ``s[j,k,c] >= y[j,k,c] - y[j,k-1,c]``
(a segment starts), ``b[j,k]`` (j ran in some piece <= k), ``e[j,k,c] <= s[j,k,c]``,
``e[j,k,c] <= 1 - b[j,k-1]`` (the first segment pays no restart overhead), ``C_j``.

* capacity: ``sum_{j,c} c_s y[j,k,c] <= G_s`` for every piece and server;
* arrival: ``t_{k-1} >= a_j sum_c y[j,k,c]``;
* work: ``sum_{k,c} (u[j,k,c] - o s[j,k,c] + o e[j,k,c]) / tau_c >= n_j``;
* completion: ``C_j >= t_k + sum_{q >= k, c} u[j,q,c] - M (1 - sum_c y[j,k,c])`` (if j runs in
  piece k, its running from there on lies in ``[t_k, C_j]``), ``C_j >= a_j + sum_{k,c} u[j,k,c]``,
  ``C_j >= a_j + n_j min_c tau_c``; minimize ``sum_j (C_j - a_j)``.

``K = D + n - 1`` with ``D`` the number of distinct values among ``0`` and the arrivals: the
README proves that some optimal schedule has at most that many pieces of positive length, so the
MILP's optimum is the checker's OPT. :func:`decode` turns a point into segments (consecutive
pieces of one configuration are one segment) and re-times them forward from the arrivals, so
solver tolerances never make the checker reject it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from optsched.core.errors import SolverError
from optsched.core.linear import LinearModel, ModelBuilder
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, model_outcome

from .instance import SrptInstance, SrptJob
from .placement import place_milp

__all__ = ["MILP_MAX_JOBS", "MILP_MAX_CONFIGS", "configurations", "piece_count", "horizon_bound", "build_model",
           "decode", "milp", "milp_size"]

#: [ours] the largest streams the exact method is registered for: the rank bound and the incumbent
#: prove most 2- to 4-job streams at once, the MILP with its cutoff some of 6-12 jobs (README, measured:
#: 22 of 76 streams of 6-12 jobs on the tiny cluster within 30 s); above, the model's size grows past
#: what was measured
MILP_MAX_JOBS = 12
#: [ours] the most configurations (per-server count vectors) of one job it is registered for
MILP_MAX_CONFIGS = 64
#: [ours] count vectors whose min-cut placement is found by enumerating node subsets (above: the
#: placement MILP, which must prove its optimum)
_ENUMERATION_MAX = 20_000


def _count_vectors(g: int, caps: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every ``c`` with ``sum c = g`` and ``0 <= c_s <= caps[s]``, in lexicographic order."""
    out: list[tuple[int, ...]] = []

    def rec(s: int, left: int, prefix: tuple[int, ...]) -> None:
        if s == len(caps) - 1:
            if left <= caps[s]:
                out.append(prefix + (left,))
            return
        rest = sum(caps[s + 1:])
        for c in range(max(0, left - rest), min(caps[s], left) + 1):
            rec(s + 1, left - c, prefix + (c,))

    rec(0, g, ())
    return out


def _count_vector_count(g: int, caps: tuple[int, ...]) -> int:
    """``len(_count_vectors(g, caps))`` by dynamic programming over the servers (no enumeration)."""
    ways = [1] + [0] * g
    for cap in caps:
        ways = [sum(ways[total - c] for c in range(min(cap, total) + 1)) for total in range(g + 1)]
    return ways[g]


def configuration_count(instance: SrptInstance) -> int:
    """The largest number of configurations of one job (counted, not enumerated)."""
    caps = tuple(instance.gpus_per_server)
    return max(_count_vector_count(g, caps) for g in {job.gpus for job in instance.jobs})


def milp_size(instance: SrptInstance) -> tuple[int, int]:
    """``(jobs, configurations of the largest job)``: what the MILP's applicability limits."""
    return instance.num_jobs, configuration_count(instance)


def _min_cut_by_enumeration(job: SrptJob, counts: tuple[int, ...]) -> list[int]:
    """The min-cut node -> server map with exactly ``counts[s]`` nodes on server s (enumeration)."""
    best, best_cut = None, math.inf
    servers = [s for s, c in enumerate(counts) if c]

    def rec(nodes: list[int], k: int, assign: list[int]):
        nonlocal best, best_cut
        if k == len(servers) - 1:
            for v in nodes:
                assign[v] = servers[k]
            cut = job.cut_bytes(assign)
            if cut < best_cut:
                best, best_cut = list(assign), cut
            return
        for chosen in itertools.combinations(nodes, counts[servers[k]]):
            for v in chosen:
                assign[v] = servers[k]
            rest = [v for v in nodes if v not in chosen]
            rec(rest, k + 1, assign)

    rec(list(range(job.gpus)), 0, [0] * job.gpus)
    return best


def _assignments(counts: tuple[int, ...]) -> int:
    """How many node maps realise ``counts`` (a multinomial coefficient)."""
    total, out = 0, 1
    for c in counts:
        total += c
        out *= math.comb(total, c)
    return out


def configurations(instance: SrptInstance, job: SrptJob, solve_model=None) -> list[tuple[tuple[int, ...], list[int], float]]:
    """``(counts, servers, tau)`` per count vector of ``job``: its min-cut placement and iteration time.

    One server: the cut is 0. Otherwise the exact minimum cut by enumeration (up to
    ``_ENUMERATION_MAX`` maps) or by the placement MILP through ``solve_model`` (which must prove it).
    """
    out = []
    for counts in _count_vectors(job.gpus, tuple(instance.gpus_per_server)):
        used = [s for s, c in enumerate(counts) if c]
        if len(used) == 1 or not job.edges:
            servers = [s for s, c in enumerate(counts) for _ in range(c)]
        elif _assignments(counts) <= _ENUMERATION_MAX or solve_model is None:
            servers = _min_cut_by_enumeration(job, counts)
        else:
            servers, status, _ = place_milp(job, list(counts), solve_model)
            if servers is None or status != "optimal":
                raise SolverError(f"srpt milp: the placement of job {job.id} on {counts} was not proven "
                                  f"optimal ({status})")
        out.append((counts, servers, instance.iteration_time(job, servers)))
    return out


def piece_count(instance: SrptInstance) -> int:
    """``K = D + n - 1``, ``D`` = distinct values among 0 and the arrivals (README's bound)."""
    return len({0.0} | {float(job.arrival) for job in instance.jobs}) + instance.num_jobs - 1


def horizon_bound(instance: SrptInstance, configs) -> tuple[float, float]:
    """``(UB, T)``: the total flow time of a feasible schedule (jobs one at a time in arrival
    order, each in its fastest configuration, no preemption) and ``T = max_j a_j + UB``, an upper
    bound on the last completion of an optimal schedule (each flow time is at most OPT <= UB)."""
    clock, flow = 0.0, 0.0
    for j in sorted(range(instance.num_jobs), key=lambda j: (instance.jobs[j].arrival, j)):
        job = instance.jobs[j]
        tau = min(c[2] for c in configs[j])
        clock = max(clock, job.arrival) + job.iterations * tau
        flow += clock - job.arrival
    return flow, max(job.arrival for job in instance.jobs) + flow


def build_model(instance: SrptInstance, configs, *, pieces: int | None = None, objective_lower: float | None = None,
                objective_upper: float | None = None, subsets=()) -> tuple[LinearModel, dict]:
    """The piece-indexed MILP of the module docstring (``pieces`` overrides ``K``) and the column
    of ``y``/``u``/``s``/``e`` of every ``(job, piece, config)``.

    Optional rows on the flow time ``sum_j (C_j - a_j)``: ``>= objective_lower`` (a proven lower
    bound: valid), ``<= objective_upper`` (a cutoff: the model then holds only schedules at least
    that good), and per ``(S, value)`` of ``subsets`` ``sum_{j in S} (C_j - a_j) >= value`` (valid
    when ``value`` is a lower bound of the sub-stream ``S``)."""
    n, K = instance.num_jobs, pieces or piece_count(instance)
    S, o = len(instance.gpus_per_server), float(instance.restart_overhead)
    _, T = horizon_bound(instance, configs)
    arrivals = [float(job.arrival) for job in instance.jobs]
    alone = [job.iterations * min(c[2] for c in configs[j]) for j, job in enumerate(instance.jobs)]
    c_upper = [T] * n
    if objective_upper is not None:
        # under the cutoff every flow time is at most U minus the others' run times alone, and the
        # last piece in use ends at the last completion (README#exact): a smaller horizon and big-M
        c_upper = [min(T, a + objective_upper - (math.fsum(alone) - t_alone))
                   for a, t_alone in zip(arrivals, alone)]
        T = max(max(c_upper), max(a + t_alone for a, t_alone in zip(arrivals, alone)))
    M = T
    # flat index of (j, k, c) triples
    triples = [(j, k, c) for j in range(n) for k in range(K) for c in range(len(configs[j]))]
    index = {key: i for i, key in enumerate(triples)}
    m = len(triples)
    b = ModelBuilder("srpt-pieces", sense="min")
    t = b.add_block("t", K + 1, upper=T)
    y = b.add_block("y", m, upper=1, integer=True)
    u = b.add_block("u", m, upper=T)
    st = b.add_block("s", m, upper=1)
    e = b.add_block("e", m, upper=1)
    ran = b.add_block("b", (n, K), upper=1)
    # C_j >= a_j + n_j min_c tau_c (the job alone at its fastest): a valid lower bound
    C = b.add_block("C", n, lower=[a + job.iterations * min(c[2] for c in configs[j])
                                   for j, (a, job) in enumerate(zip(arrivals, instance.jobs))],
                    upper=[max(cu, a + t_alone) for cu, a, t_alone in zip(c_upper, arrivals, alone)], cost=1.0)
    b.offset = -math.fsum(arrivals)

    def ys(j, k):
        return [y[index[j, k, c]] for c in range(len(configs[j]))]

    # pieces in use come first (symmetry breaking: a piece of length 0 can be deleted without harm
    # -- README's proof -- so the unused pieces are the last ones, of length 0 and without jobs; a
    # piece in use may be idle: a gap before an arrival)
    active = b.add_block("active", K, upper=1, integer=True)
    with b.rows("order", lower=0) as rows:
        for k in range(1, K + 1):
            rows.add([t[k], t[k - 1]], [1.0, -1.0])
            rows.add([t[k], t[k - 1], active[k - 1]], [-1.0, 1.0, T])
            if k < K:
                rows.add([active[k - 1], active[k]], [1.0, -1.0])
    with b.rows("used", lower=0) as rows:
        for k in range(K):
            for j in range(n):
                for c in range(len(configs[j])):
                    rows.add([active[k], y[index[j, k, c]]], [1.0, -1.0])
    with b.rows("one_config", upper=1) as rows:
        for j in range(n):
            for k in range(K):
                rows.add(ys(j, k), 1.0)
    with b.rows("arrival", lower=0) as rows:
        for j in range(n):
            if arrivals[j] > 0:
                for k in range(K):
                    rows.add([t[k]] + ys(j, k), [1.0] + [-arrivals[j]] * len(configs[j]))
    with b.rows("capacity") as rows:
        for k in range(K):
            for s in range(S):
                cols, vals = [], []
                for j in range(n):
                    for c, (counts, _, _) in enumerate(configs[j]):
                        if counts[s]:
                            cols.append(y[index[j, k, c]])
                            vals.append(float(counts[s]))
                rows.add(cols, vals, upper=float(instance.gpus_per_server[s]))
    # GPU-time per piece and server: sum c_s u[j,k,c] <= G_s (t_{k+1} - t_k) (the capacity row times
    # the piece's length: implied for binary y, a valid inequality that tightens the relaxation)
    with b.rows("gpu_time", upper=0) as rows:
        for k in range(K):
            for s in range(S):
                cols, vals = [t[k + 1], t[k]], [-float(instance.gpus_per_server[s]), float(instance.gpus_per_server[s])]
                for j in range(n):
                    for c, (counts, _, _) in enumerate(configs[j]):
                        if counts[s]:
                            cols.append(u[index[j, k, c]])
                            vals.append(float(counts[s]))
                rows.add(cols, vals)
    # u = (t_{k+1} - t_k) * y, exactly (y binary, 0 <= t_{k+1} - t_k <= M)
    with b.rows("u_on", upper=0) as on, b.rows("u_len", upper=0) as ln, b.rows("u_low", lower=-M) as low:
        for (j, k, c), i in index.items():
            on.add([u[i], y[i]], [1.0, -M])
            ln.add([u[i], t[k + 1], t[k]], [1.0, -1.0, 1.0])
            low.add([u[i], t[k + 1], t[k], y[i]], [1.0, -1.0, 1.0, -M])
    with b.rows("start", lower=0) as rows:
        for (j, k, c), i in index.items():
            if k == 0:
                rows.add([st[i], y[i]], [1.0, -1.0])
            else:
                rows.add([st[i], y[i], y[index[j, k - 1, c]]], [1.0, -1.0, 1.0])
    with b.rows("ran", lower=0) as rows:
        for j in range(n):
            for k in range(K):
                rows.add([ran[j, k]] + ys(j, k), [1.0] + [-1.0] * len(configs[j]))
                if k:
                    rows.add([ran[j, k], ran[j, k - 1]], [1.0, -1.0])
    with b.rows("first_start", upper=0) as first, b.rows("first_only", upper=1) as only:
        for (j, k, c), i in index.items():
            first.add([e[i], st[i]], [1.0, -1.0])
            if k:
                only.add([e[i], ran[j, k - 1]], [1.0, 1.0])
    with b.rows("work") as rows:
        for j, job in enumerate(instance.jobs):
            cols, vals = [], []
            for k in range(K):
                for c, (_, _, tau) in enumerate(configs[j]):
                    i = index[j, k, c]
                    cols += [u[i], st[i], e[i]]
                    vals += [1.0 / tau, -o / tau, o / tau]
            rows.add(cols, vals, lower=float(job.iterations))
    # completion: if j runs in piece k, all its running from piece k on lies in [t_k, C_j]
    # (with only u[j,k] on the right-hand side: C_j >= t_{k+1}); and all of it in [a_j, C_j]
    with b.rows("completion") as rows:
        for j in range(n):
            big = T - arrivals[j]
            for k in range(K):
                after = [u[index[j, q, c]] for q in range(k, K) for c in range(len(configs[j]))]
                rows.add([C[j], t[k]] + after + ys(j, k), [1.0, -1.0] + [-1.0] * len(after) + [-big] * len(configs[j]),
                         lower=-big)
            cols = [C[j]] + [u[index[j, q, c]] for q in range(K) for c in range(len(configs[j]))]
            rows.add(cols, [1.0] + [-1.0] * (len(cols) - 1), lower=arrivals[j])
    # valid inequalities from the lower bounds, and the cutoff (README#exact)
    with b.rows("flow_bounds") as rows:
        if objective_lower is not None:
            rows.add([C[j] for j in range(n)], 1.0, lower=objective_lower + math.fsum(arrivals))
        if objective_upper is not None:
            rows.add([C[j] for j in range(n)], 1.0, upper=objective_upper + math.fsum(arrivals))
        for subset, value in subsets:
            rows.add([C[j] for j in subset], 1.0, lower=value + math.fsum(arrivals[j] for j in subset))
    return b.build(), index


def decode(instance: SrptInstance, model: LinearModel, index: dict, configs, x: np.ndarray) -> dict:
    """Segments from a model point: consecutive pieces of one configuration form one segment;
    pieces are re-timed forward (a piece starts no earlier than the previous piece's end and its
    jobs' arrivals; a job's last piece is stretched until its work is done), so the checker's
    work and capacity tests hold exactly, whatever the solver's tolerances."""
    n = instance.num_jobs
    t = model.block_values(x, "t")
    yv = model.block_values(x, "y")
    K = len(t) - 1
    conf = [[None] * K for _ in range(n)]
    for (j, k, c), i in index.items():
        if yv[i] > 0.5:
            conf[j][k] = c
    last = [max((k for k in range(K) if conf[j][k] is not None), default=None) for j in range(n)]
    o = float(instance.restart_overhead)
    segments: list[list[list]] = [[] for _ in range(n)]   # [start, end, config]
    done = [0.0] * n                                       # work of closed segments
    end = 0.0
    for k in range(K):
        running = [j for j in range(n) if conf[j][k] is not None]
        start = max([end] + [float(instance.jobs[j].arrival) for j in running])
        end = start + max(0.0, float(t[k + 1] - t[k]))
        for j in running:
            c = conf[j][k]
            segs = segments[j]
            if segs and segs[-1][2] == c and k and conf[j][k - 1] == c:
                continue   # the segment goes on
            if segs:   # close the previous segment (its end is final: its piece is over)
                tau = configs[j][segs[-1][2]][2]
                done[j] += max(0.0, segs[-1][1] - segs[-1][0] - (o if len(segs) > 1 else 0.0)) / tau
            segs.append([start, None, c])
        for j in running:
            if last[j] == k:
                segs = segments[j]
                tau = configs[j][segs[-1][2]][2]
                over = o if len(segs) > 1 else 0.0
                need = segs[-1][0] + over + (instance.jobs[j].iterations - done[j]) * tau
                end = max(end, need)
        for j in running:
            segments[j][-1][1] = end
    jobs = []
    for j, job in enumerate(instance.jobs):
        if not segments[j]:
            raise SolverError(f"srpt milp: job {job.id} runs in no piece of the model's point")
        jobs.append({"id": job.id, "segments": [{"start": s, "end": f, "servers": list(configs[j][c][1])}
                                                for s, f, c in segments[j]]})
    return {"jobs": jobs}


#: [ours] streams larger than this get no MILP when the caller sets neither a time nor a node limit
#: (its search can take hours there), so a call without limits ends in about a second: the bound
#: and the incumbent still prove many streams (README#exact). Up to it: no limit, as before.
UNLIMITED_MILP_JOBS = 4
#: [ours] relative cutoff: the MILP is asked for a schedule better than the incumbent by this
#: much; "no such schedule" proves the incumbent optimal within it (the project's objective
#: tolerance, 1e-6 relative: solver feasibility tolerances are 1e-7)
CUTOFF_GAP = 1e-6
#: [ours] simulations of the incumbent search (priority orders; ~1 ms each on 6-12 jobs)
INCUMBENT_BUDGET = 400
#: [ours] the most subset rows (``sum_{j in S} (C_j - a_j) >= LB_rank(S)``) added to the MILP
SUBSET_ROWS = 5000


def milp(instance: SrptInstance, ctx: SolveContext) -> Outcome:
    """The exact offline optimum (proven when ``status == "optimal"``); README#exact.

    1. ``L`` = the rank bound (``lb-rank``), ``U`` = the best static priority order
       (:func:`.incumbent.priority_search`, a feasible schedule);
    2. ``U - L <= CUTOFF_GAP * U``: ``U`` is optimal (proof ``bound``), no MILP;
    3. otherwise the piece MILP with the valid rows ``flow >= L``, ``sum_{j in S} (C_j - a_j) >=
       LB_rank(S)`` per subset, and the cutoff ``flow <= (1 - CUTOFF_GAP) U``: infeasible proves
       ``U`` optimal within ``CUTOFF_GAP`` (proof ``cutoff``); an optimal point is OPT (proof
       ``milp``); a limit keeps the better of the point and ``U`` with the bound
       ``max(L, min(MILP bound, (1 - CUTOFF_GAP) U))``.

    The objective reported is always the checker's flow time of the returned schedule.
    """
    from .bounds import rank_bound_terms, rank_bound, subset_rank_bounds
    from .incumbent import flow_time, priority_search

    configs = [configurations(instance, job, ctx.solve_model) for job in instance.jobs]
    lower = float(rank_bound(*rank_bound_terms(instance)))
    upper, schedule, stats = priority_search(instance, INCUMBENT_BUDGET, stop=ctx.expired)
    stats.update({"pieces": piece_count(instance), "rank_bound": lower, "incumbent": upper})
    if schedule is None:   # the clock ran out before the first simulation
        return Outcome(status="time_limit", bound=lower, reason="time limit reached before a first schedule",
                       stats=stats)
    if lower > upper + CUTOFF_GAP * max(1.0, abs(upper)):   # a schedule below the bound: the bound is wrong
        return Outcome(status="error", reason=f"rank bound {lower} above a schedule's flow time {upper}",
                       stats=stats)
    if upper - lower <= CUTOFF_GAP * max(1.0, abs(upper)):
        return Outcome(solution=schedule, objective=upper, bound=min(lower, upper), status="optimal",
                       stats={**stats, "proof": "bound"})
    if ctx.expired():
        return Outcome(solution=schedule, objective=upper, bound=lower, status="time_limit",
                       reason="time limit reached before the MILP", stats={**stats, "proof": None})
    if instance.num_jobs > UNLIMITED_MILP_JOBS and ctx.settings.time_limit is None and ctx.settings.node_limit is None:
        return Outcome(solution=schedule, objective=upper, bound=lower, status="feasible",
                       stats={**stats, "proof": None, "milp_skipped": "no time or node limit given"})
    cutoff = (1.0 - CUTOFF_GAP) * upper
    subsets = subset_rank_bounds(instance, SUBSET_ROWS, stop=ctx.expired)
    model, index = build_model(instance, configs, objective_lower=lower, objective_upper=cutoff, subsets=subsets)
    stats.update({"columns": model.num_cols, "rows": model.num_rows, "subset_rows": len(subsets)})
    sol = ctx.solve_model(model)
    stats.update({"solver_run_time": sol.run_time, "solver_message": sol.message, "milp_status": sol.status})
    common = {"backend": sol.backend, "solver_version": sol.solver_version}
    if sol.status == "infeasible":   # no schedule better than (1 - CUTOFF_GAP) U: U is optimal within it
        return Outcome(solution=schedule, objective=upper, bound=max(lower, cutoff), status="optimal",
                       stats={**stats, "proof": "cutoff", "milp_objective": None}, **common)
    solution = decode(instance, model, index, configs, sol.x) if sol.x is not None else None
    value = flow_time(instance, solution) if solution is not None else math.inf
    stats["milp_objective"] = sol.objective
    if sol.status == "optimal":
        if value > upper:   # the decode's re-timing can only lengthen by solver tolerances; keep the better
            solution, value = schedule, upper
        return Outcome(solution=solution, objective=value, bound=sol.bound if sol.bound is not None else sol.objective,
                       status="optimal", stats={**stats, "proof": "milp"}, **common)
    bound = max(lower, min(sol.bound, cutoff)) if sol.bound is not None else lower
    if value >= upper:
        solution, value = schedule, upper
    status = sol.status if sol.status in ("time_limit", "gap_limit", "error") else "feasible"
    reason = sol.message if status == "error" else None
    return Outcome(solution=solution, objective=value, bound=bound, status=status, reason=reason,
                   stats={**stats, "proof": None}, **common)
