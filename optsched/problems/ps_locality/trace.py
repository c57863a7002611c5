"""Import a Philly-derived Gavel trace (``traces/gavel_philly/*.trace``) as a ``ps-locality``
instance. Every conversion choice is [ours]:

* jobs ``index * jobs .. index * jobs + jobs - 1`` in arrival order (a window of the trace);
* slot_s = 600 s; a window whose horizon would exceed 120 slots has its arrivals compressed
  (``arrival_scale``) and, if still needed, its slot doubled (:func:`load_philly_trace`);
* arrival slot = floor((arrival_s - first arrival_s of the window) * arrival_scale / slot_s)
  (``arrival_scale < 1`` compresses the stream to raise the load);
* ``max_workers`` = the trace's GPU count (scale factor), ``ps_fan`` 4;
* workload V_i = total_steps x workload_scale mini-batches (the trace's step counts make jobs
  last days; the scale keeps time-indexed models tractable);
* ``compute_slots`` = the job type's forward + backward time per mini-batch
  (:mod:`optsched.workloads.job_types`, [ours]) / slot_s; ``gradient_mb`` = its model size;
* machines: ``machines`` x (8 GPUs, 48 CPUs, 256 GB); a worker needs 1 GPU, 4 CPUs, 16 GB; a
  parameter server 4 CPUs and 2 x gradient + 2 GB;
* bandwidths: 10 Gbit/s between machines (1250 MB/s) and 10 GB/s inside one, times slot_s;
* horizon: the longer baseline (FIFO-locality, DRF) makespan plus one slot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optsched.core.data import sha256_file
from optsched.core.errors import InvalidOptionError
from optsched.workloads.job_types import trace_job_type
from optsched.workloads.traces import load_gavel_trace

from .generate import RESOURCES, baseline_horizon
from .instance import PsLocalityInstance

__all__ = ["load_philly_trace"]


def load_philly_trace(path: str | Path, index: int = 0, *, jobs: int = 20, machines: int = 4,
                      slot_s: float | None = None, workload_scale: float = 1e-3,
                      arrival_scale: float = 1.0) -> PsLocalityInstance:
    """Window ``index`` of ``jobs`` jobs of a Gavel trace as an instance (see the module doc).

    Without ``slot_s`` [ours]: slots of 600 s; when that horizon exceeds
    :data:`MAX_DEFAULT_SLOTS` (a window spanning days gives thousands of slots: a time-indexed
    model too large to build), the arrivals are compressed to span at most half of it, then the
    slot is doubled until the horizon fits. The provenance records the slot length and arrival
    scale used. An explicit ``slot_s`` is kept whatever the horizon.
    """
    for name, value, ok in (("jobs", jobs, jobs >= 1), ("machines", machines, machines >= 1),
                            ("slot_s", slot_s, slot_s is None or slot_s > 0),
                            ("workload_scale", workload_scale, workload_scale > 0),
                            ("arrival_scale", arrival_scale, arrival_scale > 0)):
        if not ok:
            raise InvalidOptionError("ps-locality", name, "must be positive", value)
    path = Path(path)
    trace = sorted(load_gavel_trace(path), key=lambda j: (j.arrival_s, j.index))
    windows = -(-len(trace) // jobs)
    if not 0 <= index < windows:
        raise InvalidOptionError("ps-locality", "index", f"{path.name} has windows 0..{windows - 1} of {jobs} jobs",
                                   index)
    source = (path, index * jobs, trace[index * jobs:(index + 1) * jobs], sha256_file(path))  # read once
    if slot_s is not None:
        return _build(source, index, machines, slot_s, workload_scale, arrival_scale)
    base = _build(source, index, machines, 600.0, workload_scale, arrival_scale)
    if base.horizon_slots <= MAX_DEFAULT_SLOTS:
        return base
    # first compress the arrivals to span at most half the cap (the jobs keep their lengths in
    # slots, the window gets more loaded), then lengthen the slot if the jobs are still too long
    span = max(j.arrival for j in base.jobs)
    scale = arrival_scale * min(1.0, (MAX_DEFAULT_SLOTS // 2) / span) if span else arrival_scale
    inst = _build(source, index, machines, 600.0, workload_scale, scale)
    factor = 2
    while inst.horizon_slots > MAX_DEFAULT_SLOTS and factor <= 1 << 20:
        inst = _build(source, index, machines, 600.0 * factor, workload_scale, scale)
        factor *= 2
    return inst


#: the longest horizon (slots) the importer's default slot length is lengthened to stay within
MAX_DEFAULT_SLOTS = 120


def _build(source, index, machines, slot_s, workload_scale, arrival_scale) -> PsLocalityInstance:
    """The instance of a window read once: ``source`` = (path, first job, window, file sha256)."""
    path, first, window, sha = source
    t0 = window[0].arrival_s
    job_list = []
    for tj in window:
        jt = trace_job_type(tj.job_type, "ps-locality", f"{path.name} line {tj.line} job_type")
        grad_mb = jt.model_bytes / 1e6
        job_list.append({
            "name": f"trace{tj.index}", "model": tj.job_type,
            "arrival": int(np.floor((tj.arrival_s - t0) * arrival_scale / slot_s)),
            "workload": float(tj.total_steps * workload_scale), "compute_slots": jt.compute_s() / slot_s,
            "gradient_mb": grad_mb, "worker_demand": (1.0, 4.0, 16.0),
            "ps_demand": (0.0, 4.0, round(2 * grad_mb / 1000 + 2, 3)), "max_workers": tj.gpus, "ps_fan": 4})
    common = dict(resources=RESOURCES, machines=[{"name": f"m{h}", "capacity": (8.0, 48.0, 256.0)}
                                                  for h in range(machines)],
                  jobs=job_list, bandwidth_in=10000.0 * slot_s, bandwidth_ex=1250.0 * slot_s, slot_s=slot_s)
    # enough for both baselines: each active job gets >= 1 worker (at worst at the spread rate)
    slowest = [j["workload"] * (j["compute_slots"] + 2 * j["gradient_mb"] / common["bandwidth_ex"]) for j in job_list]
    big = max(j["arrival"] for j in job_list) + int(np.sum(np.ceil(slowest))) + 1
    need = baseline_horizon(PsLocalityInstance(horizon_slots=big, **common))
    provenance = (f"{path.name} (sha256 {sha}), jobs {first}..{first + len(window) - 1} "
                  f"by arrival; slot_s={slot_s}, workload_scale={workload_scale}, arrival_scale={arrival_scale}")
    return PsLocalityInstance(horizon_slots=need + 1, name=f"{path.stem}-w{index}", provenance=provenance,
                              **common)
