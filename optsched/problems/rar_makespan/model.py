"""The contention-free time-indexed MILP of ``rar-makespan``: a lower bound on OPT.

With cont = 1 and ovh = 0 a job's run time depends only on whether its ring stays inside one
server: ``d_in_j = ceil(F_j / floor(slot_s / tau_in_j))`` slots, else ``d_sp_j`` (b_ex). Model
(horizon H = the contention-free makespan of a feasible plan, slots t = 0..H-1):

* ``x_in[j, s, t]`` binary: j starts at t inside server s (only if G_j <= n_s);
  ``x_sp[j, t]`` binary: j starts at t spread (only if G_j >= 2 and there are two servers);
  ``sum_{s,t} x_in + sum_t x_sp = 1`` for every job;
* ``h[j, s]`` integer GPUs of spread job j on server s, ``sum_s h[j, s] = G_j * (sum_t x_sp[j, t])``;
  ``g[j, s, t] >= h[j, s] - n_s (1 - run_sp[j, t])`` with ``run_sp`` the window sum of ``x_sp``
  over the last ``d_sp_j`` slots: the GPUs it holds in slot t;
* capacity: ``sum_j G_j run_in[j, s, t] + sum_j g[j, s, t] <= n_s`` for every server and slot;
* ``M >= sum_t (t + d) x`` for every job; minimize the integer makespan ``M``.

It is exact for the contention-free model over the plans of the solution schema (per-server
counts can always be turned into fixed GPU sets, greedily in start order, and plans run
jobs as early as their GPU queues allow), and a lower bound on the contended OPT: contention and
overhead only lengthen iterations, so every plan's contended makespan is at least its
contention-free one (by induction along the plan order). A spread job whose ``h`` puts every GPU
on one server is charged ``d_sp >= d_in``: dominated by the contained option, so the optimum is
unaffected. Proof in ``optsched/problems/rar_makespan/README.md#milp-bound``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from optsched.core.errors import SolverError
from optsched.core.linear import LinearModel, ModelBuilder
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext

from .algorithms import least_busy_plan
from .instance import RarMakespanInstance, simulate

__all__ = ["build_model", "milp_bound", "contention_free_durations", "horizon_bound", "area_lower_bound",
           "column_count", "MILP_MAX_COLUMNS"]

#: the MILP applies to instances whose model has at most this many columns (it is built in Python)
MILP_MAX_COLUMNS = 200_000


def contention_free_durations(instance: RarMakespanInstance) -> tuple[list[int], list[int | None]]:
    """``(d_in, d_sp)`` per job in slots (None where that placement kind is impossible)."""
    many = len(instance.servers) >= 2
    d_in, d_sp = [], []
    for j, job in enumerate(instance.jobs):
        fits = job.gpus <= max(instance.servers)
        d_in.append(instance.slots_at(j, instance.contention_free_tau(j, False)) if fits else None)
        d_sp.append(instance.slots_at(j, instance.contention_free_tau(j, True))
                    if job.gpus >= 2 and many else None)
    return d_in, d_sp


def area_lower_bound(instance: RarMakespanInstance) -> int:
    """A combinatorial lower bound on OPT: ``max(max_j d_j, ceil(sum_j G_j d_j / N))`` with d_j the
    shorter contention-free run time of job j (every job runs at least d_j slots on G_j of the N
    GPUs; contention only lengthens runs). Cheap, for instances too large for the MILP."""
    d_in, d_sp = contention_free_durations(instance)
    shortest = [min(d for d in pair if d is not None) for pair in zip(d_in, d_sp)]
    area = sum(job.gpus * d for job, d in zip(instance.jobs, shortest))
    return max(max(shortest), -(-area // sum(instance.servers)))


def horizon_bound(instance: RarMakespanInstance) -> int:
    """An upper bound on the contention-free optimum: the smaller contention-free makespan of two
    feasible plans (jobs one after another on the first GPUs; the ``ls`` placement)."""
    n = instance.num_jobs
    server, offset = instance.gpu_server, instance.gpu_offset
    serial = [[[int(server[k]), int(k - offset[server[k]])] for k in range(job.gpus)] for job in instance.jobs]
    spans = [simulate(instance, list(range(n)), serial, contention=False).makespan]
    plan = least_busy_plan(instance)
    spans.append(simulate(instance, plan["order"], plan["gpus"], contention=False).makespan)
    return min(spans)


def column_count(instance: RarMakespanInstance) -> int:
    """Number of columns of :func:`build_model` (computing only the horizon)."""
    n, S, H = instance.num_jobs, len(instance.servers), horizon_bound(instance)
    return 1 + 2 * n * S * H + n * H + n * S


def build_model(instance: RarMakespanInstance, horizon: int | None = None) -> LinearModel:
    """The contention-free time-indexed MILP (module docstring) as a LinearModel."""
    H = horizon or horizon_bound(instance)
    n, S = instance.num_jobs, len(instance.servers)
    caps = np.asarray(instance.servers, float)
    d_in, d_sp = contention_free_durations(instance)
    b = ModelBuilder("rar-makespan-contention-free", sense="min")
    makespan = b.add_block("makespan", 1, upper=H, integer=True, cost=1.0)
    xin = b.add_block("x_in", (n, S, H), upper=1, integer=True)
    xsp = b.add_block("x_sp", (n, H), upper=1, integer=True)
    h = b.add_block("h", (n, S), upper=np.minimum(caps[None, :], [[job.gpus] for job in instance.jobs]),
                    integer=True)
    g = b.add_block("g", (n, S, H), upper=np.broadcast_to(caps[None, :, None], (n, S, H)))
    ub = np.ones((n, S, H))
    ub_sp = np.ones((n, H))
    for j, job in enumerate(instance.jobs):
        for s in range(S):
            if d_in[j] is None or job.gpus > instance.servers[s]:
                ub[j, s, :] = 0
            else:
                ub[j, s, max(0, H - d_in[j] + 1):] = 0
        if d_sp[j] is None:
            ub_sp[j, :] = 0
        else:
            ub_sp[j, max(0, H - d_sp[j] + 1):] = 0
    model_upper = {"x_in": ub, "x_sp": ub_sp}
    # one start per job
    with b.rows("one_start", lower=1, upper=1) as rows:
        for j in range(n):
            rows.add(np.concatenate([xin[j].ravel(), xsp[j]]), 1.0)
    # spread GPUs: sum_s h = G_j * sum_t x_sp
    with b.rows("spread_gpus", lower=0, upper=0) as rows:
        for j, job in enumerate(instance.jobs):
            rows.add(np.concatenate([h[j], xsp[j]]), [1.0] * S + [-float(job.gpus)] * H)
    # g[j,s,t] - h[j,s] - n_s * run_sp[j,t] >= -n_s
    with b.rows("spread_hold") as rows:
        for j in range(n):
            if d_sp[j] is None:
                continue
            for s in range(S):
                for t in range(H):
                    window = xsp[j, max(0, t - d_sp[j] + 1):t + 1]
                    rows.add(np.concatenate([[g[j, s, t], h[j, s]], window]),
                             [1.0, -1.0] + [-caps[s]] * window.size, lower=-caps[s])
    # capacity per server and slot
    with b.rows("capacity") as rows:
        for s in range(S):
            for t in range(H):
                cols, vals = [], []
                for j, job in enumerate(instance.jobs):
                    if d_in[j] is not None and job.gpus <= instance.servers[s]:
                        window = xin[j, s, max(0, t - d_in[j] + 1):t + 1]
                        cols += window.tolist()
                        vals += [float(job.gpus)] * window.size
                    if d_sp[j] is not None:
                        cols.append(int(g[j, s, t]))
                        vals.append(1.0)
                rows.add(cols, vals, upper=caps[s])
    # makespan >= completion of each job
    with b.rows("makespan", lower=0) as rows:
        for j in range(n):
            cols, vals = [int(makespan[0])], [1.0]
            if d_in[j] is not None:
                for s in range(S):
                    cols += xin[j, s].tolist()
                    vals += [-(t + d_in[j]) for t in range(H)]
            if d_sp[j] is not None:
                cols += xsp[j].tolist()
                vals += [-(t + d_sp[j]) for t in range(H)]
            rows.add(cols, vals)
    model = b.build()
    upper = model.col_upper.copy()
    for name, values in model_upper.items():
        blk = model.blocks[name]
        upper[blk.start:blk.start + blk.size] = values.ravel()
    return replace(model, col_upper=upper)


def milp_bound(instance: RarMakespanInstance, ctx: SolveContext) -> Outcome:
    """Contention-free optimum (or its proven dual bound under a limit): a lower bound on OPT.

    ``objective`` is the contention-free optimum when solved to optimality, else the solver's
    dual bound; either way ``<= OPT`` of the contended problem. Kind ``bound``: no plan is
    returned.
    """
    model = build_model(instance)
    sol = ctx.solve_model(model)
    if sol.status == "infeasible":  # H is the makespan of a feasible plan: cannot happen
        raise SolverError(f"rar-makespan milp: the model with horizon {model.col_upper[0]:g} is infeasible")
    value = sol.objective if sol.status == "optimal" else sol.bound
    return Outcome(solution=None, objective=value, bound=value, status=sol.status, backend=sol.backend,
                   solver_version=sol.solver_version,
                   reason=None if sol.status == "optimal" else sol.message,
                   stats={"solver_run_time": sol.run_time, "horizon": int(model.col_upper[0]),
                          "columns": model.num_cols, "rows": model.num_rows})
