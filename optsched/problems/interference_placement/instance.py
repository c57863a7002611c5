"""The interference-aware placement snapshot: instance and checker (docs ``optsched/problems/interference_placement/README.md``).

optsched's formulation [recon after Zhao & Wu, arXiv 2112.13354 (abstract only)]:

* servers ``s`` with ``gpus_per_server[s]`` free GPUs (a snapshot: what running jobs left free);
* job types with the pairwise interference table ``beta[a][b]`` (slowdown of ``a`` next to
  ``b``, minus one; from Gavel's measured throughputs or the interference model) and
  ``forbidden[a][b]`` (the pair cannot co-locate);
* waiting jobs ``j``: type, gang GPU demand ``g_j``, weight ``w_j`` = isolated remaining run time
  (seconds, ``R_j tau_j``);
* residents: running jobs that stay where they are (type, weight, servers).

Objective (authoritative, a JCT proxy): minimize

    sum_{j placed} w_j (1 + sum_{k shares a server with j} beta[t_j][t_k] + gamma (|S_j| - 1))
    + sum_{r resident} w_r sum_{j placed, shares a server with r} beta[t_r][t_j]
    + reject_cost * (number of rejected jobs)

Solution schema: ``{"jobs": [{"id": j, "servers": [[server, gpus], ...]}, ...]}``, every job once;
an empty ``servers`` list rejects the job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport
from optsched.workloads.colocation import Snapshot, job_slowdowns, placement_cost, placement_violations

__all__ = ["PlacementJob", "Resident", "PlacementInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA",
           "decode", "encode"]

OBJECTIVE = ("minimize sum_j w_j (1 + sum_{k co-located} beta[t_j][t_k] + gamma (servers_j - 1)) "
             "+ resident slowdowns + reject_cost * rejected")
#: the objective's unit, printed after its value by ``optsched solve`` (the weighted JCT proxy: weights are
#: isolated remaining seconds)
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = '{"jobs": [{"id": j, "servers": [[server, gpus], ...]}]}  (every job once; [] = rejected)'


@dataclass(frozen=True)
class PlacementJob(Record):
    problem = "interference-placement"
    id: int
    type: int
    gpus: int
    weight: float


@dataclass(frozen=True)
class Resident(Record):
    problem = "interference-placement"
    type: int
    weight: float
    servers: tuple[int, ...]


@dataclass(frozen=True)
class PlacementInstance(Instance):
    """Free GPUs per server, waiting jobs, residents and the interference table."""

    problem = "interference-placement"
    gpus_per_server: tuple[int, ...]
    job_types: tuple[str, ...]
    beta: tuple[tuple[float, ...], ...]
    forbidden: tuple[tuple[bool, ...], ...]
    jobs: tuple[PlacementJob, ...]
    spread_penalty: float
    reject_cost: float
    residents: tuple[Resident, ...] = ()
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(len(self.gpus_per_server) >= 1, "gpus_per_server", "must list at least one server")
        for s, g in enumerate(self.gpus_per_server):
            self.require(g >= 0, f"gpus_per_server[{s}]", "must be >= 0", g)
        T = len(self.job_types)
        self.require(T >= 1, "job_types", "must list at least one job type")
        self.require_shape("beta", self.beta, (T, T))
        self.require_shape("forbidden", self.forbidden, (T, T))
        self.require_nonnegative("beta", self.beta)
        self.require(math.isfinite(self.spread_penalty) and self.spread_penalty >= 0, "spread_penalty",
                     "must be finite and >= 0", self.spread_penalty)
        self.require(math.isfinite(self.reject_cost) and self.reject_cost > 0, "reject_cost",
                     "must be finite and > 0", self.reject_cost)
        seen = set()
        for k, job in enumerate(self.jobs):
            self.require(job.id not in seen, f"jobs[{k}].id", "job ids must be unique", job.id)
            seen.add(job.id)
            self.require(0 <= job.type < T, f"jobs[{k}].type", f"must be in 0..{T - 1}", job.type)
            self.require(job.gpus >= 1, f"jobs[{k}].gpus", "must be >= 1", job.gpus)
            self.require(math.isfinite(job.weight) and job.weight >= 0, f"jobs[{k}].weight",
                         "must be finite and >= 0", job.weight)
        for k, r in enumerate(self.residents):
            self.require(0 <= r.type < T, f"residents[{k}].type", f"must be in 0..{T - 1}", r.type)
            self.require(math.isfinite(r.weight) and r.weight >= 0, f"residents[{k}].weight",
                         "must be finite and >= 0", r.weight)
            self.require(len(r.servers) >= 1 and len(set(r.servers)) == len(r.servers), f"residents[{k}].servers",
                         "must list distinct servers", r.servers)
            for s in r.servers:
                self.require(0 <= s < len(self.gpus_per_server), f"residents[{k}].servers",
                             f"must be in 0..{len(self.gpus_per_server) - 1}", s)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @property
    def num_servers(self) -> int:
        return len(self.gpus_per_server)

    @cached_property
    def snapshot(self) -> Snapshot:
        return Snapshot(free=self.gpus_per_server, job_types=tuple(j.type for j in self.jobs),
                        job_gpus=tuple(j.gpus for j in self.jobs), job_weight=tuple(j.weight for j in self.jobs),
                        beta=self.beta, forbidden=self.forbidden, gamma=self.spread_penalty,
                        reject_cost=self.reject_cost, res_types=tuple(r.type for r in self.residents),
                        res_weight=tuple(r.weight for r in self.residents),
                        res_servers=tuple(r.servers for r in self.residents))


def encode(instance: PlacementInstance, placements) -> dict:
    """The solution record of per-job placements (dict server -> GPUs, or None)."""
    return {"jobs": [{"id": job.id, "servers": sorted([int(s), int(g)] for s, g in (p or {}).items())}
                     for job, p in zip(instance.jobs, placements)]}


def decode(instance: PlacementInstance, solution) -> tuple[list, list[str]]:
    """Per-job placements in instance order, and the schema violations."""
    if not isinstance(solution, dict) or set(solution) != {"jobs"} or not isinstance(solution["jobs"], list):
        return [], ['solution must be an object {"jobs": [...]}']
    index = {job.id: k for k, job in enumerate(instance.jobs)}
    out: list = [None] * instance.num_jobs
    seen, errors = set(), []
    for entry in solution["jobs"]:
        if not isinstance(entry, dict) or set(entry) != {"id", "servers"} or not isinstance(entry["servers"], list):
            return [], ['every entry must be {"id": j, "servers": [[server, gpus], ...]}']
        jid = entry["id"]
        if not isinstance(jid, int) or isinstance(jid, bool) or jid not in index or jid in seen:
            errors.append(f"job id {jid!r} unknown or listed twice")
            continue
        seen.add(jid)
        p = {}
        for pair in entry["servers"]:
            if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                       for v in pair)):
                errors.append(f"job {jid}: servers entries must be [server, gpus] integer pairs")
                continue
            s, g = pair
            if s in p:
                errors.append(f"job {jid}: server {s} listed twice")
            p[s] = g
        out[index[jid]] = p or None
    for job in instance.jobs:
        if job.id not in seen:
            errors.append(f"job {job.id} missing from the solution")
    return out, errors


def check(instance: PlacementInstance, solution) -> CheckReport:
    """Verify capacities, gangs and clashes from the instance alone; compute the objective."""
    placements, errors = decode(instance, solution)
    if errors:
        return CheckReport(False, None, errors)
    snap = instance.snapshot
    violations = placement_violations(snap, placements)
    value = placement_cost(snap, placements)
    return CheckReport.from_violations(violations, value, rejected=sum(p is None for p in placements),
                                       slowdowns=job_slowdowns(snap, placements))
