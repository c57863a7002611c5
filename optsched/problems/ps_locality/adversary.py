"""Small ``ps-locality`` instances as an adversary encoding (for :mod:`optsched.online.adversary`) [ours].

The input class: a *template* from the generator (``generate(template_seed, **PRESETS[preset])``,
default ``tiny``: 3 jobs, 2 machines) whose jobs the adversary re-times and re-sizes. A point of
``[0, 1]^(2 * jobs)`` gives per job the arrival slot ``floor(x * arrival_span)`` (at most
``arrival_span - 1``) and the workload ``V_template * 2 ** (2 x - 1)`` (a factor in [1/2, 2]).
The horizon is the template's doubled plus ``arrival_span`` (room for the larger workloads and
later arrivals; the objective, total completion slots, does not depend on it once every job fits).

The reference is the offline optimum ``milp`` (``sense = "min"``: ratio ALG / OPT). ``online-rr`` is
randomized: every input is evaluated with the method's seed ``seed`` (fixed), so a ratio found is
that of one run, reproducible.

Implements the adapter protocol structurally; imports nothing from ``optsched.online``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from optsched.core.solving import solve

from .generate import PRESETS, generate
from .instance import PsLocalityInstance

__all__ = ["PsLocalityAdversary"]


class PsLocalityAdversary:
    """Adapter: ``method`` of ``ps-locality`` (e.g. ``online-rr``) against the ``milp`` optimum.

    >>> a = PsLocalityAdversary("online-rr")
    >>> inst = a.decode(np.zeros(len(a.bounds)))
    >>> [j.arrival for j in inst.jobs], inst.horizon_slots
    ([0, 0, 0], 22)
    """

    sense = "min"
    reference = "OPT"

    def __init__(self, method: str, *, preset: str | dict = "tiny", template_seed: int = 0, arrival_span: int = 4,
                 seed: int = 0, options: dict | None = None, milp_time_limit: float = 60.0):
        self.method, self.seed, self.options = method, int(seed), dict(options or {})
        self.template = generate(template_seed, **(PRESETS[preset] if isinstance(preset, str) else preset))
        self.arrival_span = int(arrival_span)
        self.milp_time_limit = milp_time_limit

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (2 * self.template.num_jobs)

    def decode(self, x: np.ndarray) -> PsLocalityInstance:
        t = self.template
        x = np.clip(np.asarray(x, float), 0.0, 1.0).reshape(2, t.num_jobs)
        jobs = tuple(dataclasses.replace(job, arrival=min(int(x[0, k] * self.arrival_span), self.arrival_span - 1),
                                         workload=float(job.workload * 2.0 ** (2 * x[1, k] - 1)))
                     for k, job in enumerate(t.jobs))
        return dataclasses.replace(t, jobs=jobs, horizon_slots=2 * t.horizon_slots + self.arrival_span,
                                   name=f"adversary-{self.method}")

    def encode(self, instance: PsLocalityInstance) -> np.ndarray:
        t = self.template
        x = np.full((2, t.num_jobs), 0.5)
        for k, (job, base) in enumerate(zip(instance.jobs, t.jobs)):
            x[0, k] = (job.arrival + 0.5) / self.arrival_span
            x[1, k] = (math.log2(job.workload / base.workload) + 1) / 2
        return np.clip(x.ravel(), 0.0, 1.0)

    def evaluate(self, instance: PsLocalityInstance) -> tuple[float, float]:
        opt = solve(instance, "milp", time_limit=self.milp_time_limit)
        if opt.status != "optimal":
            raise RuntimeError(f"adversary: the offline milp returned {opt.status} ({opt.reason})")
        alg = solve(instance, self.method, seed=self.seed, options=self.options)
        if alg.status not in ("optimal", "feasible"):
            raise RuntimeError(f"adversary: {self.method} returned {alg.status} ({alg.reason})")
        return opt.objective, alg.objective
