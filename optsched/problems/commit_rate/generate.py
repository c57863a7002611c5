"""Seeded commit-rate instances across heterogeneity levels.

Worker speeds [ours, in the range of ADSP's measured per-worker step times, 0.46-5.0 s/step for
18 workers (``scripts/20190315/20190314_01/ps_hete_usp.txt`` in joapolarbear/adsp, quoted as a
range only)]: ``t_i = base_step * heterogeneity ** u_i`` with ``u_i`` evenly spread over [0, 1]
and shuffled, so the slowest worker is ``heterogeneity`` times the fastest; commit overheads
uniform in [0.5, 2] s. ADSP's constants [code]: ``period`` 60 s, ``min_interval`` 10 s, and
the PS update ``w += Delta / n`` (``momentum`` 0, ``server_lr`` = 1 / workers): the code's
momentum branch (``mu = 0.6``, ``eta = 1/18``) is switched off by default (``MOMENTUN = False``);
``momentum=0.6`` selects it here.
``target_loss`` = ``floor + target_fraction (l_0 - floor)`` with ``floor`` the least-squares
optimum (convex) or the teacher's noise level ``noise^2 / 2`` (mlp) [ours].
"""

from __future__ import annotations

import numpy as np

from optsched.core import portable
from optsched.core.rng import make_rng

from .instance import CommitRateInstance

__all__ = ["generate", "PRESETS", "tiny_instances", "HETEROGENEITY_LEVELS", "MODEL_DEFAULTS"]

HETEROGENEITY_LEVELS = (1.0, 2.0, 5.0, 10.0)

PRESETS: dict[str, dict] = {
    "tiny": {"workers": 3, "heterogeneity": 3.0, "horizon": 600.0, "max_commits": 4, "samples": 120,
             "target_fraction": 0.02},
    "small": {"workers": 6, "heterogeneity": 5.0},
    "mlp": {"workers": 6, "heterogeneity": 5.0, "model": "mlp"},
}


#: per-model defaults of the arguments left None [ours, chosen so that the best constant C is
#: not at the cap and the target is reached within the horizon at every heterogeneity level]
MODEL_DEFAULTS = {"least-squares": {"samples": 480, "local_lr": 0.05, "target_fraction": 0.01},
                  "mlp": {"samples": 240, "local_lr": 0.02, "target_fraction": 0.2}}


def generate(seed: int, workers: int = 6, heterogeneity: float = 5.0, model: str = "least-squares",
             base_step: float = 0.46, features: int = 20, samples: int | None = None, hidden: int = 8,
             noise: float = 0.3, local_lr: float | None = None, batch: int = 8,
             target_fraction: float | None = None, horizon: float = 1800.0, max_commits: int = 8,
             period: float = 60.0, min_interval: float = 10.0, momentum: float = 0.0) -> CommitRateInstance:
    """A seeded instance (``None`` arguments take ``MODEL_DEFAULTS[model]``)."""
    from optsched.core.errors import InvalidOptionError

    from .simulate import Task

    if model not in MODEL_DEFAULTS:
        raise InvalidOptionError("commit-rate", "model", f"must be one of {sorted(MODEL_DEFAULTS)}", model)
    if not heterogeneity >= 1:
        raise InvalidOptionError("commit-rate", "heterogeneity", "must be >= 1", heterogeneity)
    d = MODEL_DEFAULTS[model]
    samples = d["samples"] if samples is None else samples
    local_lr = d["local_lr"] if local_lr is None else local_lr
    target_fraction = d["target_fraction"] if target_fraction is None else target_fraction

    rng = make_rng(seed, "commit-rate")
    u = np.linspace(0.0, 1.0, workers) if workers > 1 else np.zeros(1)
    rng.shuffle(u)
    steps = base_step * portable.power(heterogeneity, u)
    over = rng.uniform(0.5, 2.0, size=workers)
    base = CommitRateInstance(
        step_times=tuple(float(np.round(s, 4)) for s in steps), commit_overheads=tuple(float(np.round(o, 3)) for o in over),
        period=period, min_interval=min_interval, max_commits=max_commits, model=model, features=features,
        samples=samples, hidden=hidden, noise=noise, data_seed=int(rng.integers(2**31)), local_lr=local_lr,
        batch=batch, momentum=momentum, server_lr=1.0 / workers, target_loss=0.0, horizon=horizon,
        name=f"{model}-h{heterogeneity:g}-{seed}",
        provenance=f"generate(seed={seed}, workers={workers}, heterogeneity={heterogeneity})")
    task = Task(base)
    l0 = task.loss(task.w0)
    if model == "least-squares":
        w_star = np.linalg.lstsq(task.X, task.y, rcond=None)[0]
        floor = task.loss(w_star)
    else:
        floor = 0.5 * noise ** 2
    from dataclasses import replace

    return replace(base, target_loss=float(np.round(floor + target_fraction * (l0 - floor), 6)))


def tiny_instances(seed: int) -> CommitRateInstance:
    return generate(seed, **PRESETS["tiny"])
