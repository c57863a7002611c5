"""The exact MILP of ``pipeline-partition`` for a fixed number of stages K [ours].

Variables (stage k = 0..K-1, position l = 0..n-1, device d, replication r = 1..R):

* ``assign[l, k]`` binary, position l in stage k; ``assign[0, 0] = assign[n-1, K-1] = 1`` and
  ``assign[l, k] <= assign[l-1, k] + assign[l-1, k-1]`` make the stages contiguous, in order and
  non-empty; ``cut[l, k] >= assign[l, k] + assign[l+1, k+1] - 1`` marks the cut after l.
* ``serves[d, k]`` binary, device d runs stage k (each device at most one stage);
  ``replicas[k, r]`` binary, stage k has r replicas (``sum_d serves[d, k] = sum_r r replicas[k, r]``).
* ``forward[k], backward[k], allreduce[k], transfer[k] >= 0`` bounded below by the cost model
  through big-M rows that are active only for the chosen r and devices:
  F_k >= work_k / (r speed_d) - M (2 - replicas[k, r] - serves[d, k]); AR_k >= 2 (r-1)/r
  params_k / bw(d, d') - M (3 - replicas[k, r] - serves[d, k] - serves[d', k]);
  x_k >= sum_l act[l] cut[l, k] / bw(d, d') - M (2 - serves[d, k] - serves[d', k+1]).
  On a uniform graph the device index drops out of these rows.
* memory: params_k opt + live_k stash_k / r <= mem_d + M (2 - replicas[k, r] - serves[d, k]).

Objective ``bottleneck``: min Z with Z >= F_k + B_k + AR_k and Z >= x_k. Objective
``sync-estimate``: min sum_k (F_k + B_k) + 2 sum x_k + (M - 1) T + R with T >= F_k + B_k,
R >= 0, R >= AR_k - sum_{j<k} (B_j + x_j). Every cost variable appears in the objective with a
net non-negative coefficient (B_j and x_j have +1 and +2 in the sums and at most -1 through R),
so raising one above its lower bound never lowers the objective: the optimum of the MILP is the
optimum of the plan's true cost.
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core.linear import LinearModel, ModelBuilder

from .instance import PipelinePartitionInstance

__all__ = ["build_model", "build_model_for", "decode"]


def build_model(instance: PipelinePartitionInstance) -> LinearModel:
    """The MILP for the instance's fixed ``stages`` (export needs a fixed K)."""
    if instance.stages is None:
        raise InvalidOptionError(instance.problem, "stages", "the MILP is one model per number of stages: "
                                   "set 'stages' to export it (the milp method solves every K)")
    return build_model_for(instance, instance.stages)


#: ``milp`` applies when n x min(n, N) <= this (positions x the largest stage count: the
#: assignment columns of the largest K's model, whose rows are built in Python loops) [ours]
MILP_MAX_ASSIGNMENTS = 200_000


def milp_assignments(instance: PipelinePartitionInstance) -> int:
    return instance.num_positions * max(instance.stage_counts(), default=1)


def build_model_for(instance: PipelinePartitionInstance, num_stages: int, poll=None) -> LinearModel:
    """The MILP for K = ``num_stages``; ``poll`` (the caller's clock check, raising to stop) runs
    once per position in the loops over positions."""
    inst = instance
    objective = "bottleneck" if inst.objective == "bottleneck" else "sync-estimate"
    n, N, K, R = inst.num_positions, inst.num_devices, num_stages, inst.replica_limit
    s = inst.scaled
    fw, bw_, par, act, stash = (s["forward_s"], s["backward_s"], s["parameter_bytes"], s["activation_bytes"],
                                s["stash_bytes"])
    speed, mem, wide = inst.speed_array, inst.memory_array, inst.widest
    uniform = inst.is_uniform
    live = inst.inflight(K)
    M = inst.microbatches
    sync = objective == "sync-estimate"
    b = ModelBuilder(f"pipeline-partition-K{K}", "min")
    assign = b.add_block("assign", (n, K), upper=1, integer=True)
    cut = b.add_block("cut", (max(n - 1, 0), max(K - 1, 0)), upper=1)
    serves = b.add_block("serves", (N, K), upper=1, integer=True)
    reps = b.add_block("replicas", (K, R), upper=1, integer=True)
    forward = b.add_block("forward", K, cost=1.0 if sync else 0.0)
    backward = b.add_block("backward", K, cost=1.0 if sync else 0.0)
    allreduce = b.add_block("allreduce", K)
    transfer = b.add_block("transfer", max(K - 1, 0), cost=2.0 if sync else 0.0)
    top = b.add_block("top", 1, cost=float(M - 1) if sync else 1.0)[0]  # max_k (F_k + B_k) or the bottleneck
    residual = b.add_block("residual_allreduce", 1, cost=1.0 if sync else 0.0)[0]

    min_speed = float(speed.min())
    big_f = float(fw.sum()) / min_speed
    big_b = float(bw_.sum()) / min_speed
    pair_bw = wide[~np.eye(N, dtype=bool)]
    min_bw = float(pair_bw.min()) if N > 1 else np.inf
    big_ar = 2.0 * float(par.sum()) / min_bw if N > 1 else 0.0
    big_x = float(act.max()) / min_bw if N > 1 else 0.0
    big_mem = float(par.sum()) * inst.optimizer_factor + max(live) * float(stash.sum())

    rows = b.rows("constraints")
    for l in range(n):  # each position in exactly one stage
        if poll is not None:
            poll()
        rows.add_terms([(assign[l, k], 1.0) for k in range(K)], lower=1.0, upper=1.0)
    rows.add_terms([(assign[0, 0], 1.0)], lower=1.0, upper=1.0)
    rows.add_terms([(assign[n - 1, K - 1], 1.0)], lower=1.0, upper=1.0)
    for l in range(1, n):  # contiguous, in order: l in k => l-1 in k or k-1
        if poll is not None:
            poll()
        for k in range(K):
            terms = [(assign[l, k], 1.0), (assign[l - 1, k], -1.0)]
            if k > 0:
                terms.append((assign[l - 1, k - 1], -1.0))
            rows.add_terms(terms, upper=0.0)
    for l in range(n - 1):
        for k in range(K - 1):
            rows.add_terms([(cut[l, k], 1.0), (assign[l, k], -1.0), (assign[l + 1, k + 1], -1.0)], lower=-1.0)
    for d in range(N):
        rows.add_terms([(serves[d, k], 1.0) for k in range(K)], upper=1.0)
    for k in range(K):
        rows.add_terms([(reps[k, r], 1.0) for r in range(R)], lower=1.0, upper=1.0)
        rows.add_terms([(serves[d, k], 1.0) for d in range(N)] + [(reps[k, r], -(r + 1.0)) for r in range(R)],
                       lower=0.0, upper=0.0)

    def big_m_row(lhs: list, indicators: list, big: float) -> None:
        """lhs >= 0 whenever every indicator is 1: lhs - big * sum(ind) >= -big * len(ind)."""
        rows.add_terms(lhs + [(c, -big) for c in indicators], lower=-big * len(indicators))

    devices = [None] if uniform else list(range(N))
    for k in range(K):
        for r in range(1, R + 1):
            for d in devices:
                sp = float(speed[0] if d is None else speed[d])
                cap = float(mem[0] if d is None else mem[d])
                ind = [reps[k, r - 1]] + ([] if d is None else [serves[d, k]])
                big_m_row([(forward[k], 1.0)] + [(assign[l, k], -fw[l] / (r * sp)) for l in range(n)], ind, big_f)
                big_m_row([(backward[k], 1.0)] + [(assign[l, k], -bw_[l] / (r * sp)) for l in range(n)], ind, big_b)
                # memory: sum_l (params opt + live stash / r) assign <= cap when the indicators are 1
                rows.add_terms([(assign[l, k], par[l] * inst.optimizer_factor + live[k] * stash[l] / r) for l in range(n)]
                               + [(c, big_mem) for c in ind], upper=cap + big_mem * len(ind))
            if r >= 2:
                coef = 2.0 * (r - 1) / r
                pairs = [(None, None)] if uniform else [(d, e) for d in range(N) for e in range(d + 1, N)]
                for d, e in pairs:
                    bw = float(pair_bw[0] if d is None else wide[d, e])
                    ind = [reps[k, r - 1]] + ([] if d is None else [serves[d, k], serves[e, k]])
                    big_m_row([(allreduce[k], 1.0)] + [(assign[l, k], -coef * par[l] / bw) for l in range(n)],
                              ind, big_ar)
        if k < K - 1:
            pairs = [(None, None)] if uniform else [(d, e) for d in range(N) for e in range(N) if d != e]
            for d, e in pairs:
                bw = float(pair_bw[0] if d is None else wide[d, e])
                lhs = [(transfer[k], 1.0)] + [(cut[l, k], -act[l] / bw) for l in range(n - 1)]
                if d is None:
                    rows.add_terms(lhs, lower=0.0)
                else:
                    big_m_row(lhs, [serves[d, k], serves[e, k + 1]], big_x)
        if sync:
            rows.add_terms([(top, 1.0), (forward[k], -1.0), (backward[k], -1.0)], lower=0.0)
            rows.add_terms([(residual, 1.0), (allreduce[k], -1.0)] + [(backward[j], 1.0) for j in range(k)]
                           + [(transfer[j], 1.0) for j in range(k)], lower=0.0)
        else:
            rows.add_terms([(top, 1.0), (forward[k], -1.0), (backward[k], -1.0), (allreduce[k], -1.0)], lower=0.0)
            if k < K - 1:
                rows.add_terms([(top, 1.0), (transfer[k], -1.0)], lower=0.0)
    rows.close()
    return b.build()


def decode(instance: PipelinePartitionInstance, model: LinearModel, x: np.ndarray) -> dict:
    assign = np.round(model.block_values(x, "assign")).astype(int)
    serves = np.round(model.block_values(x, "serves")).astype(int)
    stage_of = assign.argmax(axis=1)
    K = assign.shape[1]
    cuts = [int(np.flatnonzero(stage_of == k)[0]) for k in range(1, K)]
    devices = [sorted(int(d) for d in np.flatnonzero(serves[:, k])) for k in range(K)]
    return {"cuts": cuts, "replicas": [len(g) for g in devices], "devices": devices}
