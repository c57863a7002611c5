"""Small ``srpt`` streams as an adversary encoding (for :mod:`optsched.online.adversary`) [ours].

The input class: ``jobs`` jobs on ``servers x gpus_per_server`` GPUs, data-parallel rings of a
fixed model size, compute time 1 s per iteration, and predictions off by at most a factor
``prediction_error`` (``n_hat / n`` in ``[1/f, f]``). A point of ``[0, 1]^(4 * jobs)`` gives per
job: arrival ``horizon * x``, iterations ``10 ** (1 + 2 x)`` (10..1000, rounded), GPU demand
(1, 2, 4, ... up to the cluster, by ``floor(x * count)``), prediction factor ``f ** (2 x - 1)``.
The reference (``reference=``):

* ``"lb"`` (default): the lower bound ``lb``; a ratio ``ALG / LB`` over-states ``ALG / OPT`` (inputs
  hard *relative to the bound*);
* ``"lb-rank"``: the rank bound ``lb-rank`` (``>= lb``, still a bound: over-states too);
* ``"opt"``: the exact ``milp`` with ``opt_time_limit`` seconds per input. When it proves
  optimality the ratio is ``ALG / OPT``; when it does not, the reference is its best schedule's
  flow time (``>= OPT``), so the ratio *under*-states ``ALG / OPT`` -- still a certified lower
  bound on the method's worst case. Such inputs are counted (``unproven``).

Implements the adapter protocol structurally; imports nothing from ``optsched.online``.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.solving import solve

from .graphs import make_job_edges
from .instance import SrptInstance, SrptJob

__all__ = ["SrptAdversary"]


class SrptAdversary:
    """Adapter: ``method`` of ``srpt`` against ``lb``, ``lb-rank`` or the exact ``milp`` on small streams.

    >>> a = SrptAdversary("fifo", jobs=2, servers=1, gpus_per_server=4)
    >>> inst = a.decode(np.array([0.0, 0.5, 1.0, 0.5, 0.0, 0.99, 0.5, 0.5]))  # arrivals, sizes, GPUs, errors
    >>> [(j.arrival, j.iterations, j.gpus) for j in inst.jobs]
    [(0.0, 1000, 1), (50.0, 100, 4)]
    """

    sense = "min"
    REFERENCES = {"lb": "lower bound", "lb-rank": "rank lower bound",
                  "opt": "OPT (milp; a feasible schedule's flow where not proven)"}

    def __init__(self, method: str, *, jobs: int = 5, servers: int = 2, gpus_per_server: int = 4,
                 horizon: float = 100.0, prediction_error: float = 2.0, model_bytes: float = 1e8,
                 restart_overhead: float = 10.0, intra_bandwidth: float = 1e11, inter_bandwidth: float = 1.25e9,
                 reference: str = "lb", opt_time_limit: float = 10.0):
        if reference not in self.REFERENCES:
            raise ValueError(f"adversary: reference must be one of {', '.join(self.REFERENCES)}, not {reference!r}")
        self.reference_method, self.reference = reference, self.REFERENCES[reference]
        self.opt_time_limit = float(opt_time_limit)
        #: evaluations against ``opt`` where the milp proved optimality / did not
        self.proven, self.unproven = 0, 0
        self.method, self.jobs = method, int(jobs)
        self.servers, self.gpus_per_server = int(servers), int(gpus_per_server)
        self.horizon, self.prediction_error, self.model_bytes = float(horizon), float(prediction_error), model_bytes
        self.restart_overhead, self.intra, self.inter = restart_overhead, intra_bandwidth, inter_bandwidth
        total = self.servers * self.gpus_per_server
        self.demands = [2 ** k for k in range(int(math.log2(total)) + 1)]

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (4 * self.jobs)

    def decode(self, x: np.ndarray) -> SrptInstance:
        x = np.clip(np.asarray(x, float), 0.0, 1.0).reshape(4, self.jobs)
        jobs = []
        for k in range(self.jobs):
            gpus = self.demands[min(int(x[2, k] * len(self.demands)), len(self.demands) - 1)]
            iterations = int(round(10 ** (1 + 2 * x[1, k])))
            factor = self.prediction_error ** (2 * x[3, k] - 1)
            edge = 2 * (gpus - 1) / gpus * self.model_bytes
            jobs.append(SrptJob(id=k, arrival=float(self.horizon * x[0, k]), gpus=gpus, plan="data", graph="ring",
                                edges=make_job_edges("ring", gpus, edge), compute_s=1.0, iterations=iterations,
                                predicted_iterations=iterations * factor))
        return SrptInstance(gpus_per_server=(self.gpus_per_server,) * self.servers, intra_bandwidth=self.intra,
                            inter_bandwidth=self.inter, restart_overhead=self.restart_overhead, jobs=jobs,
                            name=f"adversary-{self.method}")

    def encode(self, instance: SrptInstance) -> np.ndarray:
        x = np.full((4, self.jobs), 0.5)
        for k, job in enumerate(instance.jobs[:self.jobs]):
            x[0, k] = job.arrival / self.horizon
            x[1, k] = (math.log10(job.iterations) - 1) / 2
            x[2, k] = (self.demands.index(job.gpus) + 0.5) / len(self.demands) if job.gpus in self.demands else 0.5
            x[3, k] = (math.log(job.predicted_iterations / job.iterations, self.prediction_error) + 1) / 2
        return np.clip(x.ravel(), 0.0, 1.0)

    def evaluate(self, instance: SrptInstance) -> tuple[float, float]:
        alg = solve(instance, self.method).objective
        if self.reference_method != "opt":
            return solve(instance, self.reference_method).objective, alg
        opt = solve(instance, "milp", time_limit=self.opt_time_limit)
        if opt.objective is None:   # no schedule in the time given: ALG itself, the ratio 1 (under-states)
            self.unproven += 1
            return alg, alg
        if opt.status == "optimal":
            self.proven += 1
        else:
            self.unproven += 1
        return opt.objective, alg
