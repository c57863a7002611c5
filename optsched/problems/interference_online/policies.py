"""Placement policies on the shared event simulator (:mod:`optsched.simulation.cluster`).

Every policy places waiting jobs when a job arrives or completes, and then re-sets the rate of
every running job from its current co-runners (the instance's rate model). Non-preemptive.

* :class:`FifoPack` [ours, baseline]: arrival order, best fit, interference-oblivious; strict
  FIFO (the first job that does not fit blocks the queue) unless ``backfill``.
* :class:`LeastInterference` [ours]: arrival order with backfilling, each job on the candidate of
  least marginal JCT-proxy cost (:func:`optsched.workloads.colocation.greedy_placement`).
* :class:`MilpPerEvent` [ours, rolling]: the snapshot MILP on the first ``window`` waiting jobs
  with the running jobs as residents; when its time budget is spent, or a solve returns no
  point, it places by :class:`LeastInterference` and logs why (``fallbacks``) -- it never stalls.
"""

from __future__ import annotations

import time

from optsched.core.errors import OptschedError
from optsched.simulation.cluster import Cluster, Policy, SimJob, Simulator
from optsched.workloads.colocation import (Snapshot, build_placement_model, candidates, decode_placement,
                                           greedy_placement)

from .instance import OnlineInstance, slowdown

__all__ = ["InterferencePolicy", "FifoPack", "LeastInterference", "MilpPerEvent", "simulate", "to_solution"]


class InterferencePolicy(Policy):
    """Base: keeps placements, computes rates, builds snapshots; subclasses implement ``choose``.

    A policy looks at the first ``LOOKAHEAD`` waiting jobs per event (arrival order) [ours]: it
    bounds the work per event on overloaded traces, where thousands of jobs can wait.
    """

    LOOKAHEAD = 64
    #: called at every event before any work (a method's clock check: it stops the run by
    #: raising); None: never
    poll = None

    def __init__(self, instance: OnlineInstance):
        self.inst = instance
        self.by_id = {j.id: j for j in instance.jobs}
        self.placement: dict[int, dict[int, int]] = {}
        self.start_time: dict[int, float] = {}
        self.on_server: list[set[int]] = [set() for _ in range(instance.num_servers)]

    # hooks
    def on_arrival(self, sim, job, now):
        self._event(sim, now)

    def on_completion(self, sim, job, now):
        for s in self.placement[job.id]:
            self.on_server[s].discard(job.id)
        self._event(sim, now)

    def _event(self, sim, now):
        if self.poll is not None:
            self.poll()
        waiting = [self.by_id[j.id] for j in sim.waiting()[:self.LOOKAHEAD]]
        if waiting:
            for jid, p in self.choose(sim, waiting, now):
                self.placement[jid] = p
                self.start_time[jid] = now
                for s in p:
                    self.on_server[s].add(jid)
                sim.start(jid, p, 1.0)
        for j in sim.running():
            sim.set_rate(j.id, self.rate(j.id))

    def rate(self, jid: int) -> float:
        job = self.by_id[jid]
        p = self.placement[jid]
        mates = {m for s in p for m in self.on_server[s]} - {jid}
        return 1.0 / (job.step_time * slowdown(self.inst, job, p, [self.by_id[m] for m in mates]))

    def snapshot(self, sim, jobs, reject_cost: float) -> Snapshot:
        running = [j.id for j in sim.running()]
        return Snapshot(free=tuple(sim.free_gpus()), job_types=tuple(j.type for j in jobs),
                        job_gpus=tuple(j.gpus for j in jobs),
                        job_weight=tuple(j.isolated_time for j in jobs), beta=self.inst.beta,
                        forbidden=self.inst.forbidden, gamma=self.inst.spread_penalty, reject_cost=reject_cost,
                        res_types=tuple(self.by_id[r].type for r in running),
                        res_weight=tuple(sim.remaining_work(r) * self.by_id[r].step_time for r in running),
                        res_servers=tuple(tuple(sorted(self.placement[r])) for r in running))

    def choose(self, sim, waiting, now):  # pragma: no cover - abstract
        raise NotImplementedError


class FifoPack(InterferencePolicy):
    def __init__(self, instance, backfill: bool = False):
        super().__init__(instance)
        self.backfill = backfill

    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=1.0)
        free, placed, out = list(snap.free), {}, []
        for j, job in enumerate(waiting):
            cands = candidates(snap, j, free, placed)
            if not cands:
                if self.backfill:
                    continue
                break
            p = min(cands, key=lambda p: (len(p), sum(free[s] for s in p), min(p)))
            placed[j] = p
            for s, g in p.items():
                free[s] -= g
            out.append((job.id, p))
        return out


class LeastInterference(InterferencePolicy):
    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=float("inf"))
        return [(job.id, p) for job, p in zip(waiting, greedy_placement(snap, "least-interference"))
                if p is not None]


class MilpPerEvent(InterferencePolicy):
    """Rolling snapshot MILP; ``solve`` is ``ctx.solve_model`` (the context owns the back-end)."""

    def __init__(self, instance, solve, window: int = 6, solve_time_limit: float = 2.0,
                 time_budget: float = 60.0, defer_factor: float = 2.0, max_solves: int = 0):
        super().__init__(instance)
        self.solve, self.window = solve, window
        self.solve_time_limit, self.time_budget, self.defer_factor = solve_time_limit, time_budget, defer_factor
        self.max_solves = max_solves
        self.spent, self.solves, self.fallbacks = 0.0, 0, []
        self._li = LeastInterference.choose

    def choose(self, sim, waiting, now):
        head = waiting[:self.window]
        left = self.time_budget - self.spent
        if left <= 0:
            self._fallback(now, "time budget exhausted")
            return self._li(self, sim, waiting, now)
        if self.max_solves and self.solves >= self.max_solves:
            self._fallback(now, "solve budget exhausted")
            return self._li(self, sim, waiting, now)
        # deferring a job costs defer_factor x its isolated run time (it waits roughly one run)
        reject = self.defer_factor * max(j.isolated_time for j in head)
        snap = self.snapshot(sim, head, reject_cost=reject)
        model = build_placement_model(snap, OnlineInstance.problem)
        t0, why = time.perf_counter(), None
        try:
            sol = self.solve(model, time_limit=min(self.solve_time_limit, left))
        except OptschedError as exc:  # a back-end failure must not stall the simulation
            sol, why = None, f"solver error: {exc}"
        self.spent += time.perf_counter() - t0
        self.solves += 1
        if self.poll is not None:  # the solve may have used the method's last seconds
            self.poll()
        if sol is None or sol.x is None or sol.status not in ("optimal", "feasible", "time_limit"):
            self._fallback(now, why if sol is None else f"no point ({sol.status})")
            return self._li(self, sim, waiting, now)
        chosen = decode_placement(snap, model, sol.x)
        out = [(job.id, p) for job, p in zip(head, chosen) if p is not None]
        if not out and not sim.running():
            # the MILP deferred every job on an idle cluster: nothing would ever happen
            self._fallback(now, "MILP deferred every job on an idle cluster")
            return self._li(self, sim, waiting, now)
        return out

    def _fallback(self, now, reason):
        self.fallbacks.append((now, reason))


def to_solution(policy: InterferencePolicy, result) -> dict:
    return {"jobs": [{"id": j.id, "start": policy.start_time[j.id], "end": result.completion[j.id],
                      "servers": sorted([int(s), int(g)] for s, g in policy.placement[j.id].items())}
                     for j in policy.inst.jobs]}


def simulate(instance: OnlineInstance, policy: InterferencePolicy):
    """Run ``policy`` on ``instance``; returns the simulation result (every job completes)."""
    cluster = Cluster(gpus_per_server=instance.gpus_per_server, intra_bandwidth=1.0, inter_bandwidth=1.0)
    jobs = [SimJob(id=j.id, arrival=j.arrival, work=j.iterations, gpus=j.gpus, payload=j) for j in instance.jobs]
    result = Simulator(cluster, jobs, policy, record_log=False).run()
    if result.unfinished:
        raise RuntimeError(f"{type(policy).__name__} left jobs unfinished: {result.unfinished[:5]}")
    return result
