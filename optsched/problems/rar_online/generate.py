"""Seeded generators and the Philly-trace importer for ``rar-online`` (all parameters [ours]).

Jobs draw a model from the job-type table (``optsched/workloads/job_types.json``); ``iterations`` F_j are
worker-iterations: the job needs ``U[1, 4]`` slots at its ``max_workers`` inside one server (or
spread when it does not fit one). Utilities (value ``U[1, 10]``, d0 = that ideal duration):
``step`` with deadline ``d0 U[1.5, 3]``, ``linear`` reaching 0 at ``d0 U[2, 4]``, or ``sigmoid``
with midpoint ``2 d0`` and steepness ``2 / d0``. Uplinks 12.5 GB/s (100 Gb/s), reserved bandwidth
a fraction of it drawn from ``reserve_fractions`` (default a quarter or a half), slot 60 s
(``slot_s``), b_in 100 GB/s, red 50 GB/s. ``network = "tree"``: a seeded two-tier tree
(:func:`tree_links`) instead of the uplinks.
"""

from __future__ import annotations

import math
from pathlib import Path

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng
from optsched.workloads.job_types import job_type, job_types, trace_job_type
from optsched.workloads.rar_timing import iteration_time, iterations_per_slot
from optsched.workloads.traces import load_gavel_trace

from .instance import OnlineJob, RarOnlineInstance, Utility, trusted

__all__ = ["generate", "PRESETS", "tree_links", "load_gavel_online", "ARRIVAL_S_PER_SLOT", "STEPS_PER_ITERATION"]

SLOT_S = 60.0
UPLINK = 12.5e9
INTRA_BANDWIDTH = 100e9
REDUCTION_SPEED = 50e9
#: trace seconds per slot when importing the Philly-derived traces [ours]: 6 hours
ARRIVAL_S_PER_SLOT = 21_600.0
#: trace steps per worker-iteration when importing [ours]
STEPS_PER_ITERATION = 1_000

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 3, "servers": 2, "gpus_per_server": 2, "horizon": 4, "max_workers": 2},
    "small": {"jobs": 6, "servers": 3, "gpus_per_server": 4, "horizon": 10, "max_workers": 4},
    "medium": {"jobs": 30, "servers": 4, "gpus_per_server": 8, "horizon": 30, "max_workers": 8},
    "tiny-tree": {"jobs": 3, "servers": 3, "gpus_per_server": 2, "horizon": 3, "max_workers": 3,
                  "network": "tree", "racks": 2},
    "small-tree": {"jobs": 6, "servers": 4, "gpus_per_server": 4, "horizon": 8, "max_workers": 6,
                   "network": "tree", "racks": 2},
}
#: oversubscription of a rack's link to the core: capacity = UPLINK * servers in the rack * one of these
RACK_OVERSUBSCRIPTION = (0.25, 0.5, 1.0)


def tree_links(seed: int, servers: int, racks: int) -> tuple[tuple[str, str, float], ...]:
    """Two-tier tree [ours]: server s under rack ``s * racks // servers`` by a link of UPLINK; each
    rack linked to ``core`` with UPLINK * (servers in the rack) * a seeded draw from
    RACK_OVERSUBSCRIPTION (one rack: no core)."""
    if not 1 <= racks <= servers:
        raise InvalidOptionError("rar-online", "racks", f"must lie in 1..servers ({servers})", racks)
    rng = make_rng(seed, "rar-online-tree", servers, racks)
    members = [[s for s in range(servers) if s * racks // servers == k] for k in range(racks)]
    links = [(f"s{s}", f"rack{k}", UPLINK) for k in range(racks) for s in members[k]]
    if racks >= 2:
        links += [(f"rack{k}", "core", UPLINK * len(members[k]) * float(rng.choice(RACK_OVERSUBSCRIPTION)))
                  for k in range(racks)]
    return tuple(links)


def _ideal_progress(servers, gpus_per_server, model_bytes, compute_s, wmax, reserve, slot_s):
    spread = wmax > gpus_per_server
    tau = iteration_time(model_bytes=model_bytes, workers=wmax, compute_s=compute_s,
                         bandwidth=reserve if spread else INTRA_BANDWIDTH, reduction_speed=REDUCTION_SPEED)
    return wmax * iterations_per_slot(tau, slot_s)


def _utility(rng, d0: float) -> Utility:
    kind = ("step", "linear", "sigmoid")[int(rng.integers(3))]
    value = float(rng.uniform(1, 10))
    # trusted: every value below is already a float (the generic constructor converts the same)
    if kind == "step":
        return trusted(Utility, kind="step", value=value, deadline=float(math.ceil(d0 * rng.uniform(1.5, 3))))
    if kind == "linear":
        return trusted(Utility, kind="linear", value=value, slope=value / (d0 * float(rng.uniform(2, 4))))
    return trusted(Utility, kind="sigmoid", value=value, midpoint=float(2 * d0), steepness=2 / d0)


def generate(seed: int, *, jobs: int = 6, servers: int = 3, gpus_per_server: int = 4, horizon: int = 10,
             max_workers: int = 4, objective: str = "utility", energy_price: float = 0.0,
             fairness_u0: float = 1.0, arrival_span: float = 0.5,
             reserve_fractions: str = "0.25,0.5", slot_s: float = SLOT_S, network: str = "flat",
             racks: int = 2) -> RarOnlineInstance:
    """Random elastic RAR jobs arriving uniformly over the first ``arrival_span`` of the horizon.

    ``network = "tree"`` replaces the flat uplinks by :func:`tree_links` (the jobs are the same
    draws as with the flat network of the same seed).

    >>> inst = generate(0, **PRESETS["tiny"])
    >>> inst.num_jobs, inst.servers
    (3, (2, 2))
    """
    if jobs < 1 or servers < 1 or gpus_per_server < 1 or horizon < 1 or max_workers < 1:
        raise InvalidOptionError("rar-online", "jobs", "jobs, servers, gpus_per_server, horizon and "
                                   "max_workers must be >= 1", (jobs, servers, gpus_per_server, horizon, max_workers))
    try:
        fractions = [float(f) for f in reserve_fractions.split(",")]
    except ValueError:
        raise InvalidOptionError("rar-online", "reserve_fractions", "must be comma-separated numbers",
                                   reserve_fractions) from None
    if not fractions or not all(0 < f <= 1 for f in fractions):
        raise InvalidOptionError("rar-online", "reserve_fractions", "must lie in (0, 1]", reserve_fractions)
    if network not in ("flat", "tree"):
        raise InvalidOptionError("rar-online", "network", "must be flat or tree", network)
    links = tree_links(seed, servers, racks) if network == "tree" else None
    if not 0 < slot_s < math.inf:
        raise InvalidOptionError("rar-online", "slot_s", "must be > 0 and finite", slot_s)
    rng = make_rng(seed, "rar-online", jobs, servers, gpus_per_server, horizon, max_workers, arrival_span,
                   reserve_fractions, slot_s)
    names = sorted(job_types())
    types = [job_type(name) for name in names]
    ideal: dict[tuple, int] = {}   # (type, workers, reserve) -> ideal progress per slot
    batch = []
    for _ in range(jobs):
        k = int(rng.integers(len(names)))
        t = types[k]
        wmax = int(rng.integers(1, min(max_workers, servers * gpus_per_server) + 1))
        reserve = UPLINK * fractions[int(rng.integers(0, len(fractions)))]   # = rng.choice(fractions), faster
        per_slot = ideal.get((k, wmax, reserve))
        if per_slot is None:
            per_slot = ideal[k, wmax, reserve] = _ideal_progress(servers, gpus_per_server, t.model_bytes,
                                                                 t.compute_s(), wmax, reserve, slot_s)
        slots = float(rng.uniform(1, 4))
        arrival = int(rng.integers(0, max(1, int(arrival_span * horizon))))
        batch.append(trusted(OnlineJob, arrival=arrival, iterations=max(1, int(per_slot * slots)), max_workers=wmax,
                             model_bytes=float(t.model_bytes), compute_s=t.compute_s(), reserved_bandwidth=reserve,
                             utility=_utility(rng, math.ceil(slots)), job_type=t.name))
    return RarOnlineInstance(servers=(gpus_per_server,) * servers, uplinks=() if links else (UPLINK,) * servers,
                             jobs=tuple(batch), slot_s=slot_s, horizon=horizon, intra_bandwidth=INTRA_BANDWIDTH,
                             reduction_speed=REDUCTION_SPEED, links=links, objective=objective,
                             energy_price=energy_price, fairness_u0=fairness_u0,
                             name=f"rar-online-{jobs}j-{servers}s-seed{seed}" + ("-tree" if links else ""),
                             provenance=f"optsched rar-online generator, seed {seed}"
                                        + (f", tree network of {racks} racks" if links else ""))


def load_gavel_online(path: str | Path, index: int = 0, *, servers: int = 20, gpus_per_server: int = 8,
                      jobs: int | None = None, arrival_s_per_slot: float = ARRIVAL_S_PER_SLOT,
                      steps_per_iteration: int = STEPS_PER_ITERATION, extra_slots: int = 100) -> RarOnlineInstance:
    """A Philly-derived trace as an online instance [ours]: arrival slot = floor(arrival_s /
    ``arrival_s_per_slot``), F_j = ceil(total_steps / ``steps_per_iteration``) worker-iterations,
    max_workers = the trace's GPUs (at most the cluster's: a cap the provenance counts), a sigmoid
    utility of value 1 with midpoint twice the job's ideal duration d0 (at max_workers inside a
    server when it fits) and steepness 2 / d0, r_j = b_ex / 4;
    horizon = last arrival + ``extra_slots``. ``jobs`` keeps the first that many jobs (by arrival);
    ``index`` is accepted for the CLI (the trace is one instance: must be 0)."""
    if index != 0:
        raise InvalidOptionError("rar-online", "index", "must be 0 (a trace is one online instance)", index)
    trace = sorted(load_gavel_trace(path), key=lambda job: (job.arrival_s, job.index))
    if jobs is not None:
        trace = trace[:jobs]
    batch = []
    reserve = UPLINK / 4
    capped = sum(job.gpus > servers * gpus_per_server for job in trace)
    for job in trace:
        t = trace_job_type(job.job_type, "rar-online", f"{Path(path).name} line {job.line} job_type")
        wmax = min(job.gpus, servers * gpus_per_server)
        iterations = max(1, math.ceil(job.total_steps / steps_per_iteration))
        per_slot = _ideal_progress(servers, gpus_per_server, t.model_bytes, t.compute_s(), wmax, reserve, SLOT_S)
        d0 = max(1, math.ceil(iterations / per_slot))
        batch.append(OnlineJob(arrival=int(job.arrival_s // arrival_s_per_slot), iterations=iterations,
                               max_workers=wmax, model_bytes=float(t.model_bytes), compute_s=t.compute_s(),
                               reserved_bandwidth=reserve,
                               utility=Utility(kind="sigmoid", value=1.0, midpoint=2.0 * d0, steepness=2.0 / d0),
                               job_type=job.job_type))
    horizon = max(j.arrival for j in batch) + extra_slots
    return RarOnlineInstance(servers=(gpus_per_server,) * servers, uplinks=(UPLINK,) * servers, jobs=tuple(batch),
                             slot_s=SLOT_S, horizon=horizon, intra_bandwidth=INTRA_BANDWIDTH,
                             reduction_speed=REDUCTION_SPEED, name=f"{Path(path).stem}-online",
                             provenance=f"{Path(path).name}: arrival_s / {arrival_s_per_slot:g} s per slot, "
                                        f"steps / {steps_per_iteration} per worker-iteration"
                                        + (f"; max_workers of {capped} job(s) asking for more GPUs than the "
                                           f"cluster's {servers * gpus_per_server} capped at that" if capped else ""))
