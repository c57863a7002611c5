"""Ada-Grouper under network preemption: choose the kFkB group size per iteration.

Problem [paper: Ada-Grouper abstract, arXiv 2303.01675; everything quantitative here is ours]:
a pipeline trains for ``iterations`` synchronous iterations while the bandwidth of each
inter-stage link changes over time (another job preempts the network for some periods). With
kFkB of group size g, stage k keeps up to g (K - k) microbatches in flight, which hides more
transfer latency but needs more memory; the memory cap bounds g. A policy picks g before every
iteration.

Model [ours]:

* A :class:`BandwidthTrace` gives the bandwidth of every link (bytes/s) in consecutive periods of
  ``period`` seconds (the last period extends to infinity).
* An iteration that starts at time t runs with the bandwidths of the period containing t
  (iterations are assumed short next to a period): transfer of link k = ``activation_bytes[k]
  / bandwidth[k]`` in both directions, and its time is the exact simulated kFkB makespan
  (:func:`~optsched.simulation.pipeline.simulate`).
* Changing g between two iterations costs ``switch_cost`` seconds (re-planning and buffer
  re-allocation; a stated constant, not measured), charged before the iteration; changes happen
  only at iteration boundaries.
* Memory: a group size g is run with the fewest microbatches whose kFkB order fits every
  stage's memory (larger g keeps more microbatches in flight, so it needs smaller ones, which
  compute less efficiently: the trade-off against hiding transfers); group sizes that fit no
  microbatch count are not candidates, so no policy can exceed memory.

Policies:

* :class:`FixedPolicy` (``FixedPolicy(1)`` is 1F1B);
* :class:`AdaptivePolicy` (reconstruction of Ada-Grouper's idea, details ours): it sees only the
  bandwidths of the periods that ended before the iteration starts (``history``; the nominal
  bandwidth before any has ended), predicts each candidate's iteration time with the last
  period's bandwidth, and switches to the best one when the predicted saving over one period's
  worth of iterations exceeds the switch cost;
* :class:`OraclePolicy`: knows the trace; it applies the same amortized switching rule with the
  true bandwidth and the true time until the best group size changes (a clairvoyant reference,
  not a proven optimum over the whole run: with switch costs and start-time-dependent periods
  the exact optimum is a hard sequencing problem we do not solve).

>>> setting = example_setting()
>>> trace = preemption_trace(0, links=setting.stages - 1, periods=40, period=5.0, base_bandwidth=1.25e9)
>>> fixed = run_policy(setting, trace, FixedPolicy(1))
>>> ada = run_policy(setting, trace, AdaptivePolicy())
>>> ada.total_time < fixed.total_time and bool((ada.peak_memory <= setting.memory_bytes).all())
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng
from optsched.simulation.pipeline import Timing, named_order, peak_inflight, simulate_order

__all__ = ["BandwidthTrace", "preemption_trace", "AdaGrouperSetting", "example_setting", "FixedPolicy",
           "AdaptivePolicy", "OraclePolicy", "AdaRun", "run_policy"]

PROBLEM = "pipeline-adaptive"


@dataclass(frozen=True)
class BandwidthTrace:
    """Bandwidth (bytes/s) of each link in consecutive periods: ``bandwidth[p, link]``."""

    period: float
    bandwidth: np.ndarray

    def __post_init__(self):
        bw = np.asarray(self.bandwidth, float)
        if bw.ndim != 2 or bw.shape[0] < 1:
            raise InvalidInstanceError(PROBLEM, "trace.bandwidth", "must be a (periods, links) array", bw.shape)
        if not np.all(np.isfinite(bw)) or np.any(bw <= 0):
            raise InvalidInstanceError(PROBLEM, "trace.bandwidth", "must be finite and > 0")
        if not self.period > 0:
            raise InvalidInstanceError(PROBLEM, "trace.period", "must be > 0", self.period)
        object.__setattr__(self, "bandwidth", bw)

    def period_index(self, time: float) -> int:
        """The period containing ``time`` (the last period extends to infinity)."""
        return min(int(time // self.period), self.bandwidth.shape[0] - 1)


def preemption_trace(seed: int, *, links: int, periods: int, period: float, base_bandwidth: float,
                     preempt_probability: float = 0.15, mean_preemption: float = 4.0,
                     preempted_share: tuple[float, float] = (0.05, 0.3)) -> BandwidthTrace:
    """A seeded on/off preemption trace [ours]: each link, independently per period, starts a
    preemption with probability ``preempt_probability``; a preemption lasts a geometric number of
    periods of mean ``mean_preemption`` and leaves the link a share ``U(preempted_share)`` of
    ``base_bandwidth``; otherwise the link has ``U(0.9, 1.0)`` of it."""
    rng = make_rng(seed, "adagrouper-trace", links, periods)
    bw = base_bandwidth * rng.uniform(0.9, 1.0, (periods, links))
    for link in range(links):
        p = 0
        while p < periods:
            if rng.random() < preempt_probability:
                length = int(rng.geometric(1.0 / mean_preemption))
                bw[p:p + length, link] = base_bandwidth * rng.uniform(*preempted_share)
                p += length
            else:
                p += 1
    return BandwidthTrace(period, bw)


@dataclass(frozen=True)
class AdaGrouperSetting:
    """A pipeline of K stages trained under a trace, per-sample costs [ours]:

    a microbatch of b samples takes ``overhead[k] + b forward_per_sample[k]`` forward and
    ``overhead[k] + b backward_per_sample[k]`` backward on stage k (the fixed overhead is why
    small microbatches are less efficient), sends ``b activation_bytes_per_sample[l]`` over link l
    each way, and stashes ``b stash_bytes_per_sample[k]`` per in-flight microbatch, within
    ``memory_bytes[k]``. The iteration processes ``global_batch`` samples.

    The memory limit ties the group size g to the microbatch count: for each g in
    ``group_sizes`` the pipeline uses the fewest microbatches M (a divisor of the global batch,
    M >= g) whose kFkB order fits memory at every stage; g is a candidate if some M fits.
    """

    forward_per_sample: tuple[float, ...]
    backward_per_sample: tuple[float, ...]
    overhead: tuple[float, ...]
    allreduce: tuple[float, ...]
    activation_bytes_per_sample: tuple[float, ...]
    stash_bytes_per_sample: tuple[float, ...]
    memory_bytes: tuple[float, ...]
    global_batch: int
    group_sizes: tuple[int, ...]
    switch_cost: float
    iterations: int
    nominal_bandwidth: float
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        K = len(self.forward_per_sample)
        for name in ("backward_per_sample", "overhead", "allreduce", "stash_bytes_per_sample", "memory_bytes"):
            if len(getattr(self, name)) != K:
                raise InvalidInstanceError(PROBLEM, name, f"must have {K} entries", len(getattr(self, name)))
        if len(self.activation_bytes_per_sample) != K - 1:
            raise InvalidInstanceError(PROBLEM, "activation_bytes_per_sample", f"must have {K - 1} entries",
                                       len(self.activation_bytes_per_sample))
        for name in ("forward_per_sample", "backward_per_sample", "overhead", "allreduce",
                     "activation_bytes_per_sample", "stash_bytes_per_sample", "memory_bytes"):
            values = np.asarray(getattr(self, name), float)
            if not np.all(np.isfinite(values)) or np.any(values < 0):
                raise InvalidInstanceError(PROBLEM, name, "must be finite and >= 0")
        if self.switch_cost < 0:
            raise InvalidInstanceError(PROBLEM, "switch_cost", "must be >= 0", self.switch_cost)
        if self.iterations < 1:
            raise InvalidInstanceError(PROBLEM, "iterations", "must be >= 1", self.iterations)
        if not self.group_sizes or min(self.group_sizes) < 1:
            raise InvalidInstanceError(PROBLEM, "group_sizes", "must list integers >= 1", self.group_sizes)
        if not self.candidates:
            raise InvalidInstanceError(PROBLEM, "memory_bytes", "no group size fits the memory limit")

    @property
    def stages(self) -> int:
        return len(self.forward_per_sample)

    def memory_use(self, group_size: int, microbatches: int) -> np.ndarray:
        """Peak stash bytes per stage of kFkB(group_size) with ``microbatches`` microbatches (memoized:
        a run asks for it once per iteration)."""
        key = ("memory", group_size, microbatches)
        if key not in self._cache:
            kind, _ = named_order("kfkb", self.stages, microbatches, group_size)
            self._cache[key] = (peak_inflight(kind) * (self.global_batch / microbatches)
                                * np.asarray(self.stash_bytes_per_sample))
        return self._cache[key]

    @cached_property
    def microbatches_for(self) -> dict[int, int]:
        """Group size -> the fewest microbatches that fit memory (only the group sizes that fit)."""
        out = {}
        divisors = [d for d in range(1, self.global_batch + 1) if self.global_batch % d == 0]
        for g in self.group_sizes:
            for M in divisors:
                if M >= g and np.all(self.memory_use(g, M) <= np.asarray(self.memory_bytes)):
                    out[g] = M
                    break
        return out

    @property
    def candidates(self) -> tuple[int, ...]:
        """Group sizes that fit memory (memory-safe choices)."""
        return tuple(self.microbatches_for)

    def iteration_time(self, group_size: int, bandwidth: np.ndarray) -> float:
        """Exact kFkB makespan with the transfers of ``bandwidth`` (memoized)."""
        key = (group_size, tuple(np.asarray(bandwidth, float).tolist()))
        if key not in self._cache:
            M = self.microbatches_for[group_size]
            b = self.global_batch / M
            over = np.asarray(self.overhead, float)
            timing = Timing(over + b * np.asarray(self.forward_per_sample, float),
                            over + b * np.asarray(self.backward_per_sample, float),
                            b * np.asarray(self.activation_bytes_per_sample, float) / np.asarray(bandwidth, float),
                            np.asarray(self.allreduce, float))
            kind, mb = named_order("kfkb", self.stages, M, group_size)
            self._cache[key] = simulate_order(timing, M, kind, mb).makespan
        return self._cache[key]


def example_setting(*, iterations: int = 120, switch_cost: float = 0.5) -> AdaGrouperSetting:
    """A 4-stage pipeline [ours]: 2-3 ms per sample forward, twice that backward, 4 ms overhead
    per task, 2.5 MB of activations per sample and link, 40 MB stashed per sample and stage,
    memory for 64 stashed samples per stage, a global batch of 128, group sizes 1-8.
    At 1.25 GB/s group size 2 is fastest; as bandwidth drops the best group size grows."""
    K = 4
    f = (2.0e-3, 3.0e-3, 2.5e-3, 2.2e-3)
    return AdaGrouperSetting(forward_per_sample=f, backward_per_sample=tuple(2 * v for v in f),
                             overhead=(4e-3,) * K, allreduce=(0.0,) * K,
                             activation_bytes_per_sample=(2.5e6,) * (K - 1),
                             stash_bytes_per_sample=(40e6,) * K, memory_bytes=(64 * 40e6,) * K,
                             global_batch=128, group_sizes=(1, 2, 3, 4, 6, 8), switch_cost=switch_cost,
                             iterations=iterations, nominal_bandwidth=1.25e9)


class FixedPolicy:
    """Always the same group size (1 = 1F1B)."""

    def __init__(self, group_size: int):
        self.group_size = group_size
        self.name = "1f1b" if group_size == 1 else f"kfkb-{group_size}"

    def choose(self, setting: AdaGrouperSetting, history: np.ndarray, current: int | None, now: float,
               period: float) -> int:
        if self.group_size not in setting.candidates:
            raise InvalidOptionError(PROBLEM, "group_size", f"{self.group_size} does not fit the memory cap "
                                       f"(fitting: {list(setting.candidates)})", self.group_size)
        return self.group_size


class AdaptivePolicy:
    """Past-only adaptive group size (see the module docstring): predict with the last ended
    period's bandwidth; switch when (predicted saving per iteration) x (iterations per period at
    the new size) exceeds the switch cost."""

    name = "ada-grouper"

    def choose(self, setting: AdaGrouperSetting, history: np.ndarray, current: int | None, now: float,
               period: float) -> int:
        estimate = history[-1] if history.shape[0] else np.full(setting.stages - 1, setting.nominal_bandwidth)
        predicted = {g: setting.iteration_time(g, estimate) for g in setting.candidates}
        best = min(predicted, key=lambda g: (predicted[g], g))
        if current is None:
            return best
        saving = (predicted[current] - predicted[best]) * period / predicted[best]
        return best if saving > setting.switch_cost else current


class OraclePolicy:
    """Clairvoyant reference: it knows the trace. Before each iteration it takes the group size
    g* fastest at the true current bandwidth and switches to it when the true saving over the
    time until g* stops being the fastest (read from the future trace) exceeds the switch cost.
    The same amortization rule as :class:`AdaptivePolicy` with perfect information; not a proven
    optimum over the whole run."""

    name = "oracle"

    def __init__(self, trace: BandwidthTrace):
        self.trace = trace

    def _best(self, setting: AdaGrouperSetting, p: int) -> tuple[int, dict]:
        times = {g: setting.iteration_time(g, self.trace.bandwidth[p]) for g in setting.candidates}
        return min(times, key=lambda g: (times[g], g)), times

    def choose(self, setting: AdaGrouperSetting, history: np.ndarray, current: int | None, now: float,
               period: float) -> int:
        p = self.trace.period_index(now)
        best, times = self._best(setting, p)
        if current is None or current == best:
            return best
        last = self.trace.bandwidth.shape[0] - 1
        q = p
        while q < last and self._best(setting, q + 1)[0] == best:
            q += 1
        horizon = (q + 1) * period - now if q < last else math.inf
        saving = (times[current] - times[best]) * horizon / times[best]
        return best if saving > setting.switch_cost else current


@dataclass(frozen=True)
class AdaRun:
    """One run: per-iteration group size, time (switch cost included) and start; totals;
    ``peak_memory`` the largest stash bytes per stage over the run."""

    policy: str
    group_sizes: np.ndarray
    iteration_times: np.ndarray
    starts: np.ndarray
    switches: int
    total_time: float
    peak_memory: np.ndarray

    @property
    def mean_iteration_time(self) -> float:
        return self.total_time / self.group_sizes.size


def run_policy(setting: AdaGrouperSetting, trace: BandwidthTrace, policy, poll=None) -> AdaRun:
    """Run ``setting.iterations`` iterations under ``trace``. Before each iteration the policy gets
    ``history = trace.bandwidth[:p]`` with p the period in which the iteration starts (only the
    periods already over), its current group size and the time. ``poll`` (a clock check that
    raises) is called every 256 iterations."""
    if trace.bandwidth.shape[1] != setting.stages - 1:
        raise InvalidInstanceError(PROBLEM, "trace.bandwidth", f"must have {setting.stages - 1} links",
                                   trace.bandwidth.shape[1])
    now, current, switches = 0.0, None, 0
    sizes, times, starts = [], [], []
    peak = np.zeros(setting.stages)
    for it in range(setting.iterations):
        if poll is not None and not it % 256:
            poll()
        p = trace.period_index(now)
        ended = min(int(now // trace.period), trace.bandwidth.shape[0])
        g = policy.choose(setting, trace.bandwidth[:ended], current, now, trace.period)
        if g not in setting.candidates:
            raise InvalidInstanceError(PROBLEM, "group_size", f"policy {policy.name} chose {g}, which does not fit "
                                       "the memory cap", g)
        switched = current is not None and g != current
        switches += switched
        peak = np.maximum(peak, setting.memory_use(g, setting.microbatches_for[g]))
        duration = (setting.switch_cost if switched else 0.0) + setting.iteration_time(g, trace.bandwidth[p])
        sizes.append(g)
        times.append(duration)
        starts.append(now)
        now += duration
        current = g
    return AdaRun(policy.name, np.array(sizes), np.array(times), np.array(starts), int(switches), now, peak)
