"""The offline time-indexed MILP of ``rar-online`` (exact on small instances; its LP relaxation is
an upper bound for large ones).

Variables, for each job j and slot t in [a_j, T):

* ``zin[j, s, t, w]`` binary: w workers inside server s (1 <= w <= min(Wmax_j, n_s));
* ``zsp[j, t, w]`` binary: w workers spread (2 <= w <= Wmax_j), with integer ``y[j, s, t]`` workers
  on server s and binary ``u[j, s, t]`` (uplink s reserves r_j), ``y <= n_s u``,
  ``sum_s y = sum_w w zsp``;
* ``f[j, t]`` binary: j completes in slot t (``sum_t f <= 1``), with cumulative progress
  ``sum_{t' <= t} P[j, t'] >= F_j sum_{t' <= t} f[j, t']``, ``P`` the progress of the chosen
  option (the instance's progress table);
* at most one option per (j, t); GPU capacity ``sum w zin + sum y <= n_s`` and uplink capacity
  ``sum r_j u <= upl_s`` per server and slot;
* graph network (``links``): instead of the uplink rows, ``v[j, k, t]`` in [0, 1] for every link k
  on some fixed route, ``v[j, k, t] >= u[j, a, t] + u[j, b, t] - 1`` for every server pair (a, b)
  whose fixed route (:meth:`RarOnlineInstance.route`) uses k, and ``sum_j r_j v[j, k, t] <= c_k``
  per (link, slot): with u binary, v = 1 on the footprint of the servers j reserves on, which
  contains the checker's footprint (the servers actually holding workers).

Objective: ``sum f[j, t] U_j(t + 1 - a_j)`` (utility), minus ``energy_price * sum w z`` (energy), or
``sum f[j, t] (log(u0 + U_j) - log u0) + n log u0`` (fairness). A spread option whose workers sit
on one server is allowed but never better than the contained option (less progress, uplink
reserved), so the optimum equals the checker's optimum; the reported objective is the checker's
value of the decoded allocation.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.linear import LinearModel, ModelBuilder
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .instance import RarOnlineInstance, evaluate

__all__ = ["build_model", "milp", "lp_bound", "column_count", "MILP_MAX_COLUMNS", "LP_MAX_COLUMNS"]

#: the MILP applies to instances whose model has at most this many columns
MILP_MAX_COLUMNS = 20_000
#: the LP relaxation applies up to this many columns (memory: the model is built in Python)
LP_MAX_COLUMNS = 500_000


def column_count(instance: RarOnlineInstance) -> int:
    """Number of columns of :func:`build_model` (without building it)."""
    S, T = len(instance.servers), instance.horizon
    total = 0
    for job in instance.jobs:
        slots = max(0, T - job.arrival)
        per_slot = 1 + sum(min(job.max_workers, n) for n in instance.servers)
        if S >= 2:
            per_slot += max(0, job.max_workers - 1) + (2 * S if job.max_workers >= 2 else 0)
        total += slots * per_slot
        if instance.is_graph and S >= 2 and job.max_workers >= 2:
            total += slots * len(instance.routed_links)
    return total


class _Index:
    """Columns of the model, one list of (column, meaning) per kind, for decoding."""

    def __init__(self):
        self.zin, self.zsp, self.y = [], [], []


def build_model(instance: RarOnlineInstance, *, index: _Index | None = None) -> LinearModel:
    """The time-indexed MILP (module docstring) as a LinearModel."""
    inst = instance
    T, S = inst.horizon, len(inst.servers)
    caps = np.asarray(inst.servers, float)
    b = ModelBuilder("rar-online-offline", sense="max")
    idx = index or _Index()
    # column specs built first, then blocks
    zin_spec, zsp_spec, f_spec, ysu_spec = [], [], [], []
    for j, job in enumerate(inst.jobs):
        table = inst.progress_table[j]
        for t in range(job.arrival, T):
            f_spec.append((j, t))
            for s in range(S):
                for w in range(1, min(job.max_workers, inst.servers[s]) + 1):
                    zin_spec.append((j, s, t, w, int(table[0, w])))
            if S >= 2:
                for w in range(2, job.max_workers + 1):
                    zsp_spec.append((j, t, w, int(table[1, w])))
                if job.max_workers >= 2:
                    for s in range(S):
                        ysu_spec.append((j, s, t))
    energy = inst.energy_price if inst.objective == "energy" else 0.0
    u0 = inst.fairness_u0

    def gain(j, t):
        job = inst.jobs[j]
        u = job.utility(t + 1 - job.arrival)
        return math.log(u0 + u) - math.log(u0) if inst.objective == "fairness" else u

    if inst.objective == "fairness":
        b.offset = inst.num_jobs * math.log(u0)
    zin = b.add_block("zin", len(zin_spec), upper=1, integer=True, cost=[-energy * w for _, _, _, w, _ in zin_spec])
    zsp = b.add_block("zsp", len(zsp_spec), upper=1, integer=True, cost=[-energy * w for _, _, w, _ in zsp_spec])
    f = b.add_block("f", len(f_spec), upper=1, integer=True, cost=[gain(j, t) for j, t in f_spec])
    y = b.add_block("y", len(ysu_spec), upper=[caps[s] for _, s, _ in ysu_spec], integer=True)
    u = b.add_block("u", len(ysu_spec), upper=1, integer=True)
    idx.zin = [(int(zin[k]), spec) for k, spec in enumerate(zin_spec)]
    idx.zsp = [(int(zsp[k]), spec) for k, spec in enumerate(zsp_spec)]
    idx.y = [(int(y[k]), spec) for k, spec in enumerate(ysu_spec)]

    # one option per (j, t)
    by_jt: dict[tuple[int, int], list[int]] = {}
    for k, (j, s, t, w, _) in enumerate(zin_spec):
        by_jt.setdefault((j, t), []).append(int(zin[k]))
    for k, (j, t, w, _) in enumerate(zsp_spec):
        by_jt.setdefault((j, t), []).append(int(zsp[k]))
    with b.rows("one_option", upper=1) as rows:
        for cols in by_jt.values():
            rows.add(cols, 1.0)
    # spread workers: sum_s y - sum_w w zsp = 0 ; y <= n_s u
    ys: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for k, (j, s, t) in enumerate(ysu_spec):
        ys.setdefault((j, t), []).append((int(y[k]), int(u[k])))
    zsp_by_jt: dict[tuple[int, int], list] = {}
    for k, (j, t, w, _) in enumerate(zsp_spec):
        zsp_by_jt.setdefault((j, t), []).append((int(zsp[k]), -float(w)))
    with b.rows("spread_workers", lower=0, upper=0) as rows:
        for (j, t), pairs in ys.items():
            rows.add_terms([(yc, 1.0) for yc, _ in pairs] + zsp_by_jt.get((j, t), []))
    with b.rows("reserve", upper=0) as rows:
        for k, (j, s, t) in enumerate(ysu_spec):
            rows.add([y[k], u[k]], [1.0, -caps[s]])
    # GPU and uplink capacity per (s, t)
    gpu_rows: dict[tuple[int, int], list] = {}
    link_rows: dict[tuple[int, int], list] = {}
    for k, (j, s, t, w, _) in enumerate(zin_spec):
        gpu_rows.setdefault((s, t), []).append((int(zin[k]), float(w)))
    for k, (j, s, t) in enumerate(ysu_spec):
        gpu_rows.setdefault((s, t), []).append((int(y[k]), 1.0))
        link_rows.setdefault((s, t), []).append((int(u[k]), inst.jobs[j].reserved_bandwidth))
    link_caps = inst.link_capacity
    if inst.is_graph:
        # v[j, k, t] in [0, 1]: link k carries j's reservation; v >= u_a + u_b - 1 for every pair (a, b)
        # of servers whose fixed route uses k (u binary forces v = 1 exactly on the footprint)
        link_rows = {}
        ucol = {(j, s, t): int(u[k]) for k, (j, s, t) in enumerate(ysu_spec)}
        jt = sorted({(j, t) for j, _, t in ysu_spec})
        routed = inst.routed_links
        v = b.add_block("v", len(jt) * len(routed), upper=1)
        vcol = {(j, k, t): int(v[i * len(routed) + n])
                for i, (j, t) in enumerate(jt) for n, k in enumerate(routed)}
        with b.rows("footprint", lower=-1) as rows:
            for j, t in jt:
                for a in range(S):
                    for c in range(a + 1, S):
                        for k in inst.route(a, c):
                            rows.add([vcol[j, k, t], ucol[j, a, t], ucol[j, c, t]], [1.0, -1.0, -1.0])
                for k in routed:
                    link_rows.setdefault((k, t), []).append((vcol[j, k, t], inst.jobs[j].reserved_bandwidth))
    link_rows_name = "link_capacity" if inst.is_graph else "uplink_capacity"
    for name, entries_by_st, cap in (("gpu_capacity", gpu_rows, caps), (link_rows_name, link_rows, link_caps)):
        with b.rows(name) as rows:
            for (s, t), entries in entries_by_st.items():
                rows.add_terms(entries, upper=cap[s])
    # completion: sum f <= 1 ; cumulative progress >= F * cumulative f
    once, progress = b.rows("complete_once", upper=1), b.rows("progress", lower=0)
    prog: dict[tuple[int, int], list] = {}
    for k, (j, s, t, w, p) in enumerate(zin_spec):
        prog.setdefault((j, t), []).append((int(zin[k]), float(p)))
    for k, (j, t, w, p) in enumerate(zsp_spec):
        prog.setdefault((j, t), []).append((int(zsp[k]), float(p)))
    fcol = {(j, t): int(f[k]) for k, (j, t) in enumerate(f_spec)}
    for j, job in enumerate(inst.jobs):
        slots = range(job.arrival, T)
        if not slots:
            continue
        once.add([fcol[j, t] for t in slots], 1.0)
        cum_p, cum_f = [], []
        for t in slots:
            cum_p += prog.get((j, t), [])
            cum_f.append((fcol[j, t], -float(job.iterations)))
            progress.add_terms(cum_p + cum_f)
    once.close()
    progress.close()
    return b.build()


def _decode(instance, idx, x) -> dict:
    alloc: dict[tuple[int, int], dict[int, int]] = {}
    for col, (j, s, t, w, _) in idx.zin:
        if x[col] > 0.5:
            alloc[(j, t)] = {s: w}
    spread_on = {(j, t) for col, (j, t, w, _) in idx.zsp if x[col] > 0.5}
    for col, (j, s, t) in idx.y:
        if (j, t) in spread_on and round(x[col]) >= 1:
            alloc.setdefault((j, t), {})[s] = int(round(x[col]))
    return {"allocations": [[j, t, [[s, w] for s, w in sorted(parts.items())]] for (j, t), parts in sorted(alloc.items())]}


def milp(instance: RarOnlineInstance, ctx: SolveContext) -> Outcome:
    """Offline optimum (``mip_rel_gap = 0``); a limit keeps the incumbent with the bound."""
    idx = _Index()
    model = build_model(instance, index=idx)
    sol = ctx.solve_model(model)
    stats = {"solver_run_time": sol.run_time, "columns": model.num_cols, "rows": model.num_rows}
    if sol.x is None:
        return Outcome(solution=None, objective=None, bound=sol.bound, status=sol.status, backend=sol.backend,
                       solver_version=sol.solver_version, reason=sol.message or "no incumbent", stats=stats)
    solution = _decode(instance, idx, sol.x)
    _, _, _, value = evaluate(instance, solution["allocations"])
    stats["model_objective"] = sol.objective
    return Outcome(solution=solution, objective=value, bound=sol.bound, status=sol.status, backend=sol.backend,
                   solver_version=sol.solver_version, stats=stats)


def lp_bound(instance: RarOnlineInstance, ctx: SolveContext) -> Outcome:
    """The LP relaxation's optimum: an upper bound on the offline optimum."""
    model = build_model(instance).relaxed()
    sol = ctx.solve_model(model)
    value = sol.objective if sol.status == "optimal" else sol.bound
    return Outcome(solution=None, objective=value, bound=value, status=sol.status, backend=sol.backend,
                   solver_version=sol.solver_version, stats={"solver_run_time": sol.run_time,
                                                             "columns": model.num_cols})
