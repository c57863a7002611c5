"""The ``ps-locality`` instance, its derived arrays and the authoritative checker.

Problem (docs ``optsched/problems/ps_locality/README.md``): parameter-server training jobs arrive over time slots on
machines with several resource types. In each slot a job runs either *co-located* (all its
workers and parameter servers on one machine; a mini-batch takes ``e_in`` slots per worker) or
*spread* (anywhere; ``e_ex`` slots per worker), with

    e_in[i] = compute_slots[i] + 2 gradient_mb[i] / bandwidth_in
    e_ex[i] = compute_slots[i] + 2 gradient_mb[i] / bandwidth_ex          [ours]

Objective (authoritative): ``sum_i (C_i - a_i + 1)``, the total completion time in slots, where
``C_i`` is the first slot by which job i's cumulative progress ``sum (x / e_in + y / e_ex)``
reaches its workload (slots are numbered 0 .. horizon_slots - 1; a_i is the arrival slot).

Solution schema: ``{"allocations": [[job, machine, slot, x, p, y, q], ...]}`` -- one entry per
(job, machine, slot) with a nonzero count: co-located workers ``x`` and parameter servers ``p``,
spread workers ``y`` and parameter servers ``q`` (non-negative integers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport

__all__ = ["Machine", "Job", "PsLocalityInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA",
           "PROGRESS_RTOL", "CAPACITY_RTOL", "solution_arrays", "solution_from_arrays"]

PROBLEM = "ps-locality"
OBJECTIVE = "minimize sum_i (C_i - a_i + 1), C_i the first slot by which cumulative progress reaches V_i"
#: the objective's unit, printed after its value by ``optsched solve`` (total completion time in slots)
OBJECTIVE_UNIT = "slots"
SOLUTION_SCHEMA = ('{"allocations": [[job, machine, slot, x, p, y, q], ...]}  x, p co-located and y, q '
                   'spread workers / parameter servers (non-negative integers, nonzero rows only)')

#: a job counts as complete once its progress reaches V_i (1 - PROGRESS_RTOL): the exact models
#: normalize each covering row by V_i and HiGHS accepts rows within 1e-7 (primal feasibility
#: tolerance), so 1e-6 relative leaves a factor 10 of margin and is far below one worker-slot.
PROGRESS_RTOL = 1e-6
#: capacities are compared with the same relative slack (resource demands are floats).
CAPACITY_RTOL = 1e-9


@dataclass(frozen=True)
class Machine(Record):
    """A machine: ``capacity[r]`` units of each resource type ``r`` (instance ``resources``)."""

    problem = PROBLEM
    name: str
    capacity: tuple[float, ...]


@dataclass(frozen=True)
class Job(Record):
    """A parameter-server training job.

    ``workload`` V_i mini-batches; ``compute_slots`` tau_i slots of computation per mini-batch and
    worker; ``gradient_mb`` g_i (pushed and pulled once per mini-batch); ``worker_demand`` and
    ``ps_demand`` per worker / parameter server and resource; at most ``max_workers`` workers per
    slot; one parameter server serves at most ``ps_fan`` workers.
    """

    problem = PROBLEM
    name: str
    arrival: int
    workload: float
    compute_slots: float
    gradient_mb: float
    worker_demand: tuple[float, ...]
    ps_demand: tuple[float, ...]
    max_workers: int
    ps_fan: int
    model: str = ""


@dataclass(frozen=True)
class PsLocalityInstance(Instance):
    """Jobs, machines, two bandwidths and a slotted horizon (docs ``optsched/problems/ps_locality/README.md``).

    >>> inst = PsLocalityInstance(resources=["gpu"], machines=[{"name": "m0", "capacity": [2]}],
    ...     jobs=[{"name": "j0", "arrival": 0, "workload": 40, "compute_slots": 0.05, "gradient_mb": 10,
    ...            "worker_demand": [1], "ps_demand": [0], "max_workers": 2, "ps_fan": 2}],
    ...     bandwidth_in=1000, bandwidth_ex=100, horizon_slots=4)
    >>> [round(float(v), 3) for v in (inst.e_in[0], inst.e_ex[0])]
    [0.07, 0.25]
    >>> PsLocalityInstance.from_json(dict(inst.to_json(), bandwidth_ex=0))
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: ps-locality: field 'bandwidth_ex': must be > 0 (got 0.0)
    """

    problem = PROBLEM
    resources: tuple[str, ...]
    machines: tuple[Machine, ...]
    jobs: tuple[Job, ...]
    bandwidth_in: float
    bandwidth_ex: float
    horizon_slots: int
    slot_s: float = 1.0
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        R = len(self.resources)
        self.require(R >= 1, "resources", "must name at least one resource type", R)
        self.require(len(set(self.resources)) == R, "resources", "names must be distinct", self.resources)
        self.require(len(self.machines) >= 1, "machines", "must list at least one machine", 0)
        self.require(len(self.jobs) >= 1, "jobs", "must list at least one job", 0)
        self.require_distinct_names("machines", self.machines)
        self.require_distinct_names("jobs", self.jobs)
        self.require(self.horizon_slots >= 1, "horizon_slots", "must be >= 1", self.horizon_slots)
        self.require(math.isfinite(self.slot_s) and self.slot_s > 0, "slot_s", "must be > 0 seconds", self.slot_s)
        for field in ("bandwidth_in", "bandwidth_ex"):
            v = getattr(self, field)
            self.require(math.isfinite(v) and v > 0, field, "must be > 0", v)
        self.require(self.bandwidth_in >= self.bandwidth_ex, "bandwidth_in",
                     f"must be >= bandwidth_ex ({self.bandwidth_ex:g}): local transfers are not slower",
                     self.bandwidth_in)
        for h, m in enumerate(self.machines):
            self.require(len(m.capacity) == R, f"machines[{h}].capacity", f"must have {R} entries (one per resource)",
                         len(m.capacity))
            self.require_nonnegative(f"machines[{h}].capacity", m.capacity)
        cap = np.array([m.capacity for m in self.machines], float)
        for i, j in enumerate(self.jobs):
            at = f"jobs[{i}]"
            self.require(0 <= j.arrival < self.horizon_slots, f"{at}.arrival",
                         f"must be a slot in 0..{self.horizon_slots - 1}", j.arrival)
            self.require(math.isfinite(j.workload) and j.workload > 0, f"{at}.workload",
                         "must be > 0 mini-batches", j.workload)
            self.require_nonnegative(f"{at}.compute_slots", [j.compute_slots])
            self.require_nonnegative(f"{at}.gradient_mb", [j.gradient_mb])
            self.require(j.compute_slots + j.gradient_mb > 0, f"{at}.compute_slots",
                         "compute_slots and gradient_mb cannot both be 0 (a mini-batch would take no time)")
            for field in ("worker_demand", "ps_demand"):
                v = getattr(j, field)
                self.require(len(v) == R, f"{at}.{field}", f"must have {R} entries (one per resource)", len(v))
                self.require_nonnegative(f"{at}.{field}", v)
            self.require(j.max_workers >= 1, f"{at}.max_workers", "must be >= 1", j.max_workers)
            self.require(j.ps_fan >= 1, f"{at}.ps_fan", "must be >= 1", j.ps_fan)
            dw, dp = np.array(j.worker_demand), np.array(j.ps_demand)
            self.require(bool(np.any(np.all(dw <= cap, axis=1))), f"{at}.worker_demand",
                         "one worker fits on no machine (the job can never run)", j.worker_demand)
            self.require(bool(np.any(np.all(dp <= cap, axis=1))), f"{at}.ps_demand",
                         "one parameter server fits on no machine (the job can never run)", j.ps_demand)

    # -- derived arrays ------------------------------------------------------------------------
    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @property
    def num_machines(self) -> int:
        return len(self.machines)

    @property
    def num_resources(self) -> int:
        return len(self.resources)

    @cached_property
    def arrival(self) -> np.ndarray:
        return np.array([j.arrival for j in self.jobs], dtype=np.int64)

    @cached_property
    def workload(self) -> np.ndarray:
        return np.array([j.workload for j in self.jobs], float)

    @cached_property
    def e_in(self) -> np.ndarray:
        """Slots per mini-batch per co-located worker: tau + 2 g / b_in."""
        return np.array([j.compute_slots + 2 * j.gradient_mb / self.bandwidth_in for j in self.jobs])

    @cached_property
    def e_ex(self) -> np.ndarray:
        """Slots per mini-batch per spread worker: tau + 2 g / b_ex."""
        return np.array([j.compute_slots + 2 * j.gradient_mb / self.bandwidth_ex for j in self.jobs])

    @cached_property
    def max_workers(self) -> np.ndarray:
        return np.array([j.max_workers for j in self.jobs], dtype=np.int64)

    @cached_property
    def ps_fan(self) -> np.ndarray:
        return np.array([j.ps_fan for j in self.jobs], dtype=np.int64)

    @cached_property
    def max_ps(self) -> np.ndarray:
        """ceil(W_i / fan_i): enough parameter servers for the widest allocation."""
        return -(-self.max_workers // self.ps_fan)

    @cached_property
    def worker_demand(self) -> np.ndarray:
        return np.array([j.worker_demand for j in self.jobs], float).reshape(self.num_jobs, self.num_resources)

    @cached_property
    def ps_demand(self) -> np.ndarray:
        return np.array([j.ps_demand for j in self.jobs], float).reshape(self.num_jobs, self.num_resources)

    @cached_property
    def capacity(self) -> np.ndarray:
        return np.array([m.capacity for m in self.machines], float).reshape(self.num_machines, self.num_resources)


# -- solutions --------------------------------------------------------------------------------
def solution_from_arrays(x, p, y, q) -> dict:
    """The compact solution of dense (job, machine, slot) count arrays."""
    arrays = [np.rint(np.asarray(a)).astype(np.int64) for a in (x, p, y, q)]
    nz = np.argwhere(np.any(np.stack(arrays) != 0, axis=0))
    vals = np.stack([a[tuple(nz.T)] for a in arrays], axis=1) if nz.size else np.zeros((0, 4), np.int64)
    return {"allocations": np.concatenate([nz, vals], axis=1).tolist()}


def _entries(instance: PsLocalityInstance, solution) -> tuple[np.ndarray | None, list[str]]:
    if not isinstance(solution, dict) or set(solution) != {"allocations"}:
        return None, ['solution must be an object {"allocations": [[job, machine, slot, x, p, y, q], ...]}']
    rows = solution["allocations"]
    if not isinstance(rows, list):
        return None, ["allocations must be a list"]
    for k, row in enumerate(rows):
        if (not isinstance(row, list) or len(row) != 7
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in row)):
            return None, [f"allocations[{k}] must be a list of 7 integers [job, machine, slot, x, p, y, q]"]
    e = np.array(rows, dtype=np.int64).reshape(len(rows), 7)
    n, H, T = instance.num_jobs, instance.num_machines, instance.horizon_slots
    problems = []
    for col, name, hi in ((0, "job", n), (1, "machine", H), (2, "slot", T)):
        bad = np.flatnonzero((e[:, col] < 0) | (e[:, col] >= hi))
        problems += [f"allocations[{k}]: {name} {e[k, col]} out of range 0..{hi - 1}" for k in bad[:5]]
    bad = np.flatnonzero(np.any(e[:, 3:] < 0, axis=1))
    problems += [f"allocations[{k}]: negative count" for k in bad[:5]]
    if problems:
        return None, problems
    return e, []


def solution_arrays(instance: PsLocalityInstance, solution) -> tuple[np.ndarray, ...]:
    """Dense (job, machine, slot) arrays x, p, y, q of a well-formed solution (for small instances)."""
    e, problems = _entries(instance, solution)
    if e is None:
        raise ValueError("; ".join(problems))
    shape = (instance.num_jobs, instance.num_machines, instance.horizon_slots)
    out = []
    for col in range(3, 7):
        a = np.zeros(shape, np.int64)
        np.add.at(a, (e[:, 0], e[:, 1], e[:, 2]), e[:, col])
        out.append(a)
    return tuple(out)


def progress_by_slot(instance: PsLocalityInstance, entries: np.ndarray) -> np.ndarray:
    """Mini-batches done by each job in each slot, shape (jobs, slots)."""
    n, T = instance.num_jobs, instance.horizon_slots
    i = entries[:, 0]
    rate = entries[:, 3] / instance.e_in[i] + entries[:, 5] / instance.e_ex[i]
    out = np.zeros((n, T))
    np.add.at(out, (i, entries[:, 2]), rate)
    return out


def completion_slots(instance: PsLocalityInstance, progress: np.ndarray) -> np.ndarray:
    """First slot by which cumulative progress reaches V_i (1 - PROGRESS_RTOL); -1 if never."""
    cum = np.cumsum(progress, axis=1)
    done = cum >= instance.workload[:, None] * (1 - PROGRESS_RTOL)
    return np.where(done.any(axis=1), done.argmax(axis=1), -1)


def check(instance: PsLocalityInstance, solution) -> CheckReport:
    """Verify every constraint of the formulation (``optsched/problems/ps_locality/README.md``) from the instance and
    solution alone; derive C_i.

    Vectorized over the solution's entries: O(E log E + n T + H R T) for E entries.
    """
    e, problems = _entries(instance, solution)
    if e is None:
        return CheckReport(False, None, problems)
    n, H, T, R = instance.num_jobs, instance.num_machines, instance.horizon_slots, instance.num_resources
    v: list[str] = []
    job, mach, slot = e[:, 0], e[:, 1], e[:, 2]
    x, p, y, q = e[:, 3], e[:, 4], e[:, 5], e[:, 6]
    key = (job * H + mach) * T + slot
    uniq, counts = np.unique(key, return_counts=True)
    for k in uniq[counts > 1][:5]:
        v.append(f"(job {k // (H * T)}, machine {k // T % H}, slot {k % T}) listed more than once")
    early = np.flatnonzero(slot < instance.arrival[job])
    v += [f"job {job[k]} has an allocation in slot {slot[k]} before its arrival slot {instance.arrival[job[k]]}"
          for k in early[:5]]
    # per (job, slot): mode, worker cap, parameter-server coverage
    js = job * T + slot
    colo = (x + p) > 0
    spread = (y + q) > 0
    n_colo_machines = np.bincount(js[colo], minlength=n * T)
    n_spread = np.bincount(js[spread], minlength=n * T)
    for k in np.flatnonzero(n_colo_machines > 1)[:5]:
        v.append(f"job {k // T} slot {k % T}: co-located workers/PSs on {n_colo_machines[k]} machines (at most one)")
    for k in np.flatnonzero((n_colo_machines > 0) & (n_spread > 0))[:5]:
        v.append(f"job {k // T} slot {k % T}: both co-located and spread")
    sx, sp, sy, sq = (np.bincount(js, weights=a, minlength=n * T) for a in (x, p, y, q))
    W = np.repeat(instance.max_workers, T)
    for k in np.flatnonzero(sx + sy > W)[:5]:
        v.append(f"job {k // T} slot {k % T}: {int(sx[k] + sy[k])} workers exceed max_workers {W[k]}")
    fan = np.repeat(instance.ps_fan, T)
    for k in np.flatnonzero(fan * sp < sx)[:5]:
        v.append(f"job {k // T} slot {k % T}: {int(sp[k])} co-located PS(s) cannot serve {int(sx[k])} workers "
                 f"(ps_fan {fan[k]})")
    for k in np.flatnonzero(fan * sq < sy)[:5]:
        v.append(f"job {k // T} slot {k % T}: {int(sq[k])} spread PS(s) cannot serve {int(sy[k])} workers "
                 f"(ps_fan {fan[k]})")
    # capacity per (machine, resource, slot)
    load = np.zeros((H * T, R))
    np.add.at(load, mach * T + slot, instance.worker_demand[job] * (x + y)[:, None]
              + instance.ps_demand[job] * (p + q)[:, None])
    cap = np.repeat(instance.capacity, T, axis=0)
    over = np.argwhere(load > cap * (1 + CAPACITY_RTOL) + CAPACITY_RTOL)
    for k, r in over[:5]:
        v.append(f"machine {k // T} slot {k % T}: {instance.resources[r]} load {load[k, r]:g} exceeds "
                 f"capacity {cap[k, r]:g}")
    if len(over) > 5:
        v.append(f"... {len(over) - 5} more overloaded (machine, slot, resource) rows")
    progress = progress_by_slot(instance, e)
    done = completion_slots(instance, progress)
    total = progress.sum(axis=1)
    for i in np.flatnonzero(done < 0)[:5]:
        v.append(f"job {i} reaches only {total[i]:.6g} of {instance.workload[i]:.6g} mini-batches within "
                 f"the horizon of {T} slots")
    objective = float(np.sum(done - instance.arrival + 1)) if np.all(done >= 0) else None
    return CheckReport(not v, objective, v, {"completion": done.tolist()})
