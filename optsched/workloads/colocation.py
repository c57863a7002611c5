"""Gang placement of jobs on servers with pairwise co-location interference (shared layer).

A snapshot placement problem and an online one both decide where waiting jobs go, given the jobs already running (residents). This module holds
the one cost, the candidate placements, the greedy rules and the exact MILP they share.

Cost of a placement [recon, ``docs/interference_model.md``]: job ``j`` (type ``t_j``, ``g_j`` GPUs,
weight ``w_j`` = isolated remaining seconds ``R_j tau_j``) placed on the servers ``S_j`` costs

    w_j * (1 + sum_{k shares a server with j} beta[t_j][t_k] + gamma * (|S_j| - 1)),

a resident ``r`` sharing a server with new jobs adds ``w_r * sum_j beta[t_r][t_j]`` (what they
slow it down by), and every rejected job costs ``reject_cost``. Resident-resident interference is
a constant and left out. Pairs with ``forbidden[t_j][t_k]`` (either order) may not share a server.
The cost is a JCT proxy: for jobs that start now and keep their co-runners, ``w_j *
(1 + ...)`` is the job's run time under the additive (linearized) slowdown model.

>>> snap = Snapshot(free=(2, 2), job_types=(0, 0), job_gpus=(1, 1), job_weight=(10.0, 10.0),
...                 beta=((0.5,),), forbidden=((False,),), gamma=0.1, reject_cost=100.0)
>>> placement_cost(snap, [{0: 1}, {0: 1}])   # together on server 0: each slowed by 1.5
30.0
>>> greedy_placement(snap, "least-interference")
[{0: 1}, {1: 1}]
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field

import numpy as np

from optsched.core.linear import LinearModel, ModelBuilder

__all__ = ["Snapshot", "placement_cost", "placement_violations", "candidates", "greedy_placement",
           "build_placement_model", "decode_placement", "RULES", "job_slowdowns"]

RULES = ("pack", "spread", "least-interference")


@dataclass(frozen=True)
class Snapshot:
    """Plain-array view of one placement decision.

    ``free[s]``: free GPUs of server ``s``; new jobs ``job_*``; residents ``res_*`` with their
    servers (``res_servers[r]`` a tuple of server indices); type-level ``beta`` and ``forbidden``.
    """

    free: tuple[int, ...]
    job_types: tuple[int, ...]
    job_gpus: tuple[int, ...]
    job_weight: tuple[float, ...]
    beta: tuple[tuple[float, ...], ...]
    forbidden: tuple[tuple[bool, ...], ...]
    gamma: float
    reject_cost: float
    res_types: tuple[int, ...] = ()
    res_weight: tuple[float, ...] = ()
    res_servers: tuple[tuple[int, ...], ...] = ()
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def num_jobs(self) -> int:
        return len(self.job_types)

    @property
    def num_servers(self) -> int:
        return len(self.free)

    def clash(self, ta: int, tb: int) -> bool:
        return bool(self.forbidden[ta][tb] or self.forbidden[tb][ta])

    def pair_cost(self, j: int, k: int) -> float:
        """Cost of new jobs ``j`` and ``k`` sharing at least one server."""
        tj, tk = self.job_types[j], self.job_types[k]
        return self.job_weight[j] * self.beta[tj][tk] + self.job_weight[k] * self.beta[tk][tj]

    def resident_cost(self, j: int, r: int) -> float:
        """Cost of new job ``j`` sharing at least one server with resident ``r``."""
        tj, tr = self.job_types[j], self.res_types[r]
        return self.job_weight[j] * self.beta[tj][tr] + self.res_weight[r] * self.beta[tr][tj]

    def blocked_servers(self, j: int) -> set[int]:
        """Servers job ``j`` may not use because a resident there clashes with it."""
        out = set()
        for r, servers in enumerate(self.res_servers):
            if self.clash(self.job_types[j], self.res_types[r]):
                out.update(servers)
        return out


def placement_violations(snap: Snapshot, placements) -> list[str]:
    """Every capacity, gang and clash violation of ``placements`` (None = rejected)."""
    out = []
    used = np.zeros(snap.num_servers, int)
    for j, p in enumerate(placements):
        if p is None:
            continue
        if sum(p.values()) != snap.job_gpus[j]:
            out.append(f"job {j}: {sum(p.values())} GPUs placed, demand {snap.job_gpus[j]}")
        for s, g in p.items():
            if not (0 <= s < snap.num_servers) or g < 1:
                out.append(f"job {j}: bad server {s} or GPU count {g}")
                continue
            used[s] += g
        for s in set(p) & snap.blocked_servers(j):
            out.append(f"job {j}: server {s} holds a resident it may not co-locate with")
    for s in range(snap.num_servers):
        if used[s] > snap.free[s]:
            out.append(f"server {s}: {used[s]} GPUs placed, {snap.free[s]} free")
    placed = [j for j in range(snap.num_jobs) if placements[j] is not None]  # pairs of placed jobs only
    for j, k in itertools.combinations(placed, 2):
        pj, pk = placements[j], placements[k]
        if set(pj) & set(pk) and snap.clash(snap.job_types[j], snap.job_types[k]):
            out.append(f"jobs {j} and {k} share a server but may not co-locate")
    return out


def placement_cost(snap: Snapshot, placements) -> float:
    """The JCT-proxy cost of ``placements`` (see the module doc); no feasibility check."""
    total = 0.0
    placed = [j for j, p in enumerate(placements) if p is not None]  # O(placed^2), not O(n^2)
    for j, p in enumerate(placements):
        if p is None:
            total += snap.reject_cost
            continue
        total += snap.job_weight[j] * (1.0 + snap.gamma * (len(p) - 1))
        for k in placed[bisect.bisect_right(placed, j):]:
            if set(p) & set(placements[k]):
                total += snap.pair_cost(j, k)
        for r, servers in enumerate(snap.res_servers):
            if set(p) & set(servers):
                total += snap.resident_cost(j, r)
    return total


def job_slowdowns(snap: Snapshot, placements) -> list[float | None]:
    """Per new job, its factor ``1 + sum beta + gamma (|S_j| - 1)`` (None if rejected)."""
    out = []
    for j, p in enumerate(placements):
        if p is None:
            out.append(None)
            continue
        f = 1.0 + snap.gamma * (len(p) - 1)
        tj = snap.job_types[j]
        for k, pk in enumerate(placements):
            if k != j and pk is not None and set(p) & set(pk):
                f += snap.beta[tj][snap.job_types[k]]
        for r, servers in enumerate(snap.res_servers):
            if set(p) & set(servers):
                f += snap.beta[tj][snap.res_types[r]]
        out.append(f)
    return out


def candidates(snap: Snapshot, j: int, free, placed) -> list[dict[int, int]]:
    """Placements of job ``j`` given ``free`` GPUs and the jobs ``placed`` so far.

    Every single server with room (and no clash), then one split: the allowed servers by
    decreasing free GPUs, as few as possible. Empty when the job cannot be placed.
    """
    g = snap.job_gpus[j]
    tj = snap.job_types[j]
    banned = set(snap.blocked_servers(j))
    for k, pk in placed.items():
        if pk is not None and snap.clash(tj, snap.job_types[k]):
            banned.update(pk)
    allowed = [s for s in range(snap.num_servers) if s not in banned and free[s] > 0]
    out = [{s: g} for s in allowed if free[s] >= g]
    if not out and sum(free[s] for s in allowed) >= g:
        split, need = {}, g
        for s in sorted(allowed, key=lambda s: (-free[s], s)):
            take = min(need, free[s])
            split[s] = take
            need -= take
            if need == 0:
                break
        out.append(split)
    return out


def _marginal(snap: Snapshot, j: int, p: dict, placed: dict) -> float:
    cost = snap.job_weight[j] * (1.0 + snap.gamma * (len(p) - 1))
    for k, pk in placed.items():
        if pk is not None and set(p) & set(pk):
            cost += snap.pair_cost(j, k)
    for r, servers in enumerate(snap.res_servers):
        if set(p) & set(servers):
            cost += snap.resident_cost(j, r)
    return cost


def greedy_placement(snap: Snapshot, rule: str, order=None, poll=None) -> list[dict[int, int] | None]:
    """Place jobs one by one (queue order, or ``order``) by ``rule`` [ours].

    * ``pack``: best fit -- the server with the fewest free GPUs that holds the job;
    * ``spread``: worst fit -- the server with the most free GPUs;
    * ``least-interference``: the candidate of least marginal cost (own run time plus the
      slowdown it causes), and rejection when even that costs more than ``reject_cost``.

    ``pack`` and ``spread`` reject a job only when it fits nowhere. Complexity ``O(n S (p + r))``
    for ``p`` jobs placed (at most the free GPUs). ``poll`` (a clock check that raises) is called
    once per job.
    """
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r} (known: {RULES})")
    free = list(snap.free)
    placed: dict[int, dict] = {}  # the jobs placed so far (a rejected job is left out)
    for j in (order if order is not None else range(snap.num_jobs)):
        if poll is not None:
            poll()
        cands = candidates(snap, j, free, placed)
        choice = None
        if cands:
            if rule == "pack":
                choice = min(cands, key=lambda p: (len(p), sum(free[s] for s in p), min(p)))
            elif rule == "spread":
                choice = min(cands, key=lambda p: (len(p), -sum(free[s] for s in p), min(p)))
            else:
                costs = [_marginal(snap, j, p, placed) for p in cands]
                best = int(np.argmin(costs))
                if costs[best] < snap.reject_cost:
                    choice = cands[best]
        if choice is not None:
            placed[j] = choice
            for s, g in choice.items():
                free[s] -= g
    return [placed.get(j) for j in range(snap.num_jobs)]


def build_placement_model(snap: Snapshot, name: str = "placement", poll=None) -> LinearModel:
    """The snapshot MILP [recon; stated with the snapshot problem], exact for :func:`placement_cost`.

    ``x[j,s]`` integer GPUs, ``u[j,s]`` uses-server, ``a[j]`` admitted, ``z[p]`` per allowed pair
    of new jobs and ``y[q]`` per (job, resident) pair: ``sum_s x = g_j a_j``, ``u <= x <= g_j u``,
    ``sum_j x[j,s] <= free_s``, ``z >= u[j,s] + u[k,s] - 1``, ``y >= u[j,s]`` on the resident's
    servers, clashing pairs ``u[j,s] + u[k,s] <= 1`` and ``u = 0`` where a resident clashes.
    Objective ``sum_j w_j a_j + w_j gamma (sum_s u - a_j) + R (1 - a_j) + sum c_p z_p + sum c_q y_q``
    (every cost >= 0, so z and y sit at their lower bounds at an optimum). ``name``: the model's
    name (in back-end refusals and MPS files): the calling problem's. ``poll`` (a clock check that
    raises) is called once per job and per job pair while the rows are written.
    """
    n, S = snap.num_jobs, snap.num_servers
    poll = poll or (lambda: None)
    b = ModelBuilder(name, "min")
    w = np.asarray(snap.job_weight, float)
    g = np.asarray(snap.job_gpus, int)
    cap = np.minimum(g[:, None], np.asarray(snap.free)[None, :]) if n else np.zeros((0, S))
    x = b.add_block("x", (n, S), upper=cap, integer=True)
    u = b.add_block("u", (n, S), upper=(cap > 0).astype(float), integer=True, cost=np.repeat(w * snap.gamma, S).reshape(n, S) if n else 0.0)
    a = b.add_block("a", n, upper=1, integer=True, cost=w * (1 - snap.gamma) - snap.reject_cost)
    b.offset = snap.reject_cost * n
    pairs = [(j, k) for j, k in itertools.combinations(range(n), 2)
             if not snap.clash(snap.job_types[j], snap.job_types[k])]
    clashes = [(j, k) for j, k in itertools.combinations(range(n), 2)
               if snap.clash(snap.job_types[j], snap.job_types[k])]
    rq = [(j, r) for j in range(n) for r in range(len(snap.res_types))
          if not snap.clash(snap.job_types[j], snap.res_types[r])]
    z = b.add_block("z", len(pairs), upper=1, integer=True, cost=[snap.pair_cost(j, k) for j, k in pairs])
    y = b.add_block("y", len(rq), upper=1, integer=True, cost=[snap.resident_cost(j, r) for j, r in rq])
    rows, cols, vals, lo, hi = [], [], [], [], []

    def row(entries, lower, upper):
        i = len(lo)
        for c, v in entries:
            rows.append(i), cols.append(int(c)), vals.append(float(v))
        lo.append(lower), hi.append(upper)

    inf = float("inf")
    for j in range(n):
        poll()
        row([(x[j, s], 1) for s in range(S)] + [(a[j], -g[j])], 0, 0)
        for s in range(S):
            row([(x[j, s], 1), (u[j, s], -g[j])], -inf, 0)
            row([(x[j, s], 1), (u[j, s], -1)], 0, inf)
        for s in snap.blocked_servers(j):
            row([(u[j, s], 1)], -inf, 0)
    for s in range(S):
        row([(x[j, s], 1) for j in range(n)], -inf, snap.free[s])
    for p, (j, k) in enumerate(pairs):
        poll()
        for s in range(S):
            row([(z[p], 1), (u[j, s], -1), (u[k, s], -1)], -1, inf)
    for j, k in clashes:
        poll()
        for s in range(S):
            row([(u[j, s], 1), (u[k, s], 1)], -inf, 1)
    for q, (j, r) in enumerate(rq):
        for s in snap.res_servers[r]:
            row([(y[q], 1), (u[j, s], -1)], 0, inf)
    b.add_sparse_rows("placement", rows, cols, vals, len(lo), lower=np.array(lo), upper=np.array(hi))
    return b.build()


def decode_placement(snap: Snapshot, model: LinearModel, xvec) -> list[dict[int, int] | None]:
    """The placements of a model point (integer columns rounded)."""
    x = np.rint(model.block_values(np.asarray(xvec), "x")).astype(int)
    out = []
    for j in range(snap.num_jobs):
        p = {s: int(x[j, s]) for s in range(snap.num_servers) if x[j, s] > 0}
        out.append(p or None)
    return out
