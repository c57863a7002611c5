"""Seeded generators and trace importers for ``rar-makespan``.

The ``mobihoc`` preset is the MobiHoc'22 setup [paper]: 160 jobs (80 x 1 GPU, 14 x 2, 26 x 4,
30 x 8, 8 x 16, 2 x 32), F_j uniform in [1000, 6000] iterations, iteration time under the fastest
placement uniform in [0.01, 0.05] slots, 20 servers with GPU counts drawn from {4, 8, 16, 32},
T = 1200, lambda = 1 (a method option). optsched's choices [ours]: slot_s = 60 s; each job's model
is drawn from the job-type table (``optsched/workloads/job_types.json``) and its compute time set to the
target iteration time minus the ring's time at its fastest placement (at least 10% of the target);
b_in = 100 GB/s, b_ex = 12.5 GB/s (100 Gb/s), red = 50 GB/s, theta = 0.5; xi1 and xi2 calibrated by
:func:`calibrate_contention` (each of contention and overhead at most half the 15% budget of every
job's worst-case slowdown). With ``estimate_error = e``: l = 1 - e, u = 1 + e and
rho_hat_j = rho_j * U[l, u] (the paper's rho_hat range [50, 300] slots is not reproduced: with its
F and tau ranges, rho_j spans about 10 to 300 slots).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng
from optsched.workloads.job_types import job_type, job_types, trace_job_type
from optsched.workloads.rar_timing import iteration_time
from optsched.workloads.traces import (
    load_gavel_trace,
    load_tiresias_jobs,
    servers_to_hold,
)

from .instance import RarJob, RarMakespanInstance

__all__ = ["generate", "PRESETS", "MOBIHOC_MIX", "calibrate_contention", "load_gavel_rar", "load_tiresias_rar"]

#: GPUs -> number of jobs in the MobiHoc'22 setup [paper]
MOBIHOC_MIX = {1: 80, 2: 14, 4: 26, 8: 30, 16: 8, 32: 2}

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 3, "servers": 2, "gpu_choices": "2", "max_job_gpus": 3, "iterations_low": 20,
             "iterations_high": 60, "tau_low": 0.1, "tau_high": 0.3},
    "small": {"jobs": 5, "servers": 3, "gpu_choices": "2,4", "max_job_gpus": 4, "iterations_low": 30,
              "iterations_high": 100, "tau_low": 0.05, "tau_high": 0.2},
    "mobihoc": {"mix": "mobihoc", "servers": 20, "gpu_choices": "4,8,16,32", "horizon": 1200},
}

SLOT_S = 60.0
INTRA_BANDWIDTH = 100e9
INTER_BANDWIDTH = 12.5e9
REDUCTION_SPEED = 50e9
PENALTY_SLOPE = 0.5


def _provisional(servers, jobs, **kw) -> RarMakespanInstance:
    return RarMakespanInstance(servers=servers, jobs=jobs, slot_s=kw.pop("slot_s", SLOT_S),
                               intra_bandwidth=INTRA_BANDWIDTH, inter_bandwidth=INTER_BANDWIDTH,
                               reduction_speed=REDUCTION_SPEED, penalty_slope=PENALTY_SLOPE,
                               estimate_lower=1e-9, estimate_upper=1e9, **kw)


def calibrate_contention(instance: RarMakespanInstance, budget: float = 0.15) -> tuple[float, float]:
    """``(xi1, xi2)``: the largest values keeping every job's worst-case slowdown within ``budget``.

    Worst case of a spreadable job j: spread over ``k = min(G_j, servers)`` servers, sharing each
    with ``p_max`` spread jobs; its slowdown against the same placement without contention or
    overhead is ``(C_j (pen(xi1 p_max) - 1) + xi2 k) / tau0_j`` with ``C_j`` the ring's transfer
    time at b_ex. optsched gives each term half the budget [ours; the paper sets xi1 = xi2, which
    mixes a dimensionless factor with seconds]. Jobs that cannot spread impose nothing.
    """
    half = budget / 2
    xi1, xi2 = math.inf, math.inf
    p_max = instance.max_sharing
    theta = instance.penalty_slope
    for j, job in enumerate(instance.jobs):
        if job.gpus < 2 or len(instance.servers) < 2:
            continue
        k = min(job.gpus, len(instance.servers))
        tau0 = iteration_time(model_bytes=job.model_bytes, workers=job.gpus, compute_s=job.compute_s,
                              bandwidth=instance.inter_bandwidth, reduction_speed=instance.reduction_speed)
        transfer = job.model_bytes / job.gpus * 2 * (job.gpus - 1) / instance.inter_bandwidth
        xi2 = min(xi2, half * tau0 / k)
        if transfer > 0:
            xi1 = min(xi1, (1 + half * tau0 / (transfer * (1 + theta))) / p_max)
    return (0.0 if math.isinf(xi1) else xi1), (0.0 if math.isinf(xi2) else xi2)


def _finish(servers, jobs, rng, *, estimate_error, horizon, budget, name, provenance, slot_s=SLOT_S):
    """Calibrate xi1, xi2 and draw the estimates rho_hat within [l rho, u rho]."""
    base = _provisional(servers, jobs, slot_s=slot_s)
    xi1, xi2 = calibrate_contention(base, budget)
    calibrated = _provisional(servers, jobs, slot_s=slot_s, contention_scale=xi1, server_overhead_s=xi2)
    low, high = 1.0 - estimate_error, 1.0 + estimate_error
    factors = rng.uniform(low, high, size=len(jobs)) if estimate_error > 0 else np.ones(len(jobs))
    final = tuple(dataclasses.replace(job, estimate_slots=float(calibrated.fastest_slots(j) * f))
                  for j, (job, f) in enumerate(zip(jobs, factors)))
    return RarMakespanInstance(servers=servers, jobs=final, slot_s=slot_s, intra_bandwidth=INTRA_BANDWIDTH,
                               inter_bandwidth=INTER_BANDWIDTH, reduction_speed=REDUCTION_SPEED,
                               contention_scale=xi1, server_overhead_s=xi2, penalty_slope=PENALTY_SLOPE,
                               estimate_lower=low, estimate_upper=high, horizon=horizon, name=name,
                               provenance=provenance)


def _job(gpus, servers, type_name, iterations, tau_target_s) -> RarJob:
    """A job whose iteration time at its fastest contention-free placement is ``tau_target_s``."""
    t = job_type(type_name)
    if gpus >= 2:
        one_server = gpus <= max(servers)
        ring = iteration_time(model_bytes=t.model_bytes, workers=gpus, compute_s=0.0,
                              bandwidth=INTRA_BANDWIDTH if one_server else INTER_BANDWIDTH,
                              reduction_speed=REDUCTION_SPEED)
    else:
        ring = 0.0
    compute = max(tau_target_s - ring, 0.1 * tau_target_s)
    return RarJob(gpus=int(gpus), iterations=int(iterations), model_bytes=float(t.model_bytes),
                  compute_s=float(compute), estimate_slots=1.0, job_type=type_name)


#: the largest GPU count a job of ``gpu_choices`` may ask for [ours]: a million GPUs, far beyond any
#: cluster; 10**400 overflowed the instance's integers
MAX_GPU_CHOICE = 1_000_000


def generate(seed: int, *, jobs: int = 6, servers: int = 3, gpu_choices: str = "2,4", mix: str = "uniform",
             max_job_gpus: int = 32, iterations_low: int = 1000, iterations_high: int = 6000,
             tau_low: float = 0.01, tau_high: float = 0.05, estimate_error: float = 0.0,
             horizon: int = 1200, slowdown_budget: float = 0.15) -> RarMakespanInstance:
    """A random batch; the same seed and options always give the same instance.

    ``mix = "mobihoc"`` uses the paper's 160-job GPU mix (``jobs`` is then ignored); ``"uniform"``
    draws each job's GPUs from the powers of two up to ``min(max_job_gpus, largest server)``
    (and one ``max_job_gpus``-GPU job when it exceeds the largest server, so some ring spreads).
    ``tau_low``/``tau_high`` are fractions of the slot.

    >>> inst = generate(0, **PRESETS["mobihoc"])
    >>> inst.num_jobs, len(inst.servers), inst.max_gpus
    (160, 20, 32)
    """
    if servers < 1:
        raise InvalidOptionError("rar-makespan", "servers", "must be >= 1", servers)
    try:
        choices = [int(c) for c in gpu_choices.split(",")]
    except ValueError:
        raise InvalidOptionError("rar-makespan", "gpu_choices", "must be comma-separated integers", gpu_choices) from None
    if not choices or min(choices) < 1:
        raise InvalidOptionError("rar-makespan", "gpu_choices", "must list GPU counts >= 1", gpu_choices)
    if max(choices) > MAX_GPU_CHOICE:
        raise InvalidOptionError("rar-makespan", "gpu_choices", f"must list GPU counts <= {MAX_GPU_CHOICE}", gpu_choices)
    if mix not in ("uniform", "mobihoc"):
        raise InvalidOptionError("rar-makespan", "mix", "must be 'uniform' or 'mobihoc'", mix)
    if not 0 <= estimate_error < 1:
        raise InvalidOptionError("rar-makespan", "estimate_error", "must be in [0, 1)", estimate_error)
    if not 0 < tau_low <= tau_high <= 1:
        raise InvalidOptionError("rar-makespan", "tau_low", "must satisfy 0 < tau_low <= tau_high <= 1",
                                   (tau_low, tau_high))
    if not 1 <= iterations_low <= iterations_high:
        raise InvalidOptionError("rar-makespan", "iterations_low", "must satisfy 1 <= low <= high",
                                   (iterations_low, iterations_high))
    rng = make_rng(seed, "rar-makespan", jobs, servers, gpu_choices, mix, max_job_gpus, estimate_error)
    caps = tuple(int(c) for c in rng.choice(choices, size=servers))
    if mix == "mobihoc":
        sizes = [g for g, count in MOBIHOC_MIX.items() for _ in range(count)]
        sizes = [int(g) for g in rng.permutation(sizes)]
    else:
        top = min(max_job_gpus, max(caps))
        powers = [1 << k for k in range(int(math.log2(top)) + 1)]
        sizes = [int(g) for g in rng.choice(powers, size=jobs)]
        if max_job_gpus > max(caps) and max_job_gpus <= sum(caps):
            sizes[int(rng.integers(jobs))] = max_job_gpus
    names = sorted(job_types())
    batch = []
    for g in sizes:
        name = names[int(rng.integers(len(names)))]
        iterations = int(rng.integers(iterations_low, iterations_high + 1))
        tau = float(rng.uniform(tau_low, tau_high)) * SLOT_S
        batch.append(_job(g, caps, name, iterations, tau))
    return _finish(caps, tuple(batch), rng, estimate_error=estimate_error, horizon=horizon,
                   budget=slowdown_budget, name=f"rar-{mix}-{len(sizes)}j-{servers}s-seed{seed}",
                   provenance=f"optsched rar-makespan generator, seed {seed}")


def _trace_batch(rows, servers, gpus_per_server, name, source, default_servers) -> RarMakespanInstance:
    """A batch from trace rows ``(job type name, GPUs, iterations, where)``: all present at time 0
    (``where`` names the row's job-type field in errors). ``servers=None``: ``default_servers``,
    or [ours] the fewest servers that hold the largest job when that is more (in the provenance)."""
    if servers is None:
        servers, note = servers_to_hold([g for _, g, _, _ in rows], gpus_per_server, default_servers)
        source += note
    caps = (gpus_per_server,) * servers
    batch = []
    for type_name, gpus, iterations, where in rows:
        t = trace_job_type(type_name, "rar-makespan", where)
        batch.append(RarJob(gpus=int(gpus), iterations=int(iterations),
                            model_bytes=float(t.model_bytes), compute_s=t.compute_s(), estimate_slots=1.0,
                            job_type=type_name))
    return _finish(caps, tuple(batch), make_rng(0, "rar-trace", name), estimate_error=0.0, horizon=1200,
                   budget=0.15, name=name, provenance=source)


def load_gavel_rar(path: str | Path, index: int = 0, *, jobs: int = 160, servers: int | None = None,
                   gpus_per_server: int = 8) -> RarMakespanInstance:
    """A batch from a Gavel/Philly-derived trace: jobs ``index*jobs .. (index+1)*jobs - 1``.

    Arrival times are dropped (the batch problem has all jobs at time 0); GPUs from the scale
    factor; iterations = total steps; timing from the job-type table [ours]. ``servers`` defaults
    to 20, more when the largest job needs them.
    """
    if jobs < 1:
        raise InvalidOptionError("rar-makespan", "jobs", "must be >= 1", jobs)
    trace = load_gavel_trace(path)
    chunk = trace[index * jobs:(index + 1) * jobs] if index >= 0 else []
    if not chunk:
        raise InvalidOptionError("rar-makespan", "index", f"must be in 0..{math.ceil(len(trace) / jobs) - 1}",
                                   index)
    rows = [(j.job_type, j.gpus, j.total_steps, f"{Path(path).name} line {j.line} job_type") for j in chunk]
    return _trace_batch(rows, servers, gpus_per_server, f"{Path(path).stem}-batch{index}",
                        f"{Path(path).name} jobs {chunk[0].index}..{chunk[-1].index}", 20)


def load_tiresias_rar(path: str | Path, index: int = 0, *, servers: int | None = None,
                      gpus_per_server: int = 4) -> RarMakespanInstance:
    """Tiresias' ``60_job.csv`` as one batch on ``servers`` x ``gpus_per_server`` GPUs (default 8
    servers, more when the largest job needs them)."""
    if index != 0:
        raise InvalidOptionError("rar-makespan", "index", "must be 0 (a Tiresias job file is one batch)", index)
    jobs = load_tiresias_jobs(path)
    rows = [(j.model, j.gpus, j.iterations, f"{Path(path).name} line {j.line} model_name") for j in jobs]
    return _trace_batch(rows, servers, gpus_per_server, f"{Path(path).stem}", Path(path).name, 8)
