"""The public planners as baselines, each choosing a plan by its own rule; every plan is then
costed by the one optsched cost model and checker (memory included: a baseline that ignores
memory can return a plan the checker rejects, and the result says so).

* ``uniform``: equal numbers of positions per stage, one device per stage [ours].
* ``param-balanced``: contiguous partition minimizing the largest stage parameter bytes
  (DeepSpeed's parameter balance [code]; optsched solves the min-max exactly, DeepSpeed's current
  ``partition_balanced`` minimizes max - min, an older one bisects the maximum).
* ``time-balanced``: contiguous partition minimizing the largest stage *forward* time
  (torchgpipe's balance by time [code] times forward passes only; optsched solves the min-max
  exactly instead of torchgpipe's Barany-Grinberg block heuristic).
* ``pipedream``: PipeDream's DP [code: ``optimizer_graph_hierarchical.py``, one level]: stage time
  with r replicas (compute + 4 (r-1) params / (r bw)) / r, transfers ignored (PipeDream's default),
  fewer machines allowed, no memory constraint; bw = the smallest widest-path bandwidth of the
  graph; on optsched's chain. Replicated stages take consecutive blocks of the device order.
* ``dapple``: DAPPLE-style planner [reconstruction]: for every K and replication r = N // K per
  stage, the time-balanced partition of (F + B) / r, stages placed on consecutive blocks of the
  bandwidth-greedy device order (whole servers first), ranked by the synchronous latency estimate
  (warm-up + (M - 1) pivot + drain + residual all-reduce: the ``sync-estimate`` formula); plans
  that fit memory rank before plans that do not.

When the instance leaves K free, ``uniform``, ``param-balanced`` and ``time-balanced`` use
K = min(n, N).
"""

from __future__ import annotations

import numpy as np

from optsched.pipeline import costs
from optsched.pipeline.partition.dp import Plan, heuristic_order

from .instance import PipelinePartitionInstance

__all__ = ["uniform_plan", "minmax_partition", "param_balanced_plan", "time_balanced_plan", "pipedream_plan",
           "dapple_plan", "pipedream_dp"]


def _one_device_per_stage(bounds: list[tuple[int, int]]) -> Plan:
    return Plan(bounds, [[k] for k in range(len(bounds))])


def _stages(instance: PipelinePartitionInstance) -> int:
    return instance.stages or instance.max_stages


def uniform_plan(instance: PipelinePartitionInstance) -> Plan:
    """Stage k gets positions [k n / K, (k+1) n / K) (integer division), device k."""
    n, K = instance.num_positions, _stages(instance)
    edges = [(k * n) // K for k in range(K + 1)]
    return _one_device_per_stage(list(zip(edges[:-1], edges[1:])))


#: the O(n^2)-memory baselines (``param-balanced``, ``time-balanced``, ``dapple``) apply up to this
#: many positions: three (n + 1)^2 float64 matrices, 600 MB at 5,000 [ours]
MINMAX_MAX_POSITIONS = 5000


def minmax_partition(cumulative: np.ndarray, num_parts: int, poll=None) -> list[tuple[int, int]]:
    """Exact contiguous partition of n weights (prefix sums ``cumulative``, length n + 1) into
    ``num_parts`` non-empty parts minimizing the largest part sum; O(K n^2) time, O(n^2) memory
    with numpy. ``poll`` (the caller's clock check, raising to stop) runs once per part."""
    n = len(cumulative) - 1
    part = cumulative[None, :] - cumulative[:, None]
    part = np.where(np.triu(np.ones((n + 1, n + 1), bool), 1), part, np.inf)
    value = part[0].copy()  # one part covering [0, j)
    choice = []
    for _ in range(1, num_parts):
        if poll is not None:
            poll()
        total = np.maximum(value[:, None], part)
        arg = np.argmin(total, axis=0)
        value = total[arg, np.arange(n + 1)]
        choice.append(arg)
    bounds, j = [], n
    for arg in reversed(choice):
        i = int(arg[j])
        bounds.append((i, j))
        j = i
    bounds.append((0, j))
    return bounds[::-1]


def param_balanced_plan(instance: PipelinePartitionInstance, poll=None) -> Plan:
    return _one_device_per_stage(minmax_partition(instance.cumulative["parameter_bytes"], _stages(instance), poll))


def time_balanced_plan(instance: PipelinePartitionInstance, poll=None) -> Plan:
    return _one_device_per_stage(minmax_partition(instance.cumulative["forward_s"], _stages(instance), poll))


def pipedream_dp(work: np.ndarray, params: np.ndarray, machines: int, bandwidth: float, poll=None
                 ) -> tuple[float, list[tuple[int, int]], list[int]]:
    """PipeDream's one-level DP on a chain (prefix sums ``work`` of fw + bw and ``params``).

    A[j][m] = best pipeline time of positions [0, j] on m + 1 machines: a single stage
    (work + 4 m P / (bw (m + 1))) / (m + 1), the value with one machine fewer, or a last stage
    (k, j] on m' machines after A[k][m - m']; transfers ignored (PipeDream's default). Returns
    (A[n-1][machines-1], stage bounds, replication factors). O(n^2 N^2) with numpy over k.
    ``poll`` (the caller's clock check, raising to stop) runs once per (machines, position).
    """
    n = len(work) - 1
    INF = np.inf
    A = np.full((n, machines), INF)
    split = np.full((n, machines), -1)
    used = np.zeros((n, machines), int)
    for m in range(machines):
        r = m + 1
        A[:, m] = (work[1:] + 4.0 * m * params[1:] / (bandwidth * r)) / r
        used[:, m] = r
    for m in range(1, machines):
        for j in range(1, n):
            if poll is not None:
                poll()
            best, best_split, best_used = A[j, m], -1, used[j, m]
            if A[j, m - 1] < best:
                best, best_split, best_used = A[j, m - 1], split[j, m - 1], used[j, m - 1]
            ks = np.arange(j)
            for mp in range(1, m + 1):
                last = ((work[j + 1] - work[ks + 1]) + 4.0 * (mp - 1) * (params[j + 1] - params[ks + 1])
                        / (bandwidth * mp)) / mp
                total = np.maximum(A[ks, m - mp], last)
                k = int(np.argmin(total))
                if total[k] < best:
                    best, best_split, best_used = float(total[k]), k * machines + (m - mp), mp
            A[j, m], split[j, m], used[j, m] = best, best_split, best_used
    # walk back from (n - 1, machines - 1)
    bounds, reps = [], []
    j, m = n - 1, machines - 1
    value = float(A[j, m])
    while True:
        s = int(split[j, m])
        r = int(used[j, m])
        if s < 0:
            bounds.append((0, j + 1))
            reps.append(r)
            break
        k, m_rest = divmod(s, machines)
        bounds.append((k + 1, j + 1))
        reps.append(r)
        j, m = k, m_rest
    return value, bounds[::-1], reps[::-1]


def pipedream_plan(instance: PipelinePartitionInstance, poll=None) -> tuple[Plan, float]:
    """PipeDream's plan (devices: consecutive blocks of the bandwidth-greedy order) and
    PipeDream's own predicted bottleneck."""
    c = instance.cumulative
    N = instance.num_devices
    wide = instance.widest[~np.eye(N, dtype=bool)]
    bandwidth = float(wide.min()) if wide.size else 1.0
    machines = min(N, instance.replica_limit * instance.num_positions)
    value, bounds, reps = pipedream_dp(c["forward_s"] + c["backward_s"], c["parameter_bytes"], machines, bandwidth,
                                       poll)
    reps = [min(r, instance.replica_limit) for r in reps]
    order = heuristic_order(instance) if not instance.is_uniform else list(range(N))
    groups, at = [], 0
    for r in reps:
        groups.append(order[at:at + r])
        at += r
    return Plan(bounds, groups), value


def dapple_plan(instance: PipelinePartitionInstance, poll=None) -> tuple[Plan, float]:
    """The DAPPLE-style plan and its latency estimate (see the module docstring)."""
    N, n = instance.num_devices, instance.num_positions
    order = heuristic_order(instance) if not instance.is_uniform else list(range(N))
    best = (True, np.inf, None)  # (does not fit, estimate, plan): plans that fit memory first
    c = instance.cumulative
    for K in instance.stage_counts():
        r = min(N // K, instance.replica_limit)
        if r < 1 or K > n:
            continue
        bounds = minmax_partition((c["forward_s"] + c["backward_s"]) / r, K, poll)
        groups = [order[k * r:(k + 1) * r] for k in range(K)]
        st = costs.stage_times_of(instance, bounds, groups)
        need = costs.memory_required(st, instance.microbatches, instance.optimizer_factor, instance.schedule,
                                     instance.group_size)
        candidate = (any(q > cap for q, cap in zip(need, st.memory_bytes)),
                     costs.sync_estimate(st, instance.microbatches), Plan(bounds, groups))
        if best[2] is None or candidate[:2] < best[:2]:
            best = candidate
    return best[2], best[1]
