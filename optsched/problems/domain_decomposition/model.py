"""Exact methods for ``domain-decomposition``: the MILP and brute force [ours].

MILP, contiguous: ``u[k, p] = 1`` iff cell ``k`` belongs to a rank ``<= p`` (p < P-1; rank P-1
takes the rest), ``u[k, p] <= u[k, p+1]``, ``u[k+1, p] <= u[k, p]`` (owners non-decreasing along
the chain), rank ``p`` owns ``x[k, p] = u[k, p] - u[k, p-1]``, ``sum_k w_k x[k, p] <= T s_p``,
minimize ``T``. Free assignment: binary ``x[k, p]``, ``sum_p x[k, p] = 1``, the same load rows
(scheduling on uniform machines, Q||Cmax).
"""

from __future__ import annotations

import itertools

import numpy as np

from optsched.chain import brute_min_max
from optsched.core.linear import ModelBuilder

from .instance import DomainDecompositionInstance

__all__ = ["build_model", "decode", "brute_force", "BRUTE_MAX"]

BRUTE_MAX = 100_000


def build_model(instance: DomainDecompositionInstance):
    n, P = instance.num_cells, instance.num_ranks
    w, s = instance.weight_array, instance.speed_array
    b = ModelBuilder("domain-decomposition", "min")
    T = b.add_block("T", 1, cost=1.0)
    if instance.contiguous:
        u = b.add_block("u", (n, max(P - 1, 0)), upper=1.0, integer=True)
        rows, cols, vals = [], [], []
        r = 0
        for p in range(P - 2):  # u[k, p] - u[k, p+1] <= 0
            for k in range(n):
                rows += [r, r]; cols += [u[k, p], u[k, p + 1]]; vals += [1.0, -1.0]; r += 1
        for p in range(P - 1):  # u[k+1, p] - u[k, p] <= 0
            for k in range(n - 1):
                rows += [r, r]; cols += [u[k + 1, p], u[k, p]]; vals += [1.0, -1.0]; r += 1
        if r:
            b.add_sparse_rows("order", rows, cols, vals, r, upper=0.0)
        rows, cols, vals = [], [], []
        for p in range(P):  # sum_k w_k (u[k,p] - u[k,p-1]) - s_p T <= 0, u[., P-1] = 1
            rows.append(p); cols.append(T[0]); vals.append(-s[p])
            for k in range(n):
                if p < P - 1:
                    rows.append(p); cols.append(u[k, p]); vals.append(w[k])
                if p >= 1:
                    rows.append(p); cols.append(u[k, p - 1]); vals.append(-w[k])
        upper = np.zeros(P)
        upper[P - 1] = -w.sum()  # the constant sum_k w_k of u[k, P-1] = 1 moves to the bound
        b.add_sparse_rows("load", rows, cols, vals, P, upper=upper)
    else:
        x = b.add_block("x", (n, P), upper=1.0, integer=True)
        b.add_sparse_rows("assign", np.repeat(np.arange(n), P), x.ravel(), np.ones(n * P), n, lower=1.0, upper=1.0)
        rows = np.concatenate([np.tile(np.arange(P), n), np.arange(P)])
        cols = np.concatenate([x.ravel(), np.full(P, T[0])])
        vals = np.concatenate([np.repeat(w, P), -s])
        b.add_sparse_rows("load", rows, cols, vals, P, upper=0.0)
    return b.build()


def decode(instance: DomainDecompositionInstance, model, x: np.ndarray) -> dict:
    n, P = instance.num_cells, instance.num_ranks
    if instance.contiguous:
        if P == 1:
            return {"owner": [0] * n}
        u = np.rint(model.block_values(x, "u")).astype(int)
        # owner = number of p with u[k, p] = 0 (the first p with u = 1)
        return {"owner": [int(P - 1 - row.sum()) for row in u]}
    return {"owner": [int(p) for p in np.argmax(model.block_values(x, "x"), axis=1)]}


def brute_force(instance: DomainDecompositionInstance) -> tuple[float, list[int]]:
    """Contiguous: every bound vector (:func:`optsched.chain.brute_min_max`); free: every P^n
    assignment. Loads summed directly."""
    w, s = instance.weights, instance.speeds
    n, P = instance.num_cells, instance.num_ranks
    if instance.contiguous:
        part = brute_min_max(w, s)
        owner = np.repeat(np.arange(P), np.diff(part.bounds)).tolist()
        return part.value, owner
    best, best_owner = np.inf, None
    for owner in itertools.product(range(P), repeat=n):
        loads = [0.0] * P
        for k, p in enumerate(owner):
            loads[p] += w[k]
        value = max(loads[p] / s[p] for p in range(P))
        if value < best:
            best, best_owner = value, list(owner)
    return best, best_owner
