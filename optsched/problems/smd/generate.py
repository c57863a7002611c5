"""Seeded generators for SMD instances [ours].

Each job takes its layer profile either from seeded synthetic layers (``profiles="synthetic"``,
the default) or from DNN profiles in ``models/`` (``profiles=<directory or .json file>``, read
with :func:`optsched.workloads.profiles.load_profile`). Per job: weight in {1, 2, 3}; epochs in
1..5; dataset samples in [10^4, 10^5); per-worker mini-batch in {32, 64, 128} (a real profile's
own profiling batch size, which its layer times are measured at); a worker needs 1 GPU, 2-4 CPU
cores and 8-16 GB, a parameter server 0 GPU, 1-4 cores and 4-8 GB (the first ``resources`` of gpu,
cpu, memory_gb). NICs: 10 Gb/s (1.25e9 bytes/s) for workers and parameter servers.

Synthetic layers: forward uniform in [0.5, 5] ms, backward 1.5-2.5 x forward, parameters
lognormal around 4 MB (sigma 1), between ``ceil(layers / 2)`` and ``layers`` layers per job.

Capacity of resource r = floor(tightness * sum_i demand of job i's cheapest configuration): with
``tightness < 1`` the jobs' individually best configurations do not fit together, so capacity binds.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng

from .instance import SmdInstance, SmdJob

__all__ = ["generate", "PRESETS", "RESOURCE_NAMES", "tiny_instance"]

RESOURCE_NAMES = ("gpu", "cpu", "memory_gb")
WORKER_BANDWIDTH = 1.25e9
PS_BANDWIDTH = 1.25e9

PRESETS: dict[str, dict] = {
    # conformance: brute force enumerates (3 * 2 + 1)^3 = 343 combinations
    "tiny": {"jobs": 3, "max_workers": 3, "max_parameter_servers": 2, "layers": 4},
    # capacity binds on most seeds; milp proves the optimum in well under a second
    "smd-small": {"jobs": 6, "max_workers": 4, "max_parameter_servers": 3, "layers": 8},
    "smd-medium": {"jobs": 40, "max_workers": 16, "max_parameter_servers": 8, "layers": 16},
    # 2,000 configurations per job
    "smd-wide": {"jobs": 100, "max_workers": 50, "max_parameter_servers": 40, "layers": 24},
    "smd-large": {"jobs": 1000, "max_workers": 50, "max_parameter_servers": 40, "layers": 24},
}


def tiny_instance(seed: int) -> SmdInstance:
    """The conformance suite's instances: ``tiny``, with one non-deferrable job on odd seeds."""
    return generate(seed, **PRESETS["tiny"], non_deferrable=1 / 3 if seed % 2 else 0.0)


def _synthetic_layers(rng: np.random.Generator, layers: int) -> dict:
    n = int(rng.integers(math.ceil(layers / 2), layers + 1))
    forward = rng.uniform(0.5e-3, 5e-3, n)
    return {"forward_s": forward.tolist(), "backward_s": (forward * rng.uniform(1.5, 2.5, n)).tolist(),
            "parameter_bytes": np.round(portable.lognormal(rng, portable.log(4e6), 1.0, n)).tolist()}


def _load_profiles(source: str) -> list[tuple[str, dict, int]]:
    """(name, layer arrays, batch size) for every profile file at ``source``."""
    from optsched.workloads.profiles import load_profile

    path = Path(source)
    try:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        readable = bool(files) and all(f.is_file() for f in files)
    except OSError:   # e.g. a name longer than the system allows
        readable = False
    if not readable:
        raise InvalidOptionError("smd", "profiles", "must be 'synthetic', a .json profile or a directory of them",
                                   source)
    out = []
    for f in files:
        profile = load_profile(f)
        arrays = {key: list(getattr(profile, key)) for key in ("forward_s", "backward_s", "parameter_bytes")}
        out.append((profile.name, arrays, max(1, round(profile.batch_size))))
    return out


def generate(seed: int, *, jobs: int = 6, max_workers: int = 4, max_parameter_servers: int = 3, layers: int = 8,
             resources: int = 2, tightness: float = 0.5, non_deferrable: float = 0.0, round_length: float = 3600.0,
             profiles: str = "synthetic") -> SmdInstance:
    """A random instance; the same seed and options always give the same instance.

    >>> inst = generate(1, jobs=3, max_workers=2, max_parameter_servers=2)
    >>> inst.num_jobs, inst.resources
    (3, ('gpu', 'cpu'))
    """
    for name, value, low in (("jobs", jobs, 1), ("max_workers", max_workers, 1),
                             ("max_parameter_servers", max_parameter_servers, 1), ("layers", layers, 1)):
        if value < low:
            raise InvalidOptionError("smd", name, f"must be >= {low}", value)
    if not 1 <= resources <= len(RESOURCE_NAMES):
        raise InvalidOptionError("smd", "resources", f"must be in 1..{len(RESOURCE_NAMES)}", resources)
    if not 0 < tightness <= 1:
        raise InvalidOptionError("smd", "tightness", "must be in (0, 1]", tightness)
    if not 0 <= non_deferrable <= 1:
        raise InvalidOptionError("smd", "non_deferrable", "must be a fraction in [0, 1]", non_deferrable)
    if not (math.isfinite(round_length) and round_length >= 0):
        raise InvalidOptionError("smd", "round_length", "must be >= 0 and finite", round_length)
    library = None if profiles == "synthetic" else _load_profiles(profiles)
    # the draws depend on which profiles, never on where they are: the same directory at another
    # path (another checkout, another machine) gives the same bytes
    profile_names = None if library is None else ", ".join(name for name, _, _ in library)
    rng = make_rng(seed, "smd", jobs, max_workers, max_parameter_servers, layers, resources, tightness,
                   non_deferrable, "synthetic" if profile_names is None else f"profiles: {profile_names}")
    fixed = set(rng.permutation(jobs)[:round(non_deferrable * jobs)].tolist())
    job_list = []
    for i in range(jobs):
        if library is None:
            model, arrays, batch = f"synthetic-{i}", _synthetic_layers(rng, layers), None
        else:
            model, arrays, batch = library[int(rng.integers(len(library)))]
        worker = [1.0, float(rng.integers(2, 5)), float(rng.integers(8, 17))][:resources]
        server = [0.0, float(rng.integers(1, 5)), float(rng.integers(4, 9))][:resources]
        job_list.append(SmdJob(
            name=f"job{i}-{model}", weight=float(rng.integers(1, 4)), **arrays,
            epochs=int(rng.integers(1, 6)), dataset_samples=int(rng.integers(10_000, 100_000)),
            minibatch=batch or int(rng.choice([32, 64, 128])), max_workers=max_workers,
            max_parameter_servers=max_parameter_servers, worker_demand=worker, ps_demand=server,
            deferrable=i not in fixed))
    names = RESOURCE_NAMES[:resources]
    draft = SmdInstance(resources=names, capacities=[0.0] * resources, worker_bandwidth=WORKER_BANDWIDTH,
                        ps_bandwidth=PS_BANDWIDTH, round_length=round_length, jobs=job_list)
    wanted = np.zeros(resources)
    for i, job in enumerate(draft.jobs):
        w = np.repeat(np.arange(1, max_workers + 1), max_parameter_servers)
        s = np.tile(np.arange(1, max_parameter_servers + 1), max_workers)
        best = int(np.argmin(draft.completion_time(i, w, s)))
        wanted += draft.demand(i, w[best], s[best])
    capacities = np.floor(tightness * wanted)
    source = "synthetic layers" if library is None else f"profiles {profile_names}"
    return SmdInstance(resources=names, capacities=capacities.tolist(), worker_bandwidth=WORKER_BANDWIDTH,
                       ps_bandwidth=PS_BANDWIDTH, round_length=round_length, jobs=job_list,
                       name=f"gen-{jobs}j-{max_workers}w{max_parameter_servers}s-t{tightness}-s{seed}",
                       provenance=f"optsched smd generator, seed {seed}, {source}")
