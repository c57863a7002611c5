"""``online-rr``: rolling-horizon randomized rounding on the shared event simulator.

Jobs are revealed at their arrival slots. At a slot where a job arrived or completed since the
last solve (or the last plan ran out), the policy solves the LP of :mod:`.model` over the
residual workloads of the (at most ``max_lp_jobs``, shortest residual solo time first) jobs present
and a window of ``window`` slots (jobs may also complete
after the window through an ``overflow`` column charged (window end - a_i + 1) plus the job's
residual solo time), rounds it once (the sampling of ``rr``, step 2) and repairs it slot by slot
(``rr``, step 3; jobs left out of the LP only get the room left, by arrival); it commits the
allocations of the current slot only. [ours] reconstruction of the
paper's online scheduler (only its abstract is public); fidelity ``reconstruction``.

Mapping onto :mod:`optsched.simulation.cluster` (whose servers hold GPUs only): one simulator server
per machine with ``capacity[h, gpu]`` GPUs; simulator time is measured in slots, shifted by one
(slot t is the interval [t + 1, t + 2), so the tick at time t + 1 -- after that instant's
arrivals -- decides slot t; the simulator has no tick at time 0); a job's simulator work is its
workload V_i and its rate in a slot is its progress sum(x / e_in + y / e_ex) in mini-batches per
slot, times (1 + 1e-9) so that a job planned to finish within a slot completes strictly inside it
despite float rounding (the checker's completion tolerance is 1e-6 relative). The policy keeps
its own per-resource accounting (CPU, memory, parameter servers); the simulator checks the GPUs
and provides arrivals, progress and completions. A running job whose placement changes is
preempted and restarted (restart overhead 0: the model has no migration cost).
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import Infeasible, InvalidOptionError, SolverError
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, TimeLimitReached
from optsched.simulation.cluster import Cluster, Policy, SimJob, Simulator
from optsched.simulation.slots import SLOTS

from .algorithms import _round, require_horizon
from .instance import PROGRESS_RTOL, PsLocalityInstance
from . import model as _model
from .model import ModelData, build_model, model_nonzeros, solo_rates
from .slots import SlotSchedule

__all__ = ["online_rr", "online_applicable"]

RATE_MARGIN = 1e-9


def online_applicable(instance: PsLocalityInstance) -> tuple[bool, str]:
    """The simulator counts GPUs: a resource named gpu with integer capacities and demands,
    every worker needing at least one GPU."""
    if "gpu" not in instance.resources:
        return False, "online-rr runs on the GPU simulator: the instance needs a resource named 'gpu'"
    g = instance.resources.index("gpu")
    ints = [instance.capacity[:, g], instance.worker_demand[:, g], instance.ps_demand[:, g]]
    if any(np.any(a != np.round(a)) for a in ints):
        return False, "online-rr needs integer GPU capacities and demands"
    if np.any(instance.worker_demand[:, g] < 1) or np.any(instance.capacity[:, g] < 1):
        return False, "online-rr needs every worker to use >= 1 GPU and every machine to have >= 1 GPU"
    return True, "GPU resource with integer counts"


#: once the budget is spent the window LPs give way to the greedy fill, which may finish the
#: schedule for at most this share of the limit plus OVERRUN_S seconds more; then the run stops
#: with ``time_limit`` and no schedule [ours]
OVERRUN_SHARE = 0.25
OVERRUN_S = 1.0

class _RollingRounding(Policy):
    def __init__(self, instance: PsLocalityInstance, ctx: SolveContext, window: int, kappa: float, max_lp_jobs: int):
        self.inst, self.ctx, self.window, self.kappa, self.max_lp_jobs = instance, ctx, window, kappa, max_lp_jobs
        self.g = instance.resources.index("gpu")
        colo, spread = solo_rates(instance)
        self.best_rate = np.maximum(colo, spread)
        self.plan: dict[int, tuple] = {}     # slot -> rounded (jobs, x, p, y, q) of that slot
        self.plan_jobs = np.zeros(0, np.int64)
        self.dirty = True
        self.solves, self.lp_time = 0, 0.0
        self.degraded, self.degraded_reason = 0, None
        self.schedule = SlotSchedule(instance)

    def on_arrival(self, sim, job, now):
        self.dirty = True

    def on_completion(self, sim, job, now):
        self.dirty = True

    def _solve(self, t: int, active: np.ndarray, remaining: np.ndarray) -> None:
        inst = self.inst
        T = min(self.window, inst.horizon_slots - t)
        solo = np.maximum(1, np.ceil(remaining[active] * (1 - PROGRESS_RTOL) / self.best_rate[active] - 1e-9))
        keep = np.lexsort((active, inst.arrival[active], solo))[:self.max_lp_jobs]   # shortest residual first
        jobs, solo = np.sort(active[keep]), solo.astype(np.int64)
        solo = solo[np.searchsorted(active, jobs)]
        V = remaining[jobs]
        a = inst.arrival[jobs]
        data = ModelData(
            workload=V, release=np.zeros(len(jobs), np.int64), earliest=solo - 1, cost_offset=t - a + 1.0,
            e_in=inst.e_in[jobs], e_ex=inst.e_ex[jobs], max_workers=inst.max_workers[jobs],
            max_ps=inst.max_ps[jobs], ps_fan=inst.ps_fan[jobs], worker_demand=inst.worker_demand[jobs],
            ps_demand=inst.ps_demand[jobs], capacity=inst.capacity, slots=T,
            overflow_cost=(t + T - a + 1.0) + np.maximum(solo - T, 0))
        left = self.ctx.remaining()
        nnz = model_nonzeros(data)
        if left is not None and left < nnz * _model.SECONDS_PER_NONZERO:
            # no time to build and hand over the window LP (outside the solver's own limit)
            sol = None
        else:
            model = build_model(data, integer=False, name="ps-locality-window")
            sol = self.ctx.solve_model(model)
            self.solves += 1
            self.lp_time += sol.run_time
        if sol is None or (sol.x is None and sol.status == "time_limit"):
            # the method's time budget is spent: degrade to the greedy fill by arrival (every job
            # is then "left out of the LP") rather than stall or fail; the stats say how often
            self.degraded += 1
            self.degraded_reason = (sol.message if sol is not None else
                                    f"{left:.3g} s left, too little to build a window LP of {nnz} nonzeros")
            empty = np.zeros((0, inst.num_machines))
            self.plan = {t + s: (empty, empty, empty, empty) for s in range(T)}
            self.plan_jobs, self.plan_tau = np.zeros(0, np.int64), np.zeros(0, np.int64)
            self.planned_active = active
            self.dirty = False
            return
        if sol.status != "optimal" or sol.x is None:
            raise SolverError(f"online-rr: the window LP at slot {t} did not solve ({sol.status} {sol.message})")
        X, P, Y, Q, Z, U, D = [np.where(v > 1e-9, v, 0.0) for v in
                               (np.clip(model.block_values(sol.x, k), 0, None) for k in "xpyqzud")]
        rng = self.ctx.rng
        n, H = len(jobs), inst.num_machines
        over = np.clip(model.block_values(sol.x, "overflow"), 0, None)
        cum = np.cumsum(np.concatenate([D, over[:, None]], axis=1), axis=1)
        cum /= cum[:, -1:]
        tau = (rng.random(n)[:, None] > cum).sum(axis=1)            # T = beyond the window
        probs = np.concatenate([Z, U[:, None, :]], axis=1)
        probs = probs / np.maximum(probs.sum(axis=1, keepdims=True), 1.0)
        mode = (rng.random((n, 1, T)) > np.cumsum(probs, axis=1)).sum(axis=1)
        draws = rng.random((4, n, H, T))
        with np.errstate(divide="ignore", invalid="ignore"):
            zc, uc = np.where(Z > 0, 1 / Z, 0.0), np.where(U > 0, 1 / U, 0.0)[:, None, :]
        k, W, Pm = self.kappa, data.max_workers[:, None, None], data.max_ps[:, None, None]
        colo = mode[:, None, :] == np.arange(H)[None, :, None]
        spread = (mode == H)[:, None, :]
        live = (np.arange(T)[None, :] <= tau[:, None])[:, None, :]
        x = _round(np.minimum(k * X * zc, k * W), draws[0]) * (colo & live)
        p = _round(np.minimum(k * P * zc, k * Pm), draws[1]) * (colo & live)
        y = _round(np.minimum(k * Y * uc, k * W), draws[2]) * (spread & live)
        q = _round(np.minimum(k * Q * uc, k * Pm), draws[3]) * (spread & live)
        self.plan = {t + s: (x[:, :, s], p[:, :, s], y[:, :, s], q[:, :, s]) for s in range(T)}
        self.plan_jobs, self.plan_tau = jobs, tau
        self.planned_active = active
        self.dirty = False

    def on_tick(self, sim, now):
        left, limit = self.ctx.remaining(), self.ctx.time_limit
        if left is not None and left < -(OVERRUN_SHARE * limit + OVERRUN_S):
            raise TimeLimitReached(f"the greedy fill after the time limit of {limit} s ran past {OVERRUN_SHARE:g} "
                                   f"of it plus {OVERRUN_S:g} s: no complete schedule")
        t = SLOTS.slot_at(now)
        inst, s = self.inst, self.schedule
        if t >= inst.horizon_slots:
            return
        # the policy's own view of progress is the simulator's (remaining work at this instant)
        for i in range(inst.num_jobs):
            if sim.status(i) != "pending":
                s.remaining[i] = sim.remaining_work(i) if sim.status(i) != "done" else 0.0
        active = np.flatnonzero((inst.arrival <= t) & np.array([sim.status(i) in ("waiting", "running")
                                                                 for i in range(inst.num_jobs)]))
        if active.size == 0:
            for job in sim.running():
                sim.preempt(job.id)
            return
        if self.dirty or t not in self.plan or not np.array_equal(self.planned_active, active):
            self._solve(t, active, s.remaining)
        x, p, y, q = self.plan[t]
        s.begin(t)
        pos = {int(j): k for k, j in enumerate(self.plan_jobs)}
        # jobs of the LP by sampled completion slot, then the others (left out of the LP) by arrival
        order = sorted(active, key=lambda i: (0, self.plan_tau[pos[i]], i) if i in pos else (1, inst.arrival[i], i))
        for i in order:
            if i not in pos:
                continue
            k = pos[i]
            if (x[k] + p[k]).any():
                h = int(np.argmax(x[k] + p[k]))
                s.place_colo(i, h, min(int(x[k, h]), s.need(i, spread=False)))
            elif (y[k] + q[k]).any():
                prefer = np.lexsort((np.arange(inst.num_machines), -q[k], -y[k]))
                s.place_spread(i, min(int(y[k].sum()), s.need(i, spread=True)), prefer)
        for i in order:
            s.grow(i)
        alloc = {i: s.allocation(i) for i in order if s.allocation(i) is not None}
        s.end()
        self._commit(sim, alloc)

    def _commit(self, sim, alloc: dict) -> None:
        g = self.g
        inst = self.inst
        target = {}
        for i, (mode, cols) in alloc.items():
            if mode == "colo":
                h, w, ps = cols
                gpus = {h: int(round(w * inst.worker_demand[i, g] + ps * inst.ps_demand[i, g]))}
                rate = w / inst.e_in[i]
            else:
                wy, wq = cols
                per = wy * inst.worker_demand[i, g] + wq * inst.ps_demand[i, g]
                gpus = {int(h): int(round(per[h])) for h in np.flatnonzero(per > 0)}
                rate = wy.sum() / inst.e_ex[i]
            target[i] = (gpus, rate * (1 + RATE_MARGIN))
        for job in sim.running():
            want = target.get(job.id)
            if want is None or sim.allocation(job.id).gpus != want[0]:
                sim.preempt(job.id)
        for i, (gpus, rate) in target.items():
            if sim.status(i) == "running":
                sim.set_rate(i, rate)
            else:
                sim.start(i, gpus, rate)


def online_rr(instance: PsLocalityInstance, ctx: SolveContext) -> Outcome:
    """Rolling-horizon LP rounding, committing one slot at a time (no guarantee; empirical).

    Problem: the online version of ``ps-locality`` (jobs revealed at arrival). Guarantee: none
    proven; the ratio to the offline optimum (small) or the lower bound (large) is reported.
    Complexity: one window LP (5 n_a H w + 2 n_a w columns for n_a jobs present) per slot at which
    the job set changed, plus O(n_a (H R W + W H)) per slot.
    """
    require_horizon(instance)
    window = ctx.options["window"]
    for name in ("window", "max_lp_jobs"):
        if ctx.options[name] < 1:
            raise InvalidOptionError("ps-locality", f"option {name}", "must be >= 1", ctx.options[name])
    if not (ctx.options["kappa"] >= 1 and math.isfinite(ctx.options["kappa"])):
        raise InvalidOptionError("ps-locality", "option kappa", "must be a finite number >= 1", ctx.options["kappa"])
    policy = _RollingRounding(instance, ctx, window, ctx.options["kappa"], ctx.options["max_lp_jobs"])
    g = instance.resources.index("gpu")
    cluster = Cluster(gpus_per_server=[int(c) for c in instance.capacity[:, g]], intra_bandwidth=instance.bandwidth_in,
                      inter_bandwidth=instance.bandwidth_ex)
    jobs = [SimJob(id=i, arrival=SLOTS.arrival_time(instance.arrival[i]), work=float(instance.workload[i]),
                   gpus=int(instance.max_workers[i])) for i in range(instance.num_jobs)]
    result = Simulator(cluster, jobs, policy, tick=1.0, max_time=SLOTS.max_time(instance.horizon_slots),
                       record_log=False).run()
    s = policy.schedule
    value = s.objective()
    if value is None or result.unfinished:
        late = sorted(set(result.unfinished) | set(int(i) for i in np.flatnonzero(s.completion < 0)))
        raise Infeasible(f"online-rr: job(s) {late[:5]} do not finish within the horizon of "
                         f"{instance.horizon_slots} slots under the rolling-horizon policy")
    sim_slots = {i: SLOTS.completion_slot(c) for i, c in result.completion.items()}
    agree = all(sim_slots[i] == s.completion[i] for i in sim_slots)
    return Outcome(solution=s.solution(), objective=value,
                   stats={"lp_solves": policy.solves, "lp_time_s": policy.lp_time, "window": window,
                          "simulator_agrees": agree, "simulator_total_flow_slots": result.total_flow_time,
                          "greedy_fallback_solves": policy.degraded,
                          "greedy_fallback_reason": policy.degraded_reason})
