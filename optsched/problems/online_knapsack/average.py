"""Average-case ratios of online-knapsack methods on random and trace-derived streams [ours].

Random streams: the problem's generator (``log-uniform``, ``uniform`` or ``increasing`` values).

Trace-derived streams (:func:`trace_stream`) [ours]: a window of ``requests`` consecutive jobs of a
Gavel/Philly-derived trace (``traces/gavel_philly/*.trace`` under ``OPTSCHED_DATA_DIR``), in
arrival order, as requests for a GPU pool: job k's demand is its GPU count divided by
``pool_gpus`` (the pool's capacity is 1; a job larger than ``eps * pool_gpus`` GPUs is capped at
``eps``: the instance class bounds demands by eps), and its value per GPU is the rank of its
``total_steps`` within the window mapped on the log scale ``L (U / L)^(rank / (n - 1))`` (longer
jobs are worth more per GPU; ties share the lower rank). The window starts at a seeded offset; each
seed gives one stream. The traces carry no price or value, so the value model is ours; the
arrival order, the GPU demands and the relative job lengths are the trace's.

:func:`average_ratios` returns OPT / ALG per stream (OPT by the exact ``milp``) and the mean with a
95% confidence interval (Student t over the streams).
"""

from __future__ import annotations

import math
from pathlib import Path

from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng
from optsched.core.solving import solve

from .generate import generate
from .instance import OnlineKnapsackInstance

__all__ = ["trace_stream", "random_streams", "average_ratios", "mean_ci", "TRACE_FILES"]

TRACE_FILES = ("2869ce.trace", "7f04ca.trace", "e13805.trace")


def trace_stream(path: str | Path, seed: int, *, requests: int = 120, lower: float = 1.0, upper: float = 16.0,
                 eps: float = 1 / 16, pool_gpus: int = 64) -> OnlineKnapsackInstance:
    """A trace-derived request stream (see the module docstring)."""
    from optsched.workloads.traces import load_gavel_trace

    jobs = sorted(load_gavel_trace(path), key=lambda j: (j.arrival_s, j.index))
    if requests < 2 or requests > len(jobs):
        raise InvalidOptionError("online-knapsack", "requests", f"must be in [2, {len(jobs)}] for this trace",
                                   requests)
    start = int(make_rng(seed, "online-knapsack", "trace-window", Path(path).name).integers(0, len(jobs) - requests + 1))
    window = jobs[start:start + requests]
    steps = sorted(j.total_steps for j in window)
    rank = {s: steps.index(s) for s in steps}
    span = upper / lower
    values = [min(upper, max(lower, lower * span ** (rank[j.total_steps] / (requests - 1)))) for j in window]
    demands = [min(eps, j.gpus / pool_gpus) for j in window]
    return OnlineKnapsackInstance(lower=lower, upper=upper, eps=eps, demands=demands, values=values,
                                  name=f"trace-{Path(path).stem}-{requests}-s{seed}",
                                  provenance=f"{Path(path).name} jobs {start}..{start + requests - 1}, "
                                             f"pool {pool_gpus} GPUs, values by total_steps rank")


def mean_ci(xs) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (Student t; 0 for one sample)."""
    xs = [float(x) for x in xs]
    n = len(xs)
    mean = math.fsum(xs) / n
    if n < 2:
        return mean, 0.0
    from scipy.stats import t

    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)


def average_ratios(method: str, instances, options: dict | None = None) -> dict:
    """OPT / ALG of ``method`` on each instance (ALG = 0 < OPT counted apart as ``zero_alg``)."""
    ratios, zero = [], 0
    for inst in instances:
        opt = solve(inst, "milp")
        if opt.status != "optimal":
            raise RuntimeError(f"average_ratios: milp returned {opt.status} on {inst.name}")
        alg = solve(inst, method, options=options or {}).objective
        if alg <= 0 < opt.objective:
            zero += 1
            continue
        ratios.append(1.0 if alg == opt.objective else opt.objective / alg)
    mean, half = mean_ci(ratios) if ratios else (math.nan, math.nan)
    return {"method": method, "n": len(ratios), "zero_alg": zero, "mean": mean, "ci95": half, "ratios": ratios}


def random_streams(shape: str, seeds, *, requests: int = 120, lower: float = 1.0, upper: float = 16.0,
                   eps: float = 1 / 16):
    """The generator's streams for each seed."""
    return [generate(s, requests=requests, lower=lower, upper=upper, eps=eps, values=shape) for s in seeds]
