"""Job streams: seeded synthetic streams and the importer of Gavel's Philly-derived traces.

Synthetic streams [ours]: Poisson arrivals at the rate that offers ``load`` x the cluster's GPUs,
GPU demands from ``{1, 2, 4, 8}`` with probabilities ``0.6, 0.2, 0.15, 0.05`` (capped by the
cluster), isolated run times log-uniform in [10 min, 10 h], job types uniform over the table
(Gavel's measured table when given, else a synthetic one).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optsched.core.data import data_file
from optsched.core.errors import InvalidInstanceError
from optsched.core.rng import make_rng
from optsched.workloads.interference import GAVEL_THROUGHPUTS, load_gavel_interference
from optsched.workloads.traces import load_gavel_trace

from .instance import OnlineInstance, OnlineJob

__all__ = ["generate", "PRESETS", "tiny_instances", "load_gavel_online", "synthetic_table", "gavel_table",
           "compress"]

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 5, "servers": 2, "gpus_per_server": 2, "servers_per_group": 1, "types": 3},
    "small": {"jobs": 40, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6},
    "train": {"jobs": 60, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6, "load": 1.0},
    "train-short": {"jobs": 30, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6, "load": 1.2},
}


def synthetic_table(rng, types: int, forbid: float = 0.1):
    beta = np.exp(rng.uniform(np.log(0.02), np.log(2.0), size=(types, types)))
    forb = rng.random((types, types)) < forbid
    forb = forb | forb.T
    beta[forb] = 0.0
    names = tuple(f"type-{t}" for t in range(types))
    return names, tuple(tuple(float(v) for v in r) for r in beta), tuple(tuple(bool(v) for v in r) for r in forb)


def gavel_table(interference_scale: float = 1.0, throughputs=None):
    """Gavel's v100 scale-1 table as ``(names, beta, forbidden, table)`` (needs the data directory)."""
    table = load_gavel_interference(throughputs or data_file(GAVEL_THROUGHPUTS))
    beta = np.array(table.beta, float)
    if np.isnan(beta).any():
        raise InvalidInstanceError("interference-online", "beta", "the table has unmeasured pairs")
    beta = beta * interference_scale
    return table.names, tuple(tuple(float(v) for v in r) for r in beta), table.forbidden, table


def generate(seed: int, jobs: int = 40, servers: int = 8, gpus_per_server: int = 4, servers_per_group: int = 2,
             types: int = 6, load: float = 0.8, spread_penalty: float = 0.2, forbid: float = 0.1,
             table: tuple | None = None) -> OnlineInstance:
    """A synthetic stream; ``table = (names, beta, forbidden)`` overrides the synthetic table."""
    rng = make_rng(seed, "interference-online")
    if table is not None and (not isinstance(table, (list, tuple)) or len(table) < 3):
        raise InvalidInstanceError("interference-online", "table", "must be (names, beta, forbidden)", table)
    names, beta, forb = table[:3] if table is not None else synthetic_table(rng, types, forbid)
    total = servers * gpus_per_server
    sizes = np.array([1, 2, 4, 8])
    probs = np.array([0.6, 0.2, 0.15, 0.05])
    keep = sizes <= total
    sizes, probs = sizes[keep], probs[keep] / probs[keep].sum()
    gpus = rng.choice(sizes, size=jobs, p=probs)
    runtime = np.exp(rng.uniform(np.log(600), np.log(36000), size=jobs))
    mean_gpu_s = float(np.sum(sizes * probs)) * float(np.mean(runtime))
    rate = load * total / mean_gpu_s
    arrivals = np.cumsum(rng.exponential(1 / rate, size=jobs))
    arrivals -= arrivals[0]
    step = np.exp(rng.uniform(np.log(0.05), np.log(1.0), size=jobs))
    kinds = rng.integers(len(names), size=jobs)
    js = tuple(OnlineJob(id=j, arrival=float(np.round(arrivals[j], 3)), type=int(kinds[j]), gpus=int(gpus[j]),
                         iterations=float(np.ceil(runtime[j] / step[j])), step_time=float(np.round(step[j], 6)))
               for j in range(jobs))
    return OnlineInstance(gpus_per_server=(gpus_per_server,) * servers, servers_per_group=servers_per_group,
                          job_types=tuple(names), beta=beta, forbidden=forb, spread_penalty=spread_penalty, jobs=js,
                          name=f"synthetic-{seed}", provenance=f"generate(seed={seed}, load={load})")


def tiny_instances(seed: int) -> OnlineInstance:
    return generate(seed, **PRESETS["tiny"])


def load_gavel_online(path, index: int = 0, servers: int = 16, gpus_per_server: int = 4, servers_per_group: int = 4,
                      max_jobs: int | None = None, arrival_scale: float = 1.0, spread_penalty: float = 0.2,
                      interference_scale: float = 1.0, throughputs=None) -> OnlineInstance:
    """A Gavel ``.trace`` as a job stream on ``servers x gpus_per_server`` GPUs.

    Per job: type and GPU demand (scale factor) from the trace; ``iterations`` = total steps;
    ``step_time`` = 1 / Gavel's isolated v100 throughput of (type, scale); arrivals (sorted, the
    first ``max_jobs``) multiplied by ``arrival_scale`` (< 1 compresses: a loaded variant).
    Interference = Gavel's scale-1 pairs x ``interference_scale`` [ours: space-sharing pairs as a
    server-level proxy]. Jobs larger than the cluster are an error (never dropped).
    """
    if index != 0:
        raise InvalidInstanceError("interference-online", "index", "must be 0 (a trace is one stream)", index)
    if not arrival_scale > 0:
        raise InvalidInstanceError("interference-online", "arrival_scale", "must be > 0", arrival_scale)
    names, beta, forb, table = gavel_table(interference_scale, throughputs)
    trace = sorted(load_gavel_trace(path), key=lambda t: (t.arrival_s, t.index))
    if max_jobs is not None:
        trace = trace[:max_jobs]
    total = servers * gpus_per_server
    js = []
    for k, tj in enumerate(trace):
        if tj.gpus > total:
            raise InvalidInstanceError("interference-online", f"{Path(path).name} line {tj.line} scale_factor",
                                       f"larger than the cluster ({total} GPUs)", tj.gpus)
        js.append(OnlineJob(id=k, arrival=tj.arrival_s * arrival_scale, gpus=tj.gpus,
                            type=_type_index(table, tj, f"{Path(path).name} line {tj.line} job_type"),
                            iterations=float(tj.total_steps),
                            step_time=1.0 / table.throughput(tj.job_type, tj.gpus)))
    stem = Path(path).stem
    return OnlineInstance(gpus_per_server=(gpus_per_server,) * servers, servers_per_group=servers_per_group,
                          job_types=names, beta=beta, forbidden=forb, spread_penalty=spread_penalty, jobs=tuple(js),
                          name=f"gavel-{stem}" + (f"-x{arrival_scale:g}" if arrival_scale != 1 else ""),
                          provenance=f"{Path(path).name} (first {len(js)} jobs by arrival), arrivals x {arrival_scale:g}; "
                                     f"{GAVEL_THROUGHPUTS} v100 x {interference_scale:g}")


def _type_index(table, tj, where: str) -> int:
    """The row of a trace job's type in Gavel's throughput table; a type it lacks is an error
    naming the line (never dropped)."""
    if tj.job_type not in table.names:
        raise InvalidInstanceError("interference-online", where, "not a scale-1 job type of the throughput table "
                                   f"(known: {', '.join(table.names)})", tj.job_type)
    return table.index(tj.job_type)


def compress(instance: OnlineInstance, factor: float) -> OnlineInstance:
    """The same stream with arrivals divided by ``factor`` (a more loaded variant)."""
    from dataclasses import replace

    jobs = tuple(replace(j, arrival=j.arrival / factor) for j in instance.jobs)
    return replace(instance, jobs=jobs, name=f"{instance.name}-compressed{factor:g}")
