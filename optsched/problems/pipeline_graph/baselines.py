"""PipeDream's planner on the whole layer graph, as a baseline.

[code: PipeDream ``optimizer/optimizer_graph_hierarchical.py`` (``compute_partitioning``, one
level, ``final_level``) and ``graph/graph.py`` (``antichain_dag``), github.com/msr-fiddle/pipedream
commit 7db6a1c; re-implemented, not copied]. The states are PipeDream's antichain DAG
(:func:`optsched.pipeline.antichain.pipedream_antichain_dag`); A[j][m] is the best pipeline time of
state j's down-set on m + 1 machines: one stage replicated m + 1 times,
(W_j + 4 m P_j / (bw (m + 1))) / (m + 1), or a last stage (D_k, D_j] on m' machines after
A[k][m - m'] for every *ancestor* k of j in the antichain DAG; with
``activation_compression_ratio`` c the last stage also pays 2 a_k / (bw m' c) and, unless j is the
final state, 2 a_j / (bw m' c) (a = activation bytes of the augmented antichain). As in PipeDream's
defaults every machine is used (no ``--use_fewer_machines``), no memory constraint, no
``--straight_pipeline``. Its value is PipeDream's predicted time per batch; its plan is costed by
the checker under the instance's objective (equal to that value under ``pipedream``).
O(S^2 N^2) for S states, as PipeDream's.
"""

from __future__ import annotations

import numpy as np

from optsched.pipeline.antichain import PipeDreamStates, bits, pipedream_antichain_dag

from .dp import Plan
from .instance import PipelineGraphInstance

__all__ = ["pipedream_states", "pipedream_plan", "PIPEDREAM_MAX_STATES", "PIPEDREAM_TOO_MANY"]

#: the baseline's size limit (PipeDream's own planner needs O(S^2 N) memory: 2.3 GB at S = 1495)
PIPEDREAM_MAX_STATES = 5000


PIPEDREAM_TOO_MANY = f"more than {PIPEDREAM_MAX_STATES} PipeDream states (its O(S^2 N^2) planner)"


def pipedream_states(instance: PipelineGraphInstance, max_states: int = PIPEDREAM_MAX_STATES,
                     poll=None) -> PipeDreamStates:
    return pipedream_antichain_dag(instance.dag, max_states=max_states, poll=poll)


def pipedream_plan(instance: PipelineGraphInstance, states: PipeDreamStates | None = None,
                   ratio: float | None = ..., machines: int | None = None,
                   poll=None) -> tuple[Plan, float, int]:
    """(plan, PipeDream's predicted value, number of states). ``ratio`` defaults to the
    instance's ``activation_compression_ratio``; ``machines`` to its workers. ``poll`` (the
    caller's clock check, raising to stop) runs once per (machines, state) step of the DP."""
    states = states or pipedream_states(instance, poll=poll)
    c = instance.activation_compression_ratio if ratio is ... else ratio
    N = machines or instance.workers
    bw = instance.bandwidth
    S = len(states.masks)
    W = np.array([instance.work[bits(m)].sum() for m in states.masks])
    P = np.array([instance.params[bits(m)].sum() for m in states.masks])
    out = np.array([instance.act[bits(a)].sum() for a in states.augmented])
    A = np.empty((S, N))
    split = np.full((S, N, 2), -1, np.int64)
    used = np.zeros((S, N), np.int64)
    for m in range(N):
        A[:, m] = (W + 4.0 * m * P / (bw * (m + 1))) / (m + 1)
        used[:, m] = m + 1
    for m in range(1, N):
        mps = np.arange(1, m + 1)
        for j in range(1, S):
            if poll is not None:
                poll()
            ks = states.ancestors[j]
            if ks.size == 0:
                continue
            dW = (W[j] - W[ks])[:, None]
            dP = (P[j] - P[ks])[:, None]
            last = (dW + 4.0 * (mps[None, :] - 1) * dP / (bw * mps[None, :])) / mps[None, :]
            t = np.maximum(A[ks][:, m - mps], last)
            if c is not None:
                t = np.maximum(t, 2.0 * out[ks][:, None] / (bw * mps[None, :]) / c)
                if j < S - 1:
                    t = np.maximum(t, 2.0 * out[j] / (bw * mps[None, :]) / c)
            flat = int(np.argmin(t))
            a, b = divmod(flat, m)
            if t[a, b] < A[j, m]:
                A[j, m] = t[a, b]
                split[j, m] = (ks[a], m - mps[b])
                used[j, m] = mps[b]
    cuts, reps = [], []
    j, m = S - 1, N - 1
    while True:
        cuts.append(states.masks[j])
        reps.append(int(used[j, m]))
        k, mk = split[j, m]
        if k < 0:
            break
        j, m = int(k), int(mk)
    return Plan(cuts[::-1], reps[::-1]), float(A[S - 1, N - 1]), S
