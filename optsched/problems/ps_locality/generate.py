"""Seeded generators and presets for ``ps-locality`` (every choice here is [ours]).

A generated instance has ``machines`` identical machines (gpu, cpu, mem_gb) and ``jobs`` jobs:

* model drawn uniformly from the job-type table (:mod:`optsched.workloads.job_types`: gradient
  size = 4 bytes x public parameter count); per-mini-batch compute ``compute_slots`` uniform in
  [0.01, 0.05] slots (the range a later paper by the same first author cites for this model
  [paper]);
* a worker needs 1 GPU, 2-4 CPUs and 8-24 GB; a parameter server 0 GPUs, 2-4 CPUs and
  2 x gradient + 2 GB; ``max_workers`` uniform in min_workers..max_workers, ``ps_fan`` 2 or 4;
* workload: the job alone at full width co-located needs ``s_i`` slots, s_i uniform in
  2..job_slots (V_i = s_i x rate x u, u uniform in (0.8, 1]);
* arrivals: a Poisson process conditioned on its last arrival falling at time A (exponential
  gaps rescaled to sum to A), floored to slots, with A chosen so that the offered load
  (:func:`offered_load`) is ``load``; flooring only shortens the span, so the realized load is at
  least ``load`` -- unless even simultaneous arrivals cannot reach it (A < 0), when every job
  arrives in slot 0;
* bandwidths: ``bandwidth_ex`` MB per slot between machines, ``bandwidth_ratio`` times that inside;
* horizon: ``horizon_slots``, or (0) automatically the longer of the FIFO-locality and DRF
  makespans plus one slot, which guarantees a feasible schedule (the baselines' ones). An explicit
  horizon shorter than either baseline's makespan is rejected (the generator only emits
  instances on which both baselines, hence the exact model, have a schedule).
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng
from optsched.workloads.job_types import job_types

from .instance import PsLocalityInstance
from .model import solo_rates, solo_slots

__all__ = ["generate", "PRESETS", "offered_load", "baseline_horizon", "baseline_steps", "GENERATE_MAX_STEPS", "RESOURCES"]

RESOURCES = ("gpu", "cpu", "mem_gb")

PRESETS: dict[str, dict] = {
    # conformance: 2-3 jobs, 2 machines, a handful of slots
    "tiny": {"jobs": 3, "machines": 2, "gpus_per_machine": 2, "max_workers": 2, "job_slots": 2, "load": 1.5},
    "small": {"jobs": 4, "machines": 2, "gpus_per_machine": 4, "max_workers": 4, "job_slots": 3, "load": 1.5},
    # acceptance: 6 jobs, 3 machines, 24 slots, offered load >= 1.5 (placement matters)
    # (min_workers 3 with 12 GPUs: even simultaneous arrivals give load >= 6 x 3 / 12 = 1.5)
    "contended": {"jobs": 6, "machines": 3, "gpus_per_machine": 4, "min_workers": 3, "max_workers": 4,
                  "job_slots": 4, "load": 1.5, "horizon_slots": 24},
    # the online benchmark: a 300-job stream on 20 machines
    "stream": {"jobs": 300, "machines": 20, "gpus_per_machine": 8, "max_workers": 8, "job_slots": 6,
               "load": 0.9},
}


def offered_load(instance: PsLocalityInstance) -> float:
    """sum_i W_i g_i s_i / (G (A + mean s)): GPU-slots the jobs ask for at full width (g_i GPUs per
    worker, s_i = solo slots) over the GPU-slots of the cluster during the arrival span A plus one
    mean job length. Requires a resource named ``gpu``."""
    g = instance.resources.index("gpu")
    s = solo_slots(instance)
    demand = float(np.sum(instance.max_workers * instance.worker_demand[:, g] * s))
    span = float(instance.arrival.max() - instance.arrival.min())
    return float(demand / (instance.capacity[:, g].sum() * (span + s.mean())))


def baseline_horizon(instance: PsLocalityInstance) -> int:
    """Slots both baseline schedules (FIFO-locality and DRF) need: their last completion + 1
    (-1 if one of them does not finish within the instance's horizon)."""
    from .slots import drf, fifo_locality

    need = 0
    for s in (fifo_locality(instance), drf(instance)):
        if np.any(s.completion < 0):
            return -1
        need = max(need, int(s.completion.max()) + 1)
    return need


#: the most (slot, job) steps the generator's baseline schedules may take [ours: about 20 us each,
#: measured 4.2 s for 400 jobs on 3 machines of 4 GPUs; on a fixed cluster the steps grow as jobs^2]
GENERATE_MAX_STEPS = 3_000_000


def baseline_steps(jobs: int, machines: int, gpus_per_machine: int, max_workers: int, job_slots: int) -> float:
    """An estimate of the (slot, job) steps of the baseline schedules: about
    ``jobs * job_slots * max_workers / GPUs`` slots of up to ``jobs`` jobs each."""
    return jobs * jobs * job_slots * max_workers / (machines * gpus_per_machine)


def _check(name: str, value, ok: bool, rule: str) -> None:
    if not ok:
        raise InvalidOptionError("ps-locality", name, rule, value)


def generate(seed: int, *, jobs: int = 6, machines: int = 3, gpus_per_machine: int = 4, max_workers: int = 4,
             min_workers: int = 1, job_slots: int = 4, load: float = 1.5, bandwidth_ex: float = 6000.0,
             bandwidth_ratio: float = 8.0, horizon_slots: int = 0) -> PsLocalityInstance:
    """A seeded random instance (see the module docstring); same seed and options, same instance.

    >>> inst = generate(3, **PRESETS["contended"])
    >>> inst.num_jobs, inst.num_machines, inst.horizon_slots, offered_load(inst) >= 1.5
    (6, 3, 24, True)
    """
    _check("jobs", jobs, jobs >= 1, "must be >= 1")
    _check("machines", machines, machines >= 1, "must be >= 1")
    _check("gpus_per_machine", gpus_per_machine, gpus_per_machine >= 1, "must be >= 1")
    _check("max_workers", max_workers, max_workers >= 1, "must be >= 1")
    _check("min_workers", min_workers, 1 <= min_workers <= max_workers, "must be in 1..max_workers")
    _check("job_slots", job_slots, job_slots >= 2, "must be >= 2")
    steps = baseline_steps(jobs, machines, gpus_per_machine, max_workers, job_slots)
    _check("jobs", jobs, steps <= GENERATE_MAX_STEPS,
           f"with {machines} machine(s) of {gpus_per_machine} GPU(s), {max_workers} workers and {job_slots} "
           f"slots per job, the two baseline schedules that fix the horizon would simulate about {steps:.3g} "
           f"(slot, job) steps, more than {GENERATE_MAX_STEPS:.0e} (about a minute); use more machines or fewer jobs")
    _check("load", load, math.isfinite(load) and load > 0, "must be > 0")
    _check("bandwidth_ex", bandwidth_ex, math.isfinite(bandwidth_ex) and bandwidth_ex > 0, "must be > 0")
    _check("bandwidth_ratio", bandwidth_ratio, math.isfinite(bandwidth_ratio) and bandwidth_ratio >= 1,
           "must be >= 1")
    _check("horizon_slots", horizon_slots, horizon_slots >= 0, "must be >= 0 (0: automatic)")
    rng = make_rng(seed, "ps-locality", jobs, machines, gpus_per_machine, max_workers, min_workers, job_slots, load,
                   bandwidth_ex, bandwidth_ratio, horizon_slots)
    table = job_types()
    names = sorted(table)
    cap = (float(gpus_per_machine), 6.0 * gpus_per_machine, 32.0 * gpus_per_machine)
    machine_list = [{"name": f"m{h}", "capacity": cap} for h in range(machines)]
    job_list = []
    for i in range(jobs):
        model = names[int(rng.integers(len(names)))]
        grad_mb = table[model].model_bytes / 1e6
        job_list.append({
            "name": f"j{i}", "arrival": 0, "workload": 1.0, "model": model,
            "compute_slots": float(rng.uniform(0.01, 0.05)), "gradient_mb": grad_mb,
            "worker_demand": (1.0, float(rng.integers(2, 5)), float(rng.integers(8, 25))),
            "ps_demand": (0.0, float(rng.integers(2, 5)), round(2 * grad_mb / 1000 + 2, 3)),
            "max_workers": int(rng.integers(min_workers, max_workers + 1)), "ps_fan": int(rng.choice([2, 4]))})
    common = dict(resources=RESOURCES, machines=machine_list, bandwidth_in=bandwidth_ex * bandwidth_ratio,
                  bandwidth_ex=bandwidth_ex)
    draft = PsLocalityInstance(jobs=job_list, horizon_slots=1, **common)
    colo_rate, _ = solo_rates(draft)
    slots = rng.integers(2, job_slots + 1, size=jobs)
    workload = slots * colo_rate * rng.uniform(0.8, 1.0, size=jobs)
    # 4 significant digits keep the JSON short
    workload = np.array([float(f"{v:.4g}") for v in workload])
    for j, v in zip(job_list, workload):
        j["workload"] = float(v)
    draft = PsLocalityInstance(jobs=job_list, horizon_slots=1, **common)
    s = solo_slots(draft)
    gpu_demand = float(np.sum(draft.max_workers * s))        # one GPU per worker
    span = gpu_demand / (machines * gpus_per_machine * load) - s.mean()
    gaps = portable.exponential(rng, 1.0, size=jobs - 1)
    if span >= 1 and jobs > 1:
        arrivals = np.floor(np.concatenate([[0.0], np.cumsum(gaps) / gaps.sum() * span])).astype(int)
    else:
        arrivals = np.zeros(jobs, int)
    for j, a in zip(job_list, arrivals):
        j["arrival"] = int(a)
    # both baselines give some active job >= 1 worker (>= 1 / e_ex mini-batches) in every slot, so
    # a sequential schedule at that rate bounds their makespans
    e_ex = draft.e_ex
    big = int(arrivals.max() + np.sum(np.ceil(workload * e_ex)) + 1)
    draft = PsLocalityInstance(jobs=job_list, horizon_slots=big, **common)
    need = baseline_horizon(draft)
    if need < 0:  # pragma: no cover - 'big' is a sequential schedule's length
        raise InvalidInstanceError("ps-locality", "(generator)",
                                   "a baseline did not finish within the sequential bound")
    if horizon_slots == 0:
        horizon = need + 1
    else:
        _check("horizon_slots", horizon_slots, horizon_slots >= need,
               f"too short for the generated jobs: the baseline schedules need {need} slots")
        horizon = horizon_slots
    return PsLocalityInstance(jobs=job_list, horizon_slots=horizon, name=f"gen-{jobs}x{machines}-s{seed}",
                              provenance=f"optsched ps-locality generator, seed {seed}", **common)
