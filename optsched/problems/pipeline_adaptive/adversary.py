"""Bandwidth traces as an adversary encoding for Ada-Grouper's policy [ours].

Ada-Grouper's adaptive policy (:class:`.adagrouper.AdaptivePolicy`) is online in the network: it
sees only the bandwidth of the periods already over. The adversary chooses the trace. A point of
``[0, 1]^(periods * links)`` gives the bandwidth of link l in period p as
``base * (min_share + (1 - min_share) x)`` (default ``min_share = 0.05``: a preempted link keeps 5% of
its nominal bandwidth, as the generator's ``preempted_share``).

Reference (``sense = "min"``, ratio ALG / REF): the best *in hindsight* of the clairvoyant
:class:`.adagrouper.OraclePolicy` and every fixed group size that fits memory, run on the same
trace. It is neither OPT nor a proven lower bound (the exact optimum over switching sequences is not
solved; see :mod:`.adagrouper`), so a ratio says how much the past-only policy loses against those
hindsight choices, and a ratio below 1 is possible.

Ada-Grouper's policy has no registered method and no guarantee; the search reports empirical ratios.
Implements the adapter protocol structurally; imports nothing from ``optsched.online``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .adagrouper import (AdaGrouperSetting, AdaptivePolicy, BandwidthTrace, FixedPolicy, OraclePolicy,
                         example_setting, run_policy)

__all__ = ["AdaGrouperAdversary", "TraceInput"]


@dataclass(frozen=True)
class TraceInput:
    """One adversarial input: the bandwidth trace (the setting is the adapter's)."""

    trace: BandwidthTrace
    problem = "pipeline-adaptive"

    def to_json(self) -> dict:
        return {"period": self.trace.period, "bandwidth": self.trace.bandwidth.tolist()}


class AdaGrouperAdversary:
    """Adapter: Ada-Grouper's adaptive group-size policy against the best hindsight choice.

    >>> a = AdaGrouperAdversary(periods=4, iterations=20)
    >>> ref, alg = a.evaluate(a.decode(np.ones(len(a.bounds))))
    >>> alg >= ref * (1 - 1e-12)
    True
    """

    method = "ada-grouper"
    sense = "min"
    reference = "best in hindsight (oracle or a fixed group size)"

    def __init__(self, setting: AdaGrouperSetting | None = None, *, periods: int = 12, period: float = 5.0,
                 iterations: int = 60, min_share: float = 0.05):
        self.setting = setting or example_setting(iterations=iterations)
        self.periods, self.period, self.min_share = int(periods), float(period), float(min_share)
        self.links = self.setting.stages - 1
        self.base = self.setting.nominal_bandwidth

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(0.0, 1.0)] * (self.periods * self.links)

    def decode(self, x: np.ndarray) -> TraceInput:
        x = np.clip(np.asarray(x, float), 0.0, 1.0).reshape(self.periods, self.links)
        return TraceInput(BandwidthTrace(self.period, self.base * (self.min_share + (1 - self.min_share) * x)))

    def encode(self, instance: TraceInput) -> np.ndarray:
        bw = np.asarray(instance.trace.bandwidth, float)[:self.periods]
        x = np.full((self.periods, self.links), 1.0)
        x[:bw.shape[0]] = (bw / self.base - self.min_share) / (1 - self.min_share)
        return np.clip(x.ravel(), 0.0, 1.0)

    def evaluate(self, instance: TraceInput) -> tuple[float, float]:
        s, trace = self.setting, instance.trace
        alg = run_policy(s, trace, AdaptivePolicy()).total_time
        refs = [run_policy(s, trace, OraclePolicy(trace)).total_time]
        refs += [run_policy(s, trace, FixedPolicy(g)).total_time for g in s.candidates]
        return min(refs), alg
