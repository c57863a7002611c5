"""The online interference-aware placement instance and its checker (docs ``optsched/problems/interference_online/README.md``).

optsched's formulation [recon after Zhao & Wu, arXiv 2112.13354 (abstract only)]:

* servers ``s`` with ``gpus_per_server[s]`` GPUs, in groups of ``servers_per_group`` consecutive
  servers (one scheduling agent per group for the learned policy);
* job types with ``beta[a][b]`` (slowdown of ``a`` next to ``b`` minus one) and ``forbidden``;
* jobs ``j``: arrival ``a_j``, type ``t_j``, gang GPU demand ``g_j``, ``iterations`` ``R_j``
  and isolated seconds per iteration ``tau_j``; non-preemptive.
* Rate [recon, the snapshot's linearization in continuous time]: while job ``j`` runs on servers
  ``S_j`` next to the set ``K_j(t)`` of running jobs sharing a server with it, it makes
  ``1 / (tau_j (1 + sum_{k in K_j(t)} beta[t_j][t_k] + gamma (|S_j| - 1)))`` iterations per second.

Objective (authoritative): average JCT ``(1/n) sum_j (C_j - a_j)``.

Solution schema: ``{"jobs": [{"id": j, "start": s, "end": e, "servers": [[server, gpus], ...]}]}``,
every job once. The checker sweeps the start/end instants: capacities, gangs and forbidden pairs at
every instant, ``start >= arrival``, and the iterations done by ``end`` (integral of the rate)
cover ``R_j`` up to a relative ``WORK_RTOL``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport

__all__ = ["OnlineJob", "OnlineInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "WORK_RTOL", "slowdown"]

OBJECTIVE = "minimize average JCT (1/n) sum_j (C_j - a_j), rates slowed by co-located jobs and spread"
#: the objective's unit, printed after its value by ``optsched solve`` (mean job completion time in seconds)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"jobs": [{"id": j, "start": s, "end": e, "servers": [[server, gpus], ...]}]}'
                   "  (every job once, non-preemptive)")
#: the simulator accumulates remaining work over at most a few thousand rate changes of a job
#: (an ulp each, 2e-16 relative) and the checker integrates the same piecewise-constant rates in a
#: different order: 1e-9 relative is far above both
WORK_RTOL = 1e-9


@dataclass(frozen=True)
class OnlineJob(Record):
    problem = "interference-online"
    id: int
    arrival: float
    type: int
    gpus: int
    iterations: float
    step_time: float

    @property
    def isolated_time(self) -> float:
        return self.iterations * self.step_time


@dataclass(frozen=True)
class OnlineInstance(Instance):
    """A GPU cluster in server groups, an interference table and a job stream."""

    problem = "interference-online"
    gpus_per_server: tuple[int, ...]
    servers_per_group: int
    job_types: tuple[str, ...]
    beta: tuple[tuple[float, ...], ...]
    forbidden: tuple[tuple[bool, ...], ...]
    spread_penalty: float
    jobs: tuple[OnlineJob, ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(len(self.gpus_per_server) >= 1, "gpus_per_server", "must list at least one server")
        for s, g in enumerate(self.gpus_per_server):
            self.require(g >= 1, f"gpus_per_server[{s}]", "must be >= 1", g)
        self.require(self.servers_per_group >= 1, "servers_per_group", "must be >= 1", self.servers_per_group)
        T = len(self.job_types)
        self.require(T >= 1, "job_types", "must list at least one job type")
        self.require_shape("beta", self.beta, (T, T))
        self.require_shape("forbidden", self.forbidden, (T, T))
        self.require_nonnegative("beta", self.beta)
        self.require(math.isfinite(self.spread_penalty) and self.spread_penalty >= 0, "spread_penalty",
                     "must be finite and >= 0", self.spread_penalty)
        self.require(len(self.jobs) >= 1, "jobs", "must list at least one job", 0)
        total, seen = sum(self.gpus_per_server), set()
        for k, job in enumerate(self.jobs):
            self.require(job.id not in seen, f"jobs[{k}].id", "job ids must be unique", job.id)
            seen.add(job.id)
            self.require(0 <= job.type < T, f"jobs[{k}].type", f"must be in 0..{T - 1}", job.type)
            self.require(1 <= job.gpus <= total, f"jobs[{k}].gpus", f"must be in 1..{total} (the cluster)", job.gpus)
            self.require(math.isfinite(job.arrival) and job.arrival >= 0, f"jobs[{k}].arrival",
                         "must be finite and >= 0", job.arrival)
            self.require(math.isfinite(job.iterations) and job.iterations > 0, f"jobs[{k}].iterations",
                         "must be finite and > 0", job.iterations)
            self.require(math.isfinite(job.step_time) and job.step_time > 0, f"jobs[{k}].step_time",
                         "must be finite and > 0", job.step_time)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @property
    def num_servers(self) -> int:
        return len(self.gpus_per_server)

    @property
    def num_groups(self) -> int:
        return -(-self.num_servers // self.servers_per_group)

    def group_of(self, server: int) -> int:
        return server // self.servers_per_group

    def clash(self, a: int, b: int) -> bool:
        return bool(self.forbidden[a][b] or self.forbidden[b][a])


def slowdown(instance: OnlineInstance, job: OnlineJob, servers, mates) -> float:
    """``1 + sum beta[t_j][t_k] over mates + gamma (|servers| - 1)``."""
    return (1.0 + sum(instance.beta[job.type][m.type] for m in mates)
            + instance.spread_penalty * (len(servers) - 1))


def check(instance: OnlineInstance, solution) -> CheckReport:
    """Sweep the schedule from the instance alone and compute the average JCT."""
    if not isinstance(solution, dict) or set(solution) != {"jobs"} or not isinstance(solution["jobs"], list):
        return CheckReport(False, None, ['solution must be an object {"jobs": [...]}'])
    by_id = {job.id: job for job in instance.jobs}
    violations, runs, seen = [], {}, set()
    for entry in solution["jobs"]:
        if (not isinstance(entry, dict) or set(entry) != {"id", "start", "end", "servers"}
                or not isinstance(entry["servers"], list)):
            return CheckReport(False, None, ['every entry must be {"id", "start", "end", "servers"}'])
        jid = entry["id"]
        if not isinstance(jid, int) or isinstance(jid, bool) or jid not in by_id or jid in seen:
            violations.append(f"job id {jid!r} unknown or listed twice")
            continue
        seen.add(jid)
        job = by_id[jid]
        start, end = entry["start"], entry["end"]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (start, end)):
            violations.append(f"job {jid}: start and end must be finite numbers")
            continue
        if start < job.arrival or end < start:
            violations.append(f"job {jid}: needs arrival {job.arrival} <= start {start} <= end {end}")
            continue
        p = {}
        for pair in entry["servers"]:
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
                    or not 0 <= pair[0] < instance.num_servers or pair[1] < 1 or pair[0] in p):
                violations.append(f"job {jid}: bad servers entry {pair!r}")
                continue
            p[pair[0]] = pair[1]
        if sum(p.values()) != job.gpus:
            violations.append(f"job {jid}: {sum(p.values())} GPUs placed, demand {job.gpus}")
        runs[jid] = (float(start), float(end), p)
    for job in instance.jobs:
        if job.id not in seen:
            violations.append(f"job {job.id} missing from the solution")
    if violations:
        return CheckReport(False, None, violations)
    # sweep: at each instant, ends before starts (a GPU freed at t may be reused at t)
    events = sorted([(e, 0, j) for j, (s, e, p) in runs.items()] + [(s, 1, j) for j, (s, e, p) in runs.items()])
    used = np.zeros(instance.num_servers, int)
    members: list[set[int]] = [set() for _ in range(instance.num_servers)]
    work = {j: 0.0 for j in runs}
    running: set[int] = set()
    last = 0.0
    for t, kind, j in events:
        if t > last and running:
            dt = t - last
            for k in running:
                job = by_id[k]
                mates = {m for s in runs[k][2] for m in members[s]} - {k}
                f = slowdown(instance, job, runs[k][2], [by_id[m] for m in mates])
                work[k] += dt / (job.step_time * f)
        last = max(last, t)
        s0, e0, p = runs[j]
        if kind == 0:
            if j in running:
                running.discard(j)
                for s, g in p.items():
                    used[s] -= g
                    members[s].discard(j)
            continue
        if e0 == s0:
            continue  # zero-length run: never holds GPUs (and does no work)
        for s, g in p.items():
            for m in members[s]:
                if instance.clash(by_id[j].type, by_id[m].type):
                    violations.append(f"jobs {j} and {m} share server {s} at {t} but may not co-locate")
            used[s] += g
            members[s].add(j)
            if used[s] > instance.gpus_per_server[s]:
                violations.append(f"server {s}: {used[s]} GPUs in use at {t}, capacity {instance.gpus_per_server[s]}")
        running.add(j)
    for j, done in work.items():
        need = by_id[j].iterations
        if done < need * (1 - WORK_RTOL):
            violations.append(f"job {j}: {done:.6g} of {need:.6g} iterations done by its end {runs[j][1]}")
    jct = [runs[j.id][1] - j.arrival for j in instance.jobs]
    return CheckReport.from_violations(violations, float(np.mean(jct)), max_jct=float(max(jct)))
