"""The ``rar-makespan`` instance, its placement plans and the checker's slot simulation.

Objective (authoritative, docs ``optsched/problems/rar_makespan/README.md``): the makespan, in slots, of the slot-by-slot
simulation of a placement plan: each slot the iteration time of every running job is recomputed
from the set of running jobs (contention), and a job completes when its cumulative iterations
reach ``iterations``.

Solution schema: ``{"order": [job, ...], "gpus": [[[server, gpu], ...] per job]}``: a
permutation of the jobs (the placement order) and, for each job, the distinct GPUs it runs on
(``gpus[j]`` has exactly ``jobs[j].gpus`` entries). The plan is executed as per-GPU queues in plan
order: a job starts at the first slot boundary when every GPU of it is free and every job placed
before it on one of its GPUs has started (gang scheduling, no preemption, fixed placement). The
first unstarted job of the order can always start once its GPUs free up, so every plan
terminates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport
from optsched.workloads.rar_timing import (iteration_time, iterations_per_slot, spread_bandwidth)

__all__ = ["RarJob", "RarMakespanInstance", "check", "simulate", "Schedule", "OBJECTIVE",
           "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize the makespan (slots) of the slot-by-slot simulation of the placement plan, "
             "iteration times recomputed each slot from the running jobs (contention)")
#: the objective's unit, printed after its value by ``optsched solve`` (the makespan in slots)
OBJECTIVE_UNIT = "slots"
SOLUTION_SCHEMA = ('{"order": [job, ...] (a permutation), "gpus": [[[server, gpu], ...] per job] '
                   '(distinct GPUs, jobs[j].gpus of them)}')


@dataclass(frozen=True)
class RarJob(Record):
    """One ring-all-reduce training job of the batch (all present at time 0).

    ``compute_s`` is ``df * mb + db``: forward plus backward time of one mini-batch (s);
    ``estimate_slots`` is rho_hat, the scheduler's run-time estimate (slots).
    """

    problem = "rar-makespan"
    gpus: int
    iterations: int
    model_bytes: float
    compute_s: float
    estimate_slots: float
    job_type: str = ""

    def violations(self) -> list[tuple[str, str, object]]:
        """``(field, rule, value)`` of each broken rule (the instance reports them with the job's path)."""
        return self.field_violations(at_least={"gpus": 1, "iterations": 1}, nonnegative=("model_bytes",),
                                     positive=("compute_s", "estimate_slots"))


@dataclass(frozen=True)
class RarMakespanInstance(Instance):
    """A batch of RAR jobs on a GPU cluster, with the contention timing model.

    Fields (units): ``servers`` GPUs per server; ``slot_s`` slot length (s); ``intra_bandwidth``
    b_in and ``inter_bandwidth`` b_ex (bytes/s); ``reduction_speed`` red (bytes/s);
    ``contention_scale`` xi1 (dimensionless); ``server_overhead_s`` xi2 (s per server);
    ``penalty_slope`` theta of pen(k) = k + theta (k - 1); ``estimate_lower`` l and
    ``estimate_upper`` u with l rho_j <= rho_hat_j <= u rho_j, rho_j = run time (slots) under the
    job's fastest placement without contention; ``horizon`` T, the upper end of SJF-BCO's
    bisection.

    Valid instances: every job fits the cluster, and every job's iteration time under its slowest
    feasible placement (most servers, worst contention) is at most ``slot_s`` (so each running job
    makes at least one iteration per slot).
    """

    problem = "rar-makespan"
    servers: tuple[int, ...]
    jobs: tuple[RarJob, ...]
    slot_s: float
    intra_bandwidth: float
    inter_bandwidth: float
    reduction_speed: float
    contention_scale: float = 0.0
    server_overhead_s: float = 0.0
    penalty_slope: float = 0.0
    estimate_lower: float = 1.0
    estimate_upper: float = 1.0
    horizon: int = 1200
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(len(self.servers) >= 1, "servers", "must list at least one server", len(self.servers))
        for s, n in enumerate(self.servers):
            self.require(n >= 1, f"servers[{s}]", "must be >= 1 GPU", n)
        self.require(len(self.jobs) >= 1, "jobs", "must list at least one job", len(self.jobs))
        for name in ("slot_s", "intra_bandwidth", "inter_bandwidth", "reduction_speed"):
            self.require_nonnegative(name, [getattr(self, name)], strict=True)
        for name in ("contention_scale", "server_overhead_s", "penalty_slope"):
            self.require_nonnegative(name, [getattr(self, name)])
        self.require(0 < self.estimate_lower <= self.estimate_upper and math.isfinite(self.estimate_upper),
                     "estimate_lower", "must satisfy 0 < estimate_lower <= estimate_upper < inf",
                     (self.estimate_lower, self.estimate_upper))
        self.require(self.horizon >= 1, "horizon", "must be >= 1 slot", self.horizon)
        for j, job in enumerate(self.jobs):
            for field, rule, value in job.violations():
                raise self.invalid(f"jobs[{j}].{field}", rule, value)
        total = sum(self.servers)
        for j, job in enumerate(self.jobs):
            self.require(job.gpus <= total, f"jobs[{j}].gpus",
                         f"must be <= the cluster's {total} GPUs", job.gpus)
        for j, job in enumerate(self.jobs):
            slow = self.slowest_tau(j)
            self.require(slow <= self.slot_s, f"jobs[{j}]",
                         f"iteration time under the slowest feasible placement ({slow:.6g} s) must be "
                         f"<= slot_s ({self.slot_s:g} s)", job.job_type or j)
        for j, job in enumerate(self.jobs):
            rho = self.fastest_slots(j)
            lo, hi = self.estimate_lower * rho, self.estimate_upper * rho
            self.require(lo * (1 - 1e-9) <= job.estimate_slots <= hi * (1 + 1e-9), f"jobs[{j}].estimate_slots",
                         f"must lie in [l rho, u rho] = [{lo:g}, {hi:g}] (rho = {rho} slots)", job.estimate_slots)

    # -- timing ---------------------------------------------------------------------------
    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def gpu_server(self) -> np.ndarray:
        """Server of each GPU, GPUs numbered server by server."""
        return np.repeat(np.arange(len(self.servers)), self.servers)

    @cached_property
    def gpu_offset(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.servers)[:-1]]).astype(int)

    @property
    def max_gpus(self) -> int:
        """n_g = max_j G_j."""
        return max(job.gpus for job in self.jobs)

    def tau(self, j: int, servers_used: int, sharing: int = 1) -> float:
        """Iteration time (s) of job j on ``servers_used`` servers, ``sharing`` = p_j (spread only)."""
        job = self.jobs[j]
        if servers_used <= 1:
            return iteration_time(model_bytes=job.model_bytes, workers=job.gpus, compute_s=job.compute_s,
                                  bandwidth=self.intra_bandwidth, reduction_speed=self.reduction_speed)
        return iteration_time(
            model_bytes=job.model_bytes, workers=job.gpus, compute_s=job.compute_s,
            bandwidth=spread_bandwidth(self.inter_bandwidth, sharing, self.contention_scale, self.penalty_slope),
            reduction_speed=self.reduction_speed, overhead_s=self.server_overhead_s * servers_used)

    def contention_free_tau(self, j: int, spread: bool) -> float:
        """Iteration time with cont = 1 and ovh = 0 (the model of the ``milp`` bound)."""
        job = self.jobs[j]
        return iteration_time(model_bytes=job.model_bytes, workers=job.gpus, compute_s=job.compute_s,
                              bandwidth=self.inter_bandwidth if spread and job.gpus > 1 else self.intra_bandwidth,
                              reduction_speed=self.reduction_speed)

    def _min_servers(self, gpus: int) -> int:
        need, k = gpus, 0
        for n in sorted(self.servers, reverse=True):
            need -= n
            k += 1
            if need <= 0:
                return k
        raise AssertionError("job larger than the cluster")  # excluded by validate()

    @cached_property
    def max_sharing(self) -> int:
        """An upper bound on p_j: spread jobs share a server only by holding one of its GPUs."""
        multi = sum(1 for job in self.jobs if job.gpus >= 2)
        return max(1, min(multi, max(self.servers)))

    def slowest_tau(self, j: int) -> float:
        """Iteration time under the slowest feasible placement: the most servers, worst contention."""
        g = self.jobs[j].gpus
        options = []
        if g <= max(self.servers):
            options.append(self.tau(j, 1))
        if g >= 2 and len(self.servers) >= 2:
            options.append(self.tau(j, min(g, len(self.servers)), self.max_sharing))
        return max(options)

    def fastest_tau(self, j: int) -> float:
        """Iteration time under the fastest placement without contention (fewest servers)."""
        g = self.jobs[j].gpus
        options = []
        if g <= max(self.servers):
            options.append(self.tau(j, 1))
        if g >= 2 and len(self.servers) >= 2:
            options.append(self.tau(j, max(2, self._min_servers(g)), 1))
        return min(options)

    def slots_at(self, j: int, tau: float) -> int:
        return math.ceil(self.jobs[j].iterations / iterations_per_slot(tau, self.slot_s))

    def fastest_slots(self, j: int) -> int:
        """rho_j: run time (slots) under the fastest placement without contention."""
        return self.slots_at(j, self.fastest_tau(j))

    def slowest_slots(self, j: int) -> int:
        return self.slots_at(j, self.slowest_tau(j))

    @cached_property
    def phi(self) -> float:
        """phi = max_j rho_j(slowest feasible placement) / rho_j(fastest) (Theorem 5's factor)."""
        return max(self.slowest_slots(j) / self.fastest_slots(j) for j in range(self.num_jobs))


@dataclass
class Schedule:
    """The simulated execution of a plan: start and completion slot of each job."""

    start: list[int]
    completion: list[int]

    @property
    def makespan(self) -> int:
        return max(self.completion)

    @property
    def average_jct(self) -> float:
        return float(np.mean(self.completion))


def simulate(instance: RarMakespanInstance, order, gpus, *, contention: bool = True,
             durations=None) -> Schedule:
    """Execute a (valid) plan slot by slot; see the module docstring for the semantics.

    With ``contention=False`` iteration times use cont = 1 and ovh = 0 (the ``milp`` model);
    with ``durations`` (slots per job, possibly fractional) jobs take those fixed times instead
    (SJF-BCO's estimated timeline). Event-driven: the running set, hence every iteration time,
    only changes when a job starts or completes, so the simulation jumps between those slots.
    """
    n = instance.num_jobs
    servers_of = [sorted({s for s, _ in gpus[j]}) for j in range(n)]
    queue: dict[tuple[int, int], list[int]] = {}
    for j in order:
        for gpu in gpus[j]:
            queue.setdefault(tuple(gpu), []).append(j)
    head = {gpu: 0 for gpu in queue}
    start = [-1] * n
    completion = [-1] * n
    remaining = [float(instance.jobs[j].iterations) if durations is None else float(durations[j])
                 for j in range(n)]
    running: list[int] = []
    now: float = 0
    # A job can start only at the head of every GPU queue it is in, so at each event only the
    # current heads are examined (at most one per GPU): O(GPUs) per event, not O(waiting jobs).
    # Two heads never share a GPU, so starting one never blocks another and the order in which
    # they are examined (plan order, kept for readability) does not matter.
    pos = {j: k for k, j in enumerate(order)}
    mine = [[tuple(g) for g in gpus[j]] for j in range(n)]
    candidates = {q[0] for q in queue.values()} | {j for j in order if not mine[j]}
    busy: set = set()
    unstarted = len(order)
    while unstarted or running:
        for j in sorted(candidates, key=pos.__getitem__):
            if all(g not in busy and queue[g][head[g]] == j for g in mine[j]):
                start[j] = now
                running.append(j)
                busy.update(mine[j])
                candidates.discard(j)
                unstarted -= 1
                for g in mine[j]:
                    head[g] += 1
                    if head[g] < len(queue[g]) and start[queue[g][head[g]]] < 0:
                        candidates.add(queue[g][head[g]])
        rate = _rates(instance, running, servers_of, contention, durations is not None)
        step = min(remaining[j] / rate[j] for j in running)
        if durations is None:
            step = math.ceil(step - 1e-9)
        now += step
        for j in list(running):
            remaining[j] -= rate[j] * step
            if remaining[j] <= 1e-9:
                completion[j] = now
                running.remove(j)
                busy.difference_update(mine[j])
    return Schedule(start, completion)


def _rates(instance, running, servers_of, contention, fixed) -> dict[int, float]:
    """Iterations per slot of every running job (1 slot per slot for fixed durations)."""
    if fixed:
        return {j: 1.0 for j in running}
    spread = [j for j in running if len(servers_of[j]) >= 2]
    count: dict[int, int] = {}
    for j in spread:
        for s in servers_of[j]:
            count[s] = count.get(s, 0) + 1
    rates = {}
    for j in running:
        used = len(servers_of[j])
        if not contention:
            tau = instance.contention_free_tau(j, used >= 2)
        else:
            sharing = max((count[s] for s in servers_of[j]), default=1) if used >= 2 else 1
            tau = instance.tau(j, used, sharing)
        rates[j] = float(iterations_per_slot(tau, instance.slot_s))
    return rates


def plan_violations(instance: RarMakespanInstance, solution) -> list[str]:
    """Structural violations of a plan (empty when the plan is valid)."""
    if not isinstance(solution, dict) or set(solution) != {"order", "gpus"}:
        return ['solution must be an object {"order": [...], "gpus": [...]}']
    order, gpus = solution["order"], solution["gpus"]
    n = instance.num_jobs
    out = []
    if not isinstance(order, list) or sorted(o for o in order if isinstance(o, int)) != list(range(n)) \
            or len(order) != n:
        out.append(f"order must be a permutation of 0..{n - 1}")
    if not isinstance(gpus, list) or len(gpus) != n:
        return out + [f"gpus must list the GPUs of each of the {n} jobs"]
    for j, mine in enumerate(gpus):
        if not isinstance(mine, list) or not all(
                isinstance(g, list) and len(g) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in g)
                for g in mine):
            out.append(f"job {j}: gpus must be a list of [server, gpu] integer pairs")
            continue
        if len(mine) != instance.jobs[j].gpus:
            out.append(f"job {j}: {len(mine)} GPUs assigned, needs exactly {instance.jobs[j].gpus}")
        if len({tuple(g) for g in mine}) != len(mine):
            out.append(f"job {j}: a GPU is assigned twice")
        for s, g in mine:
            if not (0 <= s < len(instance.servers) and 0 <= g < instance.servers[s]):
                out.append(f"job {j}: GPU [{s}, {g}] does not exist")
    return out


def check(instance: RarMakespanInstance, solution) -> CheckReport:
    """Validate the plan and simulate it; the objective is the simulated makespan (slots)."""
    violations = plan_violations(instance, solution)
    if violations:
        return CheckReport(False, None, violations)
    sched = simulate(instance, solution["order"], solution["gpus"])
    return CheckReport(True, float(sched.makespan), [],
                       {"completion": sched.completion, "start": sched.start,
                        "average_jct": sched.average_jct})
