"""Small ``rar-online`` instances as an adversary encoding (for :mod:`optsched.online.adversary`) [ours].

The input class: a *template* instance from the generator (``generate(template_seed, **preset)``,
default the ``tiny`` preset: 3 jobs, 2 servers x 2 GPUs, 4 slots, so that the offline ``milp``
proves optimality in well under a second; ``preset`` may also be a dict of generator options, e.g.
:data:`THEOREM_G_TEMPLATE`, where ``gadget-exact``'s Theorem G applies) whose jobs the adversary
re-times and re-sizes. A point of ``[0, 1]^(4 * jobs)`` gives per job: the arrival slot
``floor(x * horizon)`` (clipped to ``horizon - 1``), the worker-iterations ``F_template * 4 ** (2 x - 1)``
(a factor in [1/4, 4], rounded, >= 1), the utility's value ``1 + 9 x`` and its time scale
(deadline, slope or midpoint) multiplied by ``2 ** (2 x - 1)``. The network, models and utility
kinds are the template's.

The reference is the offline optimum ``milp`` (``sense = "max"``: ratio OPT / ALG). Inputs where
the method earns nothing while OPT > 0 are counted apart by the search (ALG = 0).

:meth:`RarOnlineAdversary.starts` gives structured first inputs (the template, a flood of cheap
long jobs then a burst of valuable tight ones, everything at once); :func:`attack_method` runs
the shared search (:func:`optsched.online.guarantees.attack`: random sampling and local search,
seeded) from them, with the method's registered guarantee checked on every input, and also
records, on the inputs where the guarantee applies, the largest ratio / guaranteed factor (how
close the search came to the guarantee; > 1 would be a violation).

Implements the adapter protocol structurally; imports ``optsched.online`` only in :func:`attack_method`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from optsched.core.solving import solve

from .generate import PRESETS, generate
from .instance import RarOnlineInstance

__all__ = ["RarOnlineAdversary", "THEOREM_G_TEMPLATE", "GENERAL_TEMPLATE", "TEMPLATES", "attack_method"]

#: a template on which Theorem G (``gadget-exact``) applies and jobs compete [ours]: 24 GPUs per server
#: against at most 2 workers and reserved bandwidth 2% of an uplink keep beta < 2 (beta ~ 1.85 for seed
#: 0 and on the decoded inputs tried); 48 jobs of up to 2 workers ask for up to 96 of the 48 GPUs of a
#: slot; 4 s slots keep F_j small (the exact DP and the milp take ~0.1-0.2 s per input)
THEOREM_G_TEMPLATE = {"jobs": 48, "servers": 2, "gpus_per_server": 24, "horizon": 4, "max_workers": 2,
                      "reserve_fractions": "0.02", "slot_s": 4.0}
#: a general small template (the ``small`` preset: 6 jobs, 3 servers x 4 GPUs, 10 slots, up to 4
#: workers): Theorem G does not apply (beta >= 2), every method's ratio is empirical
GENERAL_TEMPLATE = "small"
#: the templates the GADGET table's adversary part attacks, by name
TEMPLATES = {"small": GENERAL_TEMPLATE, "theorem-g": THEOREM_G_TEMPLATE}


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
            u, b = job.utility, base.utility
            scale = None
            if b.kind == "sigmoid" and b.midpoint > 0:
                scale = u.midpoint / b.midpoint
            elif b.kind == "step" and b.deadline > 0 and u.deadline > 0:
                # decode rounds b * scale up: half a slot below u.deadline decodes to u.deadline
                # whatever the float rounding of log2 and 2^x (u.deadline / b.deadline could land a ulp above)
                scale = (u.deadline - 0.5) / b.deadline
            elif b.kind == "linear" and b.slope > 0 and u.slope > 0:
                scale = b.slope / u.slope
            if scale is not None:
                x[3, k] = (math.log2(scale) + 1) / 2
        return np.clip(x.ravel(), 0.0, 1.0)

    def starts(self) -> list[RarOnlineInstance]:
        """Structured first inputs [ours]: (1) the template; (2) *flood then burst*: the first half
        of the jobs arrive at slot 0 with value 1, 4x the work and the loosest time scale, the
        second half at slot 1 with value 10, the template's work and the tightest time scale
        (OPT keeps capacity for the burst; a method that admits the flood cannot); (3) *all at
        once*: every job at slot 0, the template's work and time scale, values rising with the
        job's index (a method serving in arrival order picks the cheap ones first)."""
        n = self.template.num_jobs
        half = n // 2
        flood = np.zeros((4, n))
        flood[0, half:] = 1.5 / self.template.horizon
        flood[1, :half], flood[1, half:] = 1.0, 0.5
        flood[2, half:] = 1.0
        flood[3, :half] = 1.0
        together = np.full((4, n), 0.5)
        together[0] = 0.0
        together[2] = np.arange(n) / max(1, n - 1)
        return [self.template, self.decode(flood.ravel()), self.decode(together.ravel())]

    def evaluate(self, instance: RarOnlineInstance) -> tuple[float, float]:
        opt = solve(instance, "milp", time_limit=self.milp_time_limit)
        if opt.status != "optimal":
            raise RuntimeError(f"adversary: the offline milp returned {opt.status} ({opt.reason})")
        return opt.objective, solve(instance, self.method, options=self.options).objective


def attack_method(method: str, template: str = "small", *, budget: int = 20, seed: int = 0,
                  strategies: tuple[str, ...] = ("random", "local"), milp_time_limit: float = 60.0) -> dict:
    """Attack ``method`` on the named template (:data:`TEMPLATES`) with the shared search, seeded:
    each strategy evaluates :meth:`RarOnlineAdversary.starts` first, then its own points
    (``budget`` evaluations per strategy, each one solves ``method`` and the exact ``milp``).

    Returns :func:`optsched.online.guarantees.attack_summary`'s fields plus ``template``,
    ``evaluations``, ``by_strategy``, ``worst_instance`` (JSON) and, over the inputs where the
    method's registered guarantee applies, ``max_ratio_over_factor`` (the largest OPT / ALG
    divided by the guaranteed factor; None when it applies nowhere; ALG = 0 < OPT counts as inf).

    >>> r = attack_method("fifo", "small", budget=2, seed=0)
    >>> r["evaluations"], r["worst_ratio"] >= 1.0, r["guarantee"]
    (4, True, None)
    """
    from optsched.online.guarantees import attack, attack_summary, registered_guarantee

    adapter = RarOnlineAdversary(method, preset=TEMPLATES[template], milp_time_limit=milp_time_limit)
    guarantee = registered_guarantee("rar-online", method)
    tight = {"max": None, "evaluations": 0}
    evaluate = adapter.evaluate

    def recording(instance):
        ref, alg = evaluate(instance)
        tight["evaluations"] += 1
        if guarantee is not None and guarantee.form == "multiplicative" and guarantee.applies(instance)[0]:
            factor = guarantee.value(instance)
            ratio = (1.0 if ref == alg else ref / alg) if alg > 0 else (math.inf if ref > 0 else 1.0)
            q = ratio / factor
            tight["max"] = q if tight["max"] is None else max(tight["max"], q)
        return ref, alg

    adapter.evaluate = recording
    rep = attack(adapter, strategies=strategies, budget=budget, seed=seed, problem="rar-online",
                 starts=adapter.starts())
    return dict(attack_summary(rep), method=method, template=template, seed=seed, budget=budget,
                evaluations=tight["evaluations"], by_strategy=rep["by_strategy"],
                worst_instance=rep["worst_instance"], max_ratio_over_factor=tight["max"])
