"""Seeded snapshot generators and the importer of a Philly-derived Gavel trace prefix.

Synthetic interference tables [ours]: ``beta[a][b]`` drawn log-uniformly between 0.02 and 2
(the range of most measured v100 pairs), a fraction of pairs ``forbidden`` (symmetric), weights
log-uniform over two decades, GPU demands from {1, 2, 4} capped by the largest server.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optsched.core.data import data_file
from optsched.core import portable
from optsched.core.rng import make_rng
from optsched.workloads.interference import GAVEL_THROUGHPUTS, load_gavel_interference
from optsched.workloads.traces import load_gavel_trace, servers_to_hold

from .instance import PlacementInstance, PlacementJob, Resident

__all__ = ["generate", "PRESETS", "tiny_instances", "load_gavel_snapshot", "synthetic_table"]

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 4, "servers": 3, "gpus_per_server": 2, "types": 3, "residents": 1},
    "small": {"jobs": 8, "servers": 4, "gpus_per_server": 4, "types": 5, "residents": 2},
    "medium": {"jobs": 14, "servers": 6, "gpus_per_server": 4, "types": 8, "residents": 3},
}


def synthetic_table(rng: np.random.Generator, types: int, forbid: float = 0.1):
    beta = portable.exp(rng.uniform(portable.log(0.02), portable.log(2.0), size=(types, types)))
    forb = rng.random((types, types)) < forbid
    forb = forb | forb.T
    beta[forb] = 0.0
    return tuple(f"type-{t}" for t in range(types)), beta, forb


def generate(seed: int, jobs: int = 8, servers: int = 4, gpus_per_server: int = 4, types: int = 5,
             residents: int = 2, spread_penalty: float = 0.2, forbid: float = 0.1,
             reject_factor: float = 4.0) -> PlacementInstance:
    """A random snapshot; ``reject_cost`` = ``reject_factor`` x the largest job weight."""
    rng = make_rng(seed, "interference-placement")
    names, beta, forb = synthetic_table(rng, types, forbid)
    demands = [d for d in (1, 2, 4) if d <= gpus_per_server] or [1]
    js = [PlacementJob(id=j, type=int(rng.integers(types)), gpus=int(rng.choice(demands)),
                       weight=float(np.round(portable.exp(rng.uniform(portable.log(100.0), portable.log(10000.0))), 3)))
          for j in range(jobs)]
    free = [int(rng.integers(max(1, gpus_per_server // 2), gpus_per_server + 1)) for _ in range(servers)]
    res = [Resident(type=int(rng.integers(types)), weight=float(np.round(rng.uniform(100, 10000), 3)),
                    servers=(int(rng.integers(servers)),)) for _ in range(residents)]
    wmax = max((j.weight for j in js), default=1.0)
    return PlacementInstance(gpus_per_server=tuple(free), job_types=names, beta=tuple(map(tuple, beta)),
                             forbidden=tuple(tuple(bool(v) for v in row) for row in forb), jobs=tuple(js), spread_penalty=spread_penalty,
                             reject_cost=float(reject_factor * wmax), residents=tuple(res),
                             name=f"synthetic-{seed}", provenance=f"generate(seed={seed})")


def tiny_instances(seed: int) -> PlacementInstance:
    return generate(seed, **PRESETS["tiny"])


def load_gavel_snapshot(path, index: int | None = None, jobs: int = 10, servers: int | None = None,
                        gpus_per_server: int = 4, start: int = 0,
                        spread_penalty: float = 0.2, reject_factor: float = 4.0,
                        interference_scale: float = 1.0, throughputs=None) -> PlacementInstance:
    """Waiting jobs ``start .. start + jobs`` of a Gavel ``.trace`` on an empty cluster.

    ``index`` (the CLI's ``--index``) picks window ``index`` of ``jobs`` jobs:
    ``start = index * jobs``.

    Job type and GPU demand from the trace; ``servers`` defaults to 4, or [ours] to the fewest
    servers of ``gpus_per_server`` GPUs that hold the window's largest job when that is more
    (recorded in the provenance); with ``servers`` given, a larger demand is an error; a job type
    the throughput table lacks is an error naming the line. Weight = total steps / isolated v100
    throughput (Gavel's measured table, multi-GPU row when present); interference table =
    Gavel's scale-1 pairs scaled by ``interference_scale`` [ours]; unmeasured pairs need the
    interference model (not done here: the importer raises if a needed pair is unmeasured).
    """
    from optsched.core.errors import InvalidInstanceError, InvalidOptionError

    if jobs < 1:
        raise InvalidOptionError("interference-placement", "jobs", "must be >= 1", jobs)
    if index is not None:
        if index < 0:
            raise InvalidOptionError("interference-placement", "index", "must be >= 0", index)
        start = index * jobs
    if start < 0:
        raise InvalidOptionError("interference-placement", "start", "must be >= 0", start)
    trace = load_gavel_trace(path)
    total = len(trace)
    trace = trace[start:start + jobs]
    if not trace:
        raise InvalidOptionError("interference-placement", "index" if index is not None else "start",
                                   f"beyond the end of the trace ({total} jobs)", index if index is not None else start)
    grown = ""
    if servers is None:
        servers, grown = servers_to_hold([tj.gpus for tj in trace], gpus_per_server, 4)
    table = load_gavel_interference(throughputs or data_file(GAVEL_THROUGHPUTS))
    beta = np.array(table.beta, float) * interference_scale
    if np.isnan(beta).any():
        raise InvalidInstanceError("interference-placement", "beta", "the table has unmeasured pairs; complete "
                                   "it with optsched.workloads.interference.InterferenceModel")
    js = []
    for k, tj in enumerate(trace):
        if tj.gpus > servers * gpus_per_server:
            raise InvalidInstanceError("interference-placement", f"{Path(path).name} line {tj.line} scale_factor",
                                       f"larger than the cluster ({servers * gpus_per_server} GPUs)", tj.gpus)
        if tj.job_type not in table.names:
            raise InvalidInstanceError("interference-placement", f"{Path(path).name} line {tj.line} job_type",
                                       "not a scale-1 job type of the throughput table "
                                       f"(known: {', '.join(table.names)})", tj.job_type)
        js.append(PlacementJob(id=k, type=table.index(tj.job_type), gpus=tj.gpus,
                               weight=float(tj.total_steps / table.throughput(tj.job_type, tj.gpus))))
    wmax = max(j.weight for j in js)
    return PlacementInstance(gpus_per_server=(gpus_per_server,) * servers, job_types=table.names,
                             beta=tuple(map(tuple, beta)), forbidden=table.forbidden, jobs=tuple(js),
                             spread_penalty=spread_penalty, reject_cost=float(reject_factor * wmax),
                             name=f"gavel-{Path(path).stem}-{start}",
                             provenance=f"{Path(path).name} jobs {start}..{start + len(js) - 1}; {GAVEL_THROUGHPUTS} v100"
                                        + grown)
