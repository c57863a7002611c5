"""Small ``rar-online`` instances as an adversary encoding (for :mod:`optsched.online.adversary`) [ours].

The input class: a *template* instance from the generator (``generate(template_seed, **preset)``,
default the ``tiny`` preset: 3 jobs, 2 servers x 2 GPUs, 4 slots, so that the offline ``milp``
proves optimality in well under a second; ``preset`` may also be a dict of generator options, e.g.
:data:`THEOREM_G_TEMPLATE`, where ``gadget-exact``'s Theorem G applies) whose jobs the adversary re-times and re-sizes. A point
of ``[0, 1]^(4 * jobs)`` gives per job: the arrival slot ``floor(x * horizon)`` (clipped to
``horizon - 1``), the worker-iterations ``F_template * 4 ** (2 x - 1)`` (a factor in [1/4, 4],
rounded, >= 1), the utility's value ``1 + 9 x`` and its time scale (deadline, slope or midpoint)
multiplied by ``2 ** (2 x - 1)``. The network, models and utility kinds are the template's.

The reference is the offline optimum ``milp`` (``sense = "max"``: ratio OPT / ALG). Inputs where
the method earns nothing while OPT > 0 are counted apart by the search (ALG = 0).

Implements the adapter protocol structurally; imports nothing from ``optsched.online``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from optsched.core.solving import solve

from .generate import PRESETS, generate
from .instance import RarOnlineInstance

__all__ = ["RarOnlineAdversary", "THEOREM_G_TEMPLATE"]

#: a template on which Theorem G (``gadget-exact``) applies: 32 GPUs per server against at most 2
#: workers and reserved bandwidth 2% of an uplink keep beta < 2 (beta ~ 1.57 for seed 0) [ours]
THEOREM_G_TEMPLATE = {"jobs": 4, "servers": 2, "gpus_per_server": 32, "horizon": 4, "max_workers": 2,
                      "reserve_fractions": "0.02"}


class RarOnlineAdversary:
    """Adapter: ``method`` of ``rar-online`` (e.g. ``gadget``, ``gadget-exact``) against ``milp``.

    >>> a = RarOnlineAdversary("gadget")
    >>> inst = a.decode(np.full(len(a.bounds), 0.5))
    >>> inst.num_jobs, [j.utility.value for j in inst.jobs]
    (3, [5.5, 5.5, 5.5])
    """

    sense = "max"
    reference = "OPT"

    def __init__(self, method: str, *, preset: str | dict = "tiny", template_seed: int = 0, options: dict | None = None,
                 milp_time_limit: float = 60.0):
        self.method, self.options = method, dict(options or {})
        self.template = generate(template_seed, **(PRESETS[preset] if isinstance(preset, str) else preset))
        self.milp_time_limit = milp_time_limit

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (4 * self.template.num_jobs)

    def decode(self, x: np.ndarray) -> RarOnlineInstance:
        t = self.template
        x = np.clip(np.asarray(x, float), 0.0, 1.0).reshape(4, t.num_jobs)
        jobs = []
        for k, job in enumerate(t.jobs):
            scale = 2.0 ** (2 * x[3, k] - 1)
            u = job.utility
            utility = dataclasses.replace(u, value=float(1 + 9 * x[2, k]), deadline=float(math.ceil(u.deadline * scale)),
                                          slope=u.slope / scale, midpoint=u.midpoint * scale,
                                          steepness=u.steepness / scale)
            jobs.append(dataclasses.replace(
                job, arrival=min(int(x[0, k] * t.horizon), t.horizon - 1),
                iterations=max(1, int(round(job.iterations * 4.0 ** (2 * x[1, k] - 1)))), utility=utility))
        return dataclasses.replace(t, jobs=tuple(jobs), name=f"adversary-{self.method}")

    def encode(self, instance: RarOnlineInstance) -> np.ndarray:
        t = self.template
        x = np.full((4, t.num_jobs), 0.5)
        for k, (job, base) in enumerate(zip(instance.jobs, t.jobs)):
            x[0, k] = (job.arrival + 0.5) / t.horizon
            x[1, k] = (math.log(job.iterations / base.iterations, 4) + 1) / 2
            x[2, k] = (job.utility.value - 1) / 9
            if base.utility.kind == "sigmoid" and base.utility.midpoint > 0:
                x[3, k] = (math.log2(job.utility.midpoint / base.utility.midpoint) + 1) / 2
        return np.clip(x.ravel(), 0.0, 1.0)

    def evaluate(self, instance: RarOnlineInstance) -> tuple[float, float]:
        opt = solve(instance, "milp", time_limit=self.milp_time_limit)
        if opt.status != "optimal":
            raise RuntimeError(f"adversary: the offline milp returned {opt.status} ({opt.reason})")
        return opt.objective, solve(instance, self.method, options=self.options).objective
