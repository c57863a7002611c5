"""``bisect``: the exact bottleneck without replication on a uniform device graph, for long chains.

Problem: cut the chain into at most min(n, N) stages (exactly K when the instance fixes it), one
device per stage, minimizing max(max_k (F_k + B_k), max_k x_k), when every device is alike and
every pair of devices has the same widest-path bandwidth bw, and memory cannot bind.

Probe (a threshold T): the cuts allowed at T are those whose transfer act / bw <= T; starting at
position 0, extend the stage as far as its time stays <= T, then cut at the last allowed cut
inside it. Exchange argument: any plan with stages <= T can be moved cut by cut to the greedy one
without adding stages (stage time only grows with the interval), so the greedy count is the
minimum; with K fixed, any further allowed cuts can be added, since splitting a stage never
raises its time. So T is feasible iff greedy count <= K_max and (K fixed) the number of allowed
cuts is >= K - 1.

Search: the shared chain layer (:func:`optsched.chain.min_max_partition`, method ``bisect``) finds
the least feasible threshold with at most K_max stages (equal speeds, transfer times as cut
costs; a stage it leaves empty is simply not used). With K fixed, the least T with K - 1 allowed
cuts is the (K-1)-th smallest transfer time; both conditions are up-closed in T, so the optimum is
the larger of the two values. Exact; O(n log n + log(range) K log n).

>>> from optsched.problems.pipeline_partition.generate import chain_instance
>>> inst = chain_instance([1, 1, 1, 1], stages=2, topology="flat:2:1000", max_replicas=1)
>>> value, cuts = min_bottleneck(inst)
>>> round(value, 9), cuts
(2.0, [2])
"""

from __future__ import annotations

import numpy as np

from optsched.chain import min_max_partition, probe

from .instance import PipelinePartitionInstance

__all__ = ["min_bottleneck", "applicable"]


def applicable(instance: PipelinePartitionInstance) -> tuple[bool, str]:
    if instance.replica_limit != 1 and instance.num_devices > 1:
        return False, "bisect is exact without replication only (set max_replicas = 1)"
    if not instance.is_uniform:
        return False, "bisect needs a uniform device graph (equal devices, equal pairwise bandwidth)"
    c = instance.cumulative
    live = max(instance.inflight(instance.stages or instance.max_stages))
    need = c["parameter_bytes"][-1] * instance.optimizer_factor + live * c["stash_bytes"][-1]
    if need > instance.memory_array.min():
        return False, "bisect assumes memory cannot bind (the whole model fits one device)"
    return True, "uniform graph, no replication, memory cannot bind"


def min_bottleneck(instance: PipelinePartitionInstance) -> tuple[float, list[int]]:
    """(optimal bottleneck, cuts) under the conditions of :func:`applicable`."""
    n, N = instance.num_positions, instance.num_devices
    c = instance.cumulative
    speed = float(instance.speed_array[0])
    W = (c["forward_s"] + c["backward_s"]) / speed
    if N > 1:
        bw = float(instance.widest[0, 1])
        x = np.concatenate([[np.inf], instance.scaled["activation_bytes"][:-1] / bw])  # x[p]: cut before p
    else:
        x = np.full(n, np.inf)
    fixed = instance.stages
    kmax = fixed or min(n, N)
    cut_cost = np.concatenate([x, [np.inf]])  # position n is the chain's end, never a cut
    value = min_max_partition(prefix=W, speeds=np.ones(kmax), cut_cost=cut_cost, method="bisect").value
    if fixed is not None and fixed > 1:
        value = max(value, float(np.sort(x[1:])[fixed - 2]))
    bounds = probe(W, np.ones(kmax), value, cut_cost=cut_cost)
    cuts = sorted({int(b) for b in bounds[1:-1] if 0 < b < n})
    if fixed is not None and len(cuts) < fixed - 1:
        taken = set(cuts)
        extra = [int(p) for p in np.flatnonzero(x <= value) if p > 0 and p not in taken]
        cuts = sorted(cuts + extra[:fixed - 1 - len(cuts)])
    return value, cuts
