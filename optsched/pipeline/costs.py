"""The per-stage cost model of a pipeline plan (``docs/pipeline_simulation.md``), shared by the
problems that plan a pipeline and those that schedule a plan.

A plan cuts the chain into K stages; stage k covers positions ``[start_k, end_k)`` and runs on
``replicas_k`` devices ``devices_k``. With the chain's costs scaled to the microbatch
(``microbatch_size / profile_batch``, [ours, as DAPPLE assumes]):

* F_k = sum of forward times / (replicas_k * min speed of devices_k)           [ours]
* B_k = sum of backward times / (replicas_k * min speed of devices_k)          [ours]
* x_k = activation bytes after position end_k - 1 / bw(devices_k, devices_k+1), where
  bw(S, S') is the smallest widest-path bandwidth over pairs (d in S, d' in S') [ours]
* AR_k = 2 (replicas_k - 1) / replicas_k * parameter bytes_k / bw(devices_k), the ring
  all-reduce time with bw(S) the smallest widest-path bandwidth between two replicas (0 when
  replicas_k = 1) [ours]
* stash per device = stash bytes of the stage per microbatch / replicas_k (each replica keeps
  its share of a microbatch) [ours]

Objectives: :func:`bottleneck` and :func:`sync_estimate`, as stated here and on the pages of the
problems that plan a pipeline [ours].

>>> st = StageTimes(forward=(1.0, 1.0), backward=(2.0, 2.0), transfer=(0.5,), allreduce=(0.0, 0.0),
...                 replicas=(1, 1), stash_bytes=(0.0, 0.0), parameter_bytes=(0.0, 0.0),
...                 memory_bytes=(1.0, 1.0))
>>> bottleneck(st), sync_estimate(st, microbatches=4)
(3.0, 16.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["StageTimes", "stage_times", "stage_times_of", "bottleneck", "sync_estimate", "inflight",
           "memory_required", "allreduce_time", "group_bandwidth", "cross_bandwidth"]


@dataclass(frozen=True)
class StageTimes:
    """Per-stage times of a plan (seconds per microbatch; ``allreduce`` once per iteration)."""

    forward: tuple[float, ...]
    backward: tuple[float, ...]
    transfer: tuple[float, ...]  # K - 1 entries, stage k -> k + 1 per microbatch
    allreduce: tuple[float, ...]
    replicas: tuple[int, ...]
    stash_bytes: tuple[float, ...]  # activation bytes kept per in-flight microbatch, per device
    parameter_bytes: tuple[float, ...]  # parameter bytes of the stage (each replica holds all)
    memory_bytes: tuple[float, ...]  # per-device capacity of each stage's devices (min over replicas)

    @property
    def num_stages(self) -> int:
        return len(self.forward)


def group_bandwidth(widest: np.ndarray, devices: Sequence[int]) -> float:
    """Smallest widest-path bandwidth between two devices of the group (inf for one device)."""
    d = np.asarray(devices)
    if d.size < 2:
        return float("inf")
    sub = widest[np.ix_(d, d)]
    return float(sub[~np.eye(d.size, dtype=bool)].min())


def cross_bandwidth(widest: np.ndarray, a: Sequence[int], b: Sequence[int]) -> float:
    """Smallest widest-path bandwidth between a device of ``a`` and a device of ``b``."""
    return float(widest[np.ix_(np.asarray(a), np.asarray(b))].min())


def allreduce_time(parameter_bytes: float, replicas: int, bandwidth: float) -> float:
    """Ring all-reduce of ``parameter_bytes`` over ``replicas`` at ``bandwidth`` [ours]."""
    if replicas <= 1:
        return 0.0
    return 2.0 * (replicas - 1) / replicas * parameter_bytes / bandwidth


def stage_times_of(instance, bounds: Sequence[tuple[int, int]], groups: Sequence[Sequence[int]]) -> StageTimes:
    """StageTimes of stages ``bounds[k] = (start, end)`` on device ``groups[k]`` (no validation)."""
    c = instance.cumulative
    speed = instance.speed_array
    mem = instance.memory_array
    widest = instance.widest
    act = instance.scaled["activation_bytes"]
    fwd, bwd, ar, reps, stash, par, memory, xfer = [], [], [], [], [], [], [], []
    for k, ((s, e), g) in enumerate(zip(bounds, groups)):
        g = list(g)
        r = len(g)
        sp = float(speed[g].min())
        fwd.append((c["forward_s"][e] - c["forward_s"][s]) / (r * sp))
        bwd.append((c["backward_s"][e] - c["backward_s"][s]) / (r * sp))
        p = float(c["parameter_bytes"][e] - c["parameter_bytes"][s])
        ar.append(allreduce_time(p, r, group_bandwidth(widest, g)))
        reps.append(r)
        stash.append(float(c["stash_bytes"][e] - c["stash_bytes"][s]) / r)
        par.append(p)
        memory.append(float(mem[g].min()))
        if k + 1 < len(bounds):
            xfer.append(float(act[e - 1]) / cross_bandwidth(widest, g, groups[k + 1]))
    return StageTimes(tuple(fwd), tuple(bwd), tuple(xfer), tuple(ar), tuple(reps), tuple(stash), tuple(par),
                      tuple(memory))


def stage_times(instance, solution) -> StageTimes:
    """The StageTimes of a chain-partition plan (:mod:`.partition.instance`; ``cuts``, ``devices``).

    The solution must be structurally valid (the checker says so first); this function does not
    re-validate it.
    """
    cuts = list(solution["cuts"])
    ends = cuts + [instance.num_positions]
    starts = [0] + cuts
    return stage_times_of(instance, list(zip(starts, ends)), solution["devices"])


def bottleneck(st: StageTimes) -> float:
    """max_k max(F_k + B_k + AR_k, x_k): PipeDream's asynchronous steady-state objective
    (AR_k charged per microbatch, PipeDream's convention)."""
    stage = max(f + b + a for f, b, a in zip(st.forward, st.backward, st.allreduce))
    return max([stage, *st.transfer])


def sync_estimate(st: StageTimes, microbatches: int) -> float:
    """sum_k (F_k + B_k) + 2 sum_{k<K} x_k + (M - 1) max_k (F_k + B_k)
    + max(0, max_k (AR_k - sum_{j<k} (B_j + x_j))): the synchronous iteration estimate."""
    work = [f + b for f, b in zip(st.forward, st.backward)]
    residual, prefix = 0.0, 0.0
    for k, a in enumerate(st.allreduce):
        residual = max(residual, a - prefix)
        prefix += st.backward[k] + (st.transfer[k] if k < len(st.transfer) else 0.0)
    return sum(work) + 2.0 * sum(st.transfer) + (microbatches - 1) * max(work) + residual


def inflight(num_stages: int, microbatches: int, schedule: str = "1f1b", group_size: int = 1) -> list[int]:
    """Microbatches in flight at each stage (0-based k): GPipe M [paper]; 1F1B K - k [code];
    kFkB group_size (K - k) [ours]; each capped at M [ours]."""
    if schedule == "gpipe":
        return [microbatches] * num_stages
    per = 1 if schedule == "1f1b" else group_size
    return [min(microbatches, per * (num_stages - k)) for k in range(num_stages)]


def memory_required(st: StageTimes, microbatches: int, optimizer_factor: float, schedule: str = "1f1b",
                    group_size: int = 1) -> list[float]:
    """Bytes each device of stage k needs: parameters x optimizer_factor + in-flight x stash."""
    live = inflight(st.num_stages, microbatches, schedule, group_size)
    return [p * optimizer_factor + n * s for p, n, s in zip(st.parameter_bytes, live, st.stash_bytes)]
