"""Per-iteration time of a ring-all-reduce (RAR) job: the one timing model of the RAR scheduling
problems, offline and online (docs ``docs/ring_allreduce_timing.md``).

A job with model size ``m`` bytes on ``w`` workers runs iterations of length (seconds)::

    tau = (m / w) * 2 (w - 1) / B  +  (m / w) * (w - 1) / red  +  ovh  +  compute

[paper: MobiHoc'22; units ours]: the ring's ``2 (w - 1)`` transfers of ``m / w`` bytes at
bandwidth ``B`` (bytes/s), ``(w - 1)`` reductions of ``m / w`` bytes at speed ``red`` (bytes/s),
a per-server overhead ``ovh`` (s) and the forward/backward compute ``df * mb + db`` (s).

The bandwidth ``B`` is where the two variants differ:

* contention (SJF-BCO): ``B = b_in`` when the ring stays inside one server, else
  ``b_ex / pen(cont)`` with ``cont = max(1, xi1 * p)`` for ``p`` jobs sharing the busiest
  server the ring spans ([ours]: the floor at 1; the paper's ``xi1 * p`` alone can fall below 1)
  and ``pen(k) = k + theta (k - 1)``; ``ovh = xi2 * servers`` when spread;
* reserved (GADGET): ``B = b_in`` inside a server, else the job's reserved bandwidth; no
  contention, no overhead.

>>> tau = iteration_time(model_bytes=1e8, workers=4, compute_s=0.2, bandwidth=1e10,
...                      reduction_speed=5e10)
>>> round(tau, 6)     # 2 * 3 * 2.5e7 / 1e10 + 3 * 2.5e7 / 5e10 + 0.2
0.2165
>>> contention_degree(sharing=3, xi1=0.5), penalty(1.5, theta=0.5)
(1.5, 1.75)
>>> iterations_per_slot(0.2165, slot_s=60.0)
277
"""

from __future__ import annotations

import math

__all__ = ["iteration_time", "contention_degree", "penalty", "spread_bandwidth",
           "iterations_per_slot"]


def contention_degree(sharing: int, xi1: float) -> float:
    """``cont = max(1, xi1 * sharing)``: the contention degree of a spread ring (>= 1, [ours] floor).

    ``sharing`` is ``p_j``: the largest number of spread jobs (the job included) on one of the
    servers the job spans.
    """
    return max(1.0, xi1 * sharing)


def penalty(contention: float, theta: float) -> float:
    """``pen(k) = k + theta (k - 1)``: the bandwidth penalty of contention degree ``k`` (>= 1)."""
    return contention + theta * (contention - 1.0)


def spread_bandwidth(b_ex: float, sharing: int, xi1: float, theta: float) -> float:
    """Inter-server bandwidth of a spread ring under contention: ``b_ex / pen(cont)``."""
    return b_ex / penalty(contention_degree(sharing, xi1), theta)


def iteration_time(*, model_bytes: float, workers: int, compute_s: float, bandwidth: float,
                   reduction_speed: float, overhead_s: float = 0.0) -> float:
    """Seconds per iteration of an RAR job on ``workers`` GPUs (formula in the module docstring).

    One worker has no ring: its time is ``compute_s + overhead_s``.
    """
    if workers <= 1:
        return compute_s + overhead_s
    chunk = model_bytes / workers
    return (chunk * 2 * (workers - 1) / bandwidth + chunk * (workers - 1) / reduction_speed
            + overhead_s + compute_s)


def iterations_per_slot(tau: float, slot_s: float) -> int:
    """``floor(slot_s / tau)``: whole iterations per slot (>= 1 on valid instances).

    A relative 1e-12 guards against ``slot_s / tau`` landing a rounding error below an integer
    (e.g. ``0.3 / 0.1 = 2.9999999999999996``).
    """
    return int(math.floor(slot_s / tau * (1 + 1e-12)))
