"""Job streams: seeded synthetic streams and the importer of Gavel's Philly-derived traces.

Synthetic streams [ours]: Poisson arrivals at the rate that offers ``load`` x the cluster's GPUs,
GPU demands from ``{1, 2, 4, 8}`` with probabilities ``0.6, 0.2, 0.15, 0.05`` (capped by the
cluster), isolated run times log-uniform in [10 min, 10 h], job types uniform over the table
(Gavel's measured table when given, else a synthetic one).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optsched.core.data import data_file
from optsched.core import portable
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng
from optsched.workloads.interference import GAVEL_THROUGHPUTS, load_gavel_interference
from optsched.workloads.traces import load_gavel_trace

from .instance import OnlineInstance, OnlineJob

__all__ = ["generate", "PRESETS", "tiny_instances", "load_gavel_online", "load_gavel_window", "synthetic_table", "gavel_table",
           "compress"]

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 5, "servers": 2, "gpus_per_server": 2, "servers_per_group": 1, "types": 3},
    "small": {"jobs": 40, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6},
    "train": {"jobs": 60, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6, "load": 1.0},
    # the learned scheduler's training streams [ours]: 8-GPU servers in racks of 4, demands up to
    # 32 GPUs, isolated run times from 10 minutes to 10 days (log-uniform)
    "train-rack": {"jobs": 80, "servers": 8, "gpus_per_server": 8, "servers_per_group": 4, "load": 0.9,
                   "sizes": (1, 2, 4, 8, 16, 32), "size_probs": (0.4, 0.1, 0.15, 0.25, 0.05, 0.05),
                   "runtime": (600.0, 864000.0)},
    "train-short": {"jobs": 30, "servers": 8, "gpus_per_server": 4, "servers_per_group": 2, "types": 6, "load": 1.2},
}


def synthetic_table(rng, types: int, forbid: float = 0.1):
    beta = portable.exp(rng.uniform(portable.log(0.02), portable.log(2.0), size=(types, types)))
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
             table: tuple | None = None, sizes: tuple = (1, 2, 4, 8), size_probs: tuple = (0.6, 0.2, 0.15, 0.05),
             runtime: tuple = (600.0, 36000.0)) -> OnlineInstance:
    """A synthetic stream; ``table = (names, beta, forbidden)`` overrides the synthetic table.

    ``sizes``/``size_probs``: the GPU demands and their probabilities (sizes above the cluster are
    dropped from the law and the rest renormalized); ``runtime = (lo, hi)``: isolated seconds,
    log-uniform.
    """
    if not sizes:
        raise InvalidOptionError("interference-online", "sizes", "needs at least one GPU demand", sizes)
    if len(sizes) != len(size_probs):
        raise InvalidOptionError("interference-online", "sizes",
                                   f"needs one probability per size in size_probs ({len(sizes)} sizes, "
                                   f"{len(size_probs)} size_probs)", sizes)
    if not sum(size_probs) > 0:
        raise InvalidOptionError("interference-online", "size_probs", "needs a positive probability", size_probs)
    if len(runtime) != 2:
        raise InvalidOptionError("interference-online", "runtime", "needs two values (lo, hi)", runtime)
    if not 0 < runtime[0] <= runtime[1]:
        raise InvalidOptionError("interference-online", "runtime", "needs 0 < lo <= hi", runtime)
    rng = make_rng(seed, "interference-online")
    if table is not None and (not isinstance(table, (list, tuple)) or len(table) < 3):
        raise InvalidOptionError("interference-online", "table", "must be (names, beta, forbidden)", table)
    names, beta, forb = table[:3] if table is not None else synthetic_table(rng, types, forbid)
    total = servers * gpus_per_server
    sizes = np.array(sizes)
    probs = np.array(size_probs, float)
    keep = sizes <= total
    if not probs[keep].sum() > 0:
        raise InvalidOptionError("interference-online", "sizes", f"no size with a positive probability fits the "
                                   f"cluster's {total} GPUs", tuple(sizes.tolist()))
    sizes, probs = sizes[keep], probs[keep] / probs[keep].sum()
    gpus = rng.choice(sizes, size=jobs, p=probs)
    runtime = portable.exp(rng.uniform(portable.log(float(runtime[0])), portable.log(float(runtime[1])), size=jobs))
    mean_gpu_s = float(np.sum(sizes * probs)) * float(np.mean(runtime))
    rate = load * total / mean_gpu_s
    arrivals = np.cumsum(portable.exponential(rng, 1 / rate, size=jobs))
    arrivals -= arrivals[0]
    step = portable.exp(rng.uniform(portable.log(0.05), portable.log(1.0), size=jobs))
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
        raise InvalidOptionError("interference-online", "index", "must be 0 (a trace is one stream)", index)
    if not arrival_scale > 0:
        raise InvalidOptionError("interference-online", "arrival_scale", "must be > 0", arrival_scale)
    # the user's file first: an unreadable trace is reported before a missing data set
    trace = sorted(load_gavel_trace(path), key=lambda t: (t.arrival_s, t.index))
    names, beta, forb, table = gavel_table(interference_scale, throughputs)
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


def load_gavel_window(path, part: int = 0, parts: int = 1, servers: int = 8, gpus_per_server: int = 8,
                      servers_per_group: int = 4, load: float = 0.9, spread_penalty: float = 0.2,
                      throughputs=None) -> OnlineInstance:
    """Part ``part`` of ``parts`` consecutive windows of a Gavel trace (by arrival), its arrivals
    shifted to start at 0 and scaled so that the offered load -- ``sum_j g_j R_j tau_j`` over
    (last arrival x GPUs) -- is ``load`` on ``servers x gpus_per_server`` GPUs [ours: the
    held-out evaluation streams of the learned scheduler at every cluster size]."""
    if not (isinstance(parts, int) and parts >= 1):
        raise InvalidOptionError("interference-online", "parts", "must be an integer >= 1", parts)
    if not (isinstance(part, int) and 0 <= part < parts):
        raise InvalidOptionError("interference-online", "part", f"must be in 0..{parts - 1}", part)
    if not (math.isfinite(load) and load > 0):
        raise InvalidOptionError("interference-online", "load", "must be finite and > 0", load)
    full = load_gavel_online(path, servers=servers, gpus_per_server=gpus_per_server,
                             servers_per_group=servers_per_group, spread_penalty=spread_penalty,
                             throughputs=throughputs)
    n = full.num_jobs
    lo, hi = part * n // parts, (part + 1) * n // parts
    jobs = full.jobs[lo:hi]
    if len(jobs) < 2 or jobs[-1].arrival <= jobs[0].arrival:
        raise InvalidOptionError("interference-online", "parts", "a window needs two distinct arrivals", parts)
    from dataclasses import replace

    t0, span = jobs[0].arrival, jobs[-1].arrival - jobs[0].arrival
    offered = sum(j.gpus * j.isolated_time for j in jobs) / (span * servers * gpus_per_server)
    factor = offered / load
    js = tuple(replace(j, id=k, arrival=(j.arrival - t0) * factor) for k, j in enumerate(jobs))
    stem = Path(path).stem
    return replace(full, jobs=js, name=f"gavel-{stem}-{part}of{parts}-{servers * gpus_per_server}gpu-load{load:g}",
                   provenance=f"{full.provenance}; jobs {lo}..{hi - 1}, arrivals shifted to 0 and x {factor:.6g} "
                              f"(offered load {load:g})")


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
