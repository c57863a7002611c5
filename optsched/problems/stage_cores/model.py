"""The integer program of ``stage-cores`` [recon, docs ``optsched/problems/stage_cores/README.md``]: maximize ``t`` subject to
``t <= r_i c_i``, ``sum_i c_i <= C``, ``c_i >= min_cores`` integer."""

from __future__ import annotations

import numpy as np

from optsched.core.linear import ModelBuilder

from .instance import StageCoresInstance

__all__ = ["build_model", "decode"]


def build_model(instance: StageCoresInstance):
    S = instance.num_stages
    b = ModelBuilder("stage-cores", "max")
    t = b.add_block("t", 1, cost=1.0)
    c = b.add_block("c", S, lower=float(instance.min_cores), upper=float(instance.cores), integer=True)
    rows = np.concatenate([np.arange(S), np.arange(S)])
    cols = np.concatenate([np.full(S, t[0]), c])
    vals = np.concatenate([np.ones(S), -instance.rates])
    b.add_sparse_rows("throughput", rows, cols, vals, S, upper=0.0)
    b.add_sparse_rows("cores", np.zeros(S, int), c, np.ones(S), 1, upper=float(instance.cores))
    return b.build()


def decode(instance: StageCoresInstance, model, x) -> dict:
    return {"cores": [int(round(v)) for v in model.block_values(x, "c")]}
