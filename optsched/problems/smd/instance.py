"""The SMD instance (jobs with layer profiles, pooled capacities, NIC bandwidths) and its checker.

Objective (authoritative, docs ``optsched/problems/smd/README.md``)::

    sum_{run} omega_i ceil(E_i D_i / (w_i mb_i)) tau_i(w_i, s_i)  +  sum_{deferred} omega_i defer_i

subject to ``sum_i dw[i,r] w_i + dp[i,r] s_i <= cap[r]`` for every resource r, with
``1 <= w_i <= max_workers_i``, ``1 <= s_i <= max_parameter_servers_i`` for every job that runs and
only deferrable jobs deferred. ``defer_i`` is the job's ``defer_cost`` when given, else
``round_length + JCT_i(1, 1)`` [ours].

Solution schema: ``{"workers": [w_i, ...], "parameter_servers": [s_i, ...]}``, one entry per job;
``w_i = s_i = 0`` means job i is deferred.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.errors import Infeasible
from optsched.core.instance import Instance, Record
from optsched.core.registry import CheckReport
from optsched.workloads.layer_timing import LayerTiming, iteration_time_recursive, sync_seconds_per_byte

__all__ = ["SmdJob", "SmdInstance", "check", "require_feasible", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize sum_{run} omega_i ceil(E_i D_i / (w_i mb_i)) tau_i(w_i, s_i) + sum_{deferred} omega_i defer_i"
             "  s.t.  sum_i dw[i,r] w_i + dp[i,r] s_i <= cap[r] for all r")
#: the objective's unit, printed after its value by ``optsched solve`` (weighted seconds (job weight times
#: JCT))
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"workers": [w_i, ...], "parameter_servers": [s_i, ...]}  (one entry per job; '
                   'w_i = s_i = 0: deferred)')

#: relative slack of the capacity check: loads are sums of float products of the demands, which
#: lose a few ulps each; integral demands (every generated instance) are compared exactly
CAPACITY_RTOL = 1e-9


@dataclass(frozen=True)
class SmdJob(Record):
    """One parameter-server training job (notation of ``optsched/problems/smd/README.md``).

    ``forward_s[l]``, ``backward_s[l]``: seconds per mini-batch on one worker; ``parameter_bytes[l]``:
    layer l's parameters; ``epochs`` E, ``dataset_samples`` D, ``minibatch`` mb (per worker);
    ``worker_demand[r]`` / ``ps_demand[r]``: resource r per worker / per PS; ``defer_cost``: seconds
    charged (times the weight) when deferred, None for the default ``round_length + JCT(1, 1)``.
    """

    problem = "smd"
    name: str
    weight: float
    forward_s: tuple[float, ...]
    backward_s: tuple[float, ...]
    parameter_bytes: tuple[float, ...]
    epochs: int
    dataset_samples: int
    minibatch: int
    max_workers: int
    max_parameter_servers: int
    worker_demand: tuple[float, ...]
    ps_demand: tuple[float, ...]
    defer_cost: float | None = None
    deferrable: bool = True

    @property
    def num_configurations(self) -> int:
        return self.max_workers * self.max_parameter_servers

    @property
    def samples(self) -> int:
        """``E_i D_i``: samples processed over the whole training."""
        return self.epochs * self.dataset_samples

    def iterations(self, workers) -> np.ndarray:
        """``ceil(E D / (w mb))`` in exact integer arithmetic (array in, int64 array out)."""
        w = np.asarray(workers, np.int64)
        return -(-self.samples // (w * self.minibatch))


@dataclass(frozen=True)
class SmdInstance(Instance):
    """Jobs sharing pooled capacities, without machine placement [paper: the thesis' description]."""

    problem = "smd"
    resources: tuple[str, ...]
    capacities: tuple[float, ...]
    worker_bandwidth: float
    ps_bandwidth: float
    round_length: float
    jobs: tuple[SmdJob, ...]
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        r = len(self.resources)
        self.require(r >= 1, "resources", "must name at least one resource", r)
        self.require(len(set(self.resources)) == r, "resources", "names must be distinct", self.resources)
        self.require(len(self.capacities) == r, "capacities", f"must have one entry per resource ({r})",
                     len(self.capacities))
        self.require_nonnegative("capacities", self.capacities)
        for field in ("worker_bandwidth", "ps_bandwidth"):
            value = getattr(self, field)
            self.require(math.isfinite(value) and value > 0, field, "must be a finite number of bytes/s > 0", value)
        self.require(math.isfinite(self.round_length) and self.round_length >= 0, "round_length",
                     "must be >= 0 and finite", self.round_length)
        self.require(len(self.jobs) >= 1, "jobs", "must list at least one job", len(self.jobs))
        self.require_distinct_names("jobs", self.jobs)
        for i, job in enumerate(self.jobs):
            at = f"jobs[{i}]"
            self.require(math.isfinite(job.weight) and job.weight >= 0, f"{at}.weight", "must be >= 0 and finite",
                         job.weight)
            n = len(job.forward_s)
            self.require(n >= 1, f"{at}.forward_s", "must list at least one layer", n)
            for field in ("backward_s", "parameter_bytes"):
                self.require(len(getattr(job, field)) == n, f"{at}.{field}",
                             f"must have one entry per layer ({n}, as forward_s)", len(getattr(job, field)))
            for field in ("forward_s", "backward_s", "parameter_bytes"):
                self.require_nonnegative(f"{at}.{field}", getattr(job, field))
            for field in ("epochs", "dataset_samples", "minibatch", "max_workers", "max_parameter_servers"):
                self.require(getattr(job, field) >= 1, f"{at}.{field}", "must be >= 1", getattr(job, field))
            for field in ("worker_demand", "ps_demand"):
                self.require(len(getattr(job, field)) == r, f"{at}.{field}",
                             f"must have one entry per resource ({r})", len(getattr(job, field)))
                self.require_nonnegative(f"{at}.{field}", getattr(job, field))
            if job.defer_cost is not None:
                self.require(math.isfinite(job.defer_cost) and job.defer_cost >= 0, f"{at}.defer_cost",
                             "must be >= 0 and finite (or null for the default)", job.defer_cost)

    # -- derived data ---------------------------------------------------------------------------
    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @property
    def num_resources(self) -> int:
        return len(self.resources)

    @cached_property
    def capacity_array(self) -> np.ndarray:
        return np.asarray(self.capacities, float)

    @cached_property
    def worker_demand_matrix(self) -> np.ndarray:
        """``dw``, shape (jobs, resources)."""
        return np.asarray([j.worker_demand for j in self.jobs], float).reshape(self.num_jobs, self.num_resources)

    @cached_property
    def ps_demand_matrix(self) -> np.ndarray:
        """``dp``, shape (jobs, resources)."""
        return np.asarray([j.ps_demand for j in self.jobs], float).reshape(self.num_jobs, self.num_resources)

    @cached_property
    def weight_array(self) -> np.ndarray:
        return np.asarray([j.weight for j in self.jobs], float)

    @cached_property
    def timings(self) -> tuple[LayerTiming, ...]:
        """Each job's iteration-time envelope (``optsched.workloads.layer_timing``)."""
        return tuple(LayerTiming(j.forward_s, j.backward_s, j.parameter_bytes) for j in self.jobs)

    @cached_property
    def deferrable_array(self) -> np.ndarray:
        return np.array([j.deferrable for j in self.jobs], bool)

    def iteration_time(self, i: int, workers, parameter_servers) -> np.ndarray:
        """``tau_i(w, s)`` (envelope; vectorized)."""
        return self.timings[i].iteration_time(workers, parameter_servers, self.worker_bandwidth, self.ps_bandwidth)

    def completion_time(self, i: int, workers, parameter_servers) -> np.ndarray:
        """``JCT_i(w, s) = ceil(E D / (w mb)) tau_i(w, s)`` in seconds (vectorized, unweighted)."""
        return self.jobs[i].iterations(workers) * self.iteration_time(i, workers, parameter_servers)

    @cached_property
    def defer_array(self) -> np.ndarray:
        """``defer_i`` in seconds: the job's ``defer_cost``, else ``round_length + JCT_i(1, 1)``."""
        return np.array([j.defer_cost if j.defer_cost is not None
                         else self.round_length + float(self.completion_time(i, 1, 1))
                         for i, j in enumerate(self.jobs)])

    def demand(self, i: int, workers, parameter_servers) -> np.ndarray:
        """Resource use of job i at (w, s): shape (..., resources)."""
        w = np.asarray(workers, float)[..., None]
        s = np.asarray(parameter_servers, float)[..., None]
        return w * self.worker_demand_matrix[i] + s * self.ps_demand_matrix[i]

    @cached_property
    def smallest_demand(self) -> np.ndarray:
        """Each job's demand at (1, 1), shape (jobs, resources): componentwise the least of any
        configuration (demands are nonnegative and linear in w and s)."""
        return self.worker_demand_matrix + self.ps_demand_matrix


def require_feasible(instance: SmdInstance) -> None:
    """Raise :class:`Infeasible` (with the reason) when the instance has no feasible solution.

    Exact: deferrable jobs can always be deferred, and (1, 1) is componentwise the smallest
    configuration of a job, so a feasible solution exists iff the non-deferrable jobs fit at (1, 1).
    """
    cap = instance.capacity_array
    need = instance.smallest_demand
    fixed = ~instance.deferrable_array
    for i in np.flatnonzero(fixed):
        over = np.flatnonzero(need[i] > cap * (1 + CAPACITY_RTOL))
        if over.size:
            r = int(over[0])
            raise Infeasible(f"job {i} ({instance.jobs[i].name!r}) is not deferrable and fits in no configuration: "
                             f"1 worker + 1 parameter server need {instance.resources[r]} = {need[i, r]:g} "
                             f"> capacity {cap[r]:g}")
    total = need[fixed].sum(axis=0)
    over = np.flatnonzero(total > cap * (1 + CAPACITY_RTOL))
    if over.size:
        r = int(over[0])
        raise Infeasible(f"the {int(fixed.sum())} non-deferrable jobs need {instance.resources[r]} = {total[r]:g} "
                         f"at their smallest configurations (1 worker + 1 PS each) > capacity {cap[r]:g}")


def _int_list(value, n: int) -> bool:
    return (isinstance(value, list) and len(value) == n
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


def check(instance: SmdInstance, solution) -> CheckReport:
    """Verify a solution from the instance alone and compute the objective (with the ceiling).

    ``tau`` is evaluated with the recursion as written in ``optsched/problems/smd/README.md``
    (:func:`~optsched.workloads.layer_timing.iteration_time_recursive`), independently of the
    envelope the methods use.
    """
    n = instance.num_jobs
    if not isinstance(solution, dict) or set(solution) != {"workers", "parameter_servers"}:
        return CheckReport(False, None, ['solution must be an object {"workers": [...], "parameter_servers": [...]}'])
    workers, servers = solution["workers"], solution["parameter_servers"]
    if not _int_list(workers, n) or not _int_list(servers, n):
        return CheckReport(False, None, [f"workers and parameter_servers must be lists of {n} integers"])
    violations: list[str] = []
    load = np.zeros(instance.num_resources)
    objective = 0.0
    deferred = 0
    for i, (job, w, s) in enumerate(zip(instance.jobs, workers, servers)):
        if w == 0 and s == 0:
            deferred += 1
            if not job.deferrable:
                violations.append(f"job {i} ({job.name!r}) is deferred but not deferrable")
            objective += job.weight * float(instance.defer_array[i])
            continue
        if not (1 <= w <= job.max_workers and 1 <= s <= job.max_parameter_servers):
            violations.append(f"job {i}: (workers, parameter_servers) = ({w}, {s}) outside 1..{job.max_workers} x "
                              f"1..{job.max_parameter_servers} (use 0, 0 to defer)")
            continue
        k = sync_seconds_per_byte(w, s, instance.worker_bandwidth, instance.ps_bandwidth)
        tau = float(iteration_time_recursive(job.forward_s, job.backward_s, job.parameter_bytes, k))
        objective += job.weight * int(job.iterations(w)) * tau
        load += instance.demand(i, w, s)
    cap = instance.capacity_array
    for r in np.flatnonzero(load > cap + CAPACITY_RTOL * np.maximum(1.0, cap)):
        violations.append(f"resource {instance.resources[r]!r}: load {load[r]:g} exceeds capacity {cap[r]:g}")
    return CheckReport(not violations, objective, violations, {"load": load.tolist(), "deferred": deferred})
