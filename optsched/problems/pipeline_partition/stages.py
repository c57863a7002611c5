"""Stage arithmetic shared by the pipeline-partition DPs: prefix sums of the chain, the cost of a
stage ``[i, j)`` on a device group, its memory, and the min-max prefix bound (:class:`StageCosts`)."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from .instance import PipelinePartitionInstance
from .spaces import Group

__all__ = ["StageCosts"]

INF = math.inf


class StageCosts:
    def __init__(self, instance: PipelinePartitionInstance):
        c = instance.cumulative
        self.n = instance.num_positions
        self.fw, self.bw = c["forward_s"], c["backward_s"]
        self.work = self.fw + self.bw
        self.par, self.stash = c["parameter_bytes"], c["stash_bytes"]
        self.act = instance.scaled["activation_bytes"]
        self.opt = instance.optimizer_factor
        self.instance = instance
        self.max_speed = float(instance.speed_array.max())
        self._stage_cache: dict = {}
        self._memory_cache: dict = {}

    def live(self, suffix_stages: int) -> int:
        """In-flight microbatches of a stage followed by ``suffix_stages - 1`` stages."""
        inst = self.instance
        if inst.schedule == "gpipe":
            return inst.microbatches
        per = 1 if inst.schedule == "1f1b" else inst.group_size
        return min(inst.microbatches, per * suffix_stages)

    @cached_property
    def _upper(self) -> np.ndarray:
        return np.triu(np.ones((self.n + 1, self.n + 1), bool), 1)

    @cached_property
    def _differences(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(work, params, stash) of every interval [i, j) as (n+1) x (n+1) matrices."""
        return tuple(v[None, :] - v[:, None] for v in (self.work, self.par, self.stash))

    @cached_property
    def memory_free(self) -> bool:
        """True when even the whole chain on one device fits the smallest memory."""
        inst = self.instance
        live = max(inst.inflight(inst.max_stages)) if inst.schedule != "gpipe" else inst.microbatches
        return bool(self.par[-1] * self.opt + live * self.stash[-1] <= inst.memory_array.min())

    @cached_property
    def prefix_minmax(self) -> np.ndarray:
        """G[p, i]: a lower bound on max_k (F_k + B_k) over plans of positions [0, i) on at most
        p devices: the exact min-max with every device at the fastest speed, no all-reduce,
        transfers or memory (each only raises a stage's time or removes plans). O(N R n^2)."""
        N, R, n = self.instance.num_devices, self.instance.replica_limit, self.n
        work = self._differences[0] / self.max_speed
        G = np.full((N + 1, n + 1), INF)
        G[0, 0] = 0.0
        for p in range(1, N + 1):
            best = G[p - 1].copy()
            for r in range(1, min(p, R) + 1):
                cand = np.where(self._upper, np.maximum(G[p - r][:, None], work / r), INF).min(axis=0)
                best = np.minimum(best, cand)
            G[p] = best
        return G

    def stage_matrix(self, g: Group) -> np.ndarray:
        """(n+1) x (n+1) matrix of F + B + AR of stage [i, j) on group g (inf for j <= i)."""
        key = (g.replicas, g.speed, g.bandwidth)
        if key not in self._stage_cache:
            work, par, _ = self._differences
            value = work / (g.replicas * g.speed)
            if g.replicas > 1:
                value = value + 2.0 * (g.replicas - 1) / g.replicas * par / g.bandwidth
            self._stage_cache[key] = np.where(self._upper, value, INF)
        return self._stage_cache[key]

    def memory_matrix(self, g: Group, live: int) -> np.ndarray | None:
        """Which stages [i, j) fit g's memory with ``live`` microbatches in flight (None: all)."""
        if self.memory_free:
            return None
        key = (g.replicas, g.memory, live)
        if key not in self._memory_cache:
            _, par, stash = self._differences
            self._memory_cache[key] = par * self.opt + live * stash / g.replicas <= g.memory * (1 + 1e-12)
        return self._memory_cache[key]


# -- bottleneck: numpy min-max DP ------------------------------------------------------------------
