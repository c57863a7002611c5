"""Exact models of ``hetero-sharding``: the ratio LP for a fixed program and the joint MILP.

Ratio LP [code: HAP ``sharding_ratio_optimization``, units fixed]: variables B_{s,d} in [0, 1],
C_t, M_t >= 0; minimize sum_t (C_t + M_t) s.t. sum_d B_{s,d} = 1, C_t >= (a_t B_{s_t,d} + c_t)/F_d
and M_t >= m_t B_{s_t,d} + e_t for every d.

Joint MILP [ours; docs ``optsched/problems/hetero_sharding/README.md``]: x_{t,o} binary (one option
per stage), w_{t,o,d} = x_{t,o} B_{s_o,d} linearised by McCormick (w <= x, w <= B,
w >= B - (1 - x), w >= 0), exact because x is binary; C_t >= sum_o (a_o w_{t,o,d} + c_o x_{t,o})/F_d,
M_t >= sum_o (m_o w_{t,o,d} + e_o x_{t,o}).

``Quirks`` reproduce HAP's released code instead of the model (all off by default):
``units="elements"`` divides element counts by bytes/s (communication under-counted by
``bytes_per_element``), ``drop_constants`` drops replicated compute and constant volumes (HAP's
``to_linear``), ``cap_seconds`` bounds C_t, M_t by 1 s. The checker always costs the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.linear import LinearModel, ModelBuilder

from .instance import HeteroShardingInstance

__all__ = ["Quirks", "build_model", "build_ratio_lp", "decode_ratios", "effective_coefficients", "model_size",
           "MILP_BYTES_PER_NONZERO"]

#: peak memory of building and solving the joint MILP per nonzero [ours: measured 145 bytes on a
#: 1,024-device, 1,000-stage random instance (2.25e7 nonzeros, 3.3 GB peak: the row triplets as
#: Python lists, their arrays, the sparse matrix and the solver's copy), rounded up]
MILP_BYTES_PER_NONZERO = 160


def model_size(instance: HeteroShardingInstance) -> tuple[int, int]:
    """``(columns, nonzeros)`` of the joint MILP, computed from the instance's counts alone (before
    anything is built): with P (stage, option) pairs, n devices, T stages and S segments, the
    columns are S n + 2 T + P + P n and the nonzeros S n (simplex) + P (one option) + 2 n (T + 2 P)
    (compute and communication rows) + 7 P n (McCormick)."""
    n, T, S = instance.num_devices, instance.num_stages, instance.num_segments
    P = sum(len(st.options) for st in instance.stages)
    return S * n + 2 * T + P + P * n, S * n + P + 2 * n * (T + 2 * P) + 7 * P * n


@dataclass(frozen=True)
class Quirks:
    units: str = "bytes"          # "bytes" (model) or "elements" (HAP's code)
    drop_constants: bool = False  # HAP's to_linear()
    cap_seconds: bool = False     # HAP's C_t, M_t <= 1

    def __post_init__(self):
        if self.units not in ("bytes", "elements"):
            raise ValueError(f"units must be 'bytes' or 'elements', not {self.units!r}")

    @classmethod
    def from_options(cls, options: dict) -> "Quirks":
        return cls(options.get("units", "bytes"), bool(options.get("drop_constants", False)),
                   bool(options.get("cap_seconds", False)))


def effective_coefficients(instance: HeteroShardingInstance, quirks: Quirks = Quirks()):
    """Per stage and option ``(segment, a, c, m, e)`` as the model (or the quirky code) sees them."""
    scale = 1.0 / instance.bytes_per_element if quirks.units == "elements" else 1.0
    out = []
    for row in instance.coefficients:
        new = []
        for s, a, c, m, e in row:
            m, e = m * scale, e * scale
            if quirks.drop_constants:
                c, e = 0.0, 0.0
            new.append((s, a, c, m, e))
        out.append(new)
    return out


class _Rows:
    """Coordinate triplets of a row group."""

    def __init__(self):
        self.r, self.c, self.v, self.lo, self.hi = [], [], [], [], []

    def row(self, entries, lo, hi):
        k = len(self.lo)
        for col, val in entries:
            self.r.append(k)
            self.c.append(int(col))
            self.v.append(float(val))
        self.lo.append(lo)
        self.hi.append(hi)

    def add_to(self, b: ModelBuilder, name: str):
        if self.lo:
            b.add_sparse_rows(name, self.r, self.c, self.v, len(self.lo), lower=np.asarray(self.lo),
                              upper=np.asarray(self.hi))


def _common(b: ModelBuilder, instance: HeteroShardingInstance, quirks: Quirks, poll=None):
    S, n, T = instance.num_segments, instance.num_devices, instance.num_stages
    B = b.add_block("B", (S, n), lower=0.0, upper=1.0)
    cap = 1.0 if quirks.cap_seconds else np.inf
    C = b.add_block("C", T, lower=0.0, upper=cap, cost=1.0)
    M = b.add_block("M", T, lower=0.0, upper=cap, cost=1.0)
    simplex = _Rows()
    for s in range(S):
        if poll is not None:
            poll()
        simplex.row([(B[s, d], 1.0) for d in range(n)], 1.0, 1.0)
    simplex.add_to(b, "simplex")
    return B, C, M


def build_ratio_lp(instance: HeteroShardingInstance, program, quirks: Quirks = Quirks(), poll=None) -> LinearModel:
    """The ratio LP for a fixed ``program`` (one option index per stage). ``poll`` (e.g. a method's
    clock check) is called once per segment and per stage while the rows are written (each call
    then writes O(n) entries); it stops the building by raising."""
    b = ModelBuilder(f"hetero-sharding-ratio-lp-{instance.name or 'instance'}", sense="min")
    B, C, M = _common(b, instance, quirks, poll)
    coef = effective_coefficients(instance, quirks)
    F = instance.flops_array
    comp, comm = _Rows(), _Rows()
    for t, o in enumerate(program):
        if poll is not None:
            poll()
        s, a, c, m, e = coef[t][o]
        for d in range(instance.num_devices):
            comp.row([(C[t], 1.0), (B[s, d], -a / F[d])], c / F[d], np.inf)
            comm.row([(M[t], 1.0), (B[s, d], -m)], e, np.inf)
    for rows, name in ((comp, "compute"), (comm, "communication")):
        if poll is not None:
            poll()
        rows.add_to(b, name)
    return b.build()


def build_model(instance: HeteroShardingInstance, quirks: Quirks = Quirks(), poll=None) -> LinearModel:
    """The joint MILP over the program and the ratios (McCormick products, exact). ``poll`` (e.g.
    a method's clock check) is called once per segment, per (stage, device) and per (stage,
    option) pair while the rows are written (each call then writes O(n) entries, or two rows of
    the stage's options); it stops the building by raising."""
    b = ModelBuilder(f"hetero-sharding-{instance.name or 'instance'}", sense="min")
    B, C, M = _common(b, instance, quirks, poll)
    coef = effective_coefficients(instance, quirks)
    F, n = instance.flops_array, instance.num_devices
    pairs = [(t, o) for t, st in enumerate(instance.stages) for o in range(len(st.options))]
    X = b.add_block("x", len(pairs), lower=0.0, upper=1.0, integer=True)
    W = b.add_block("w", (len(pairs), n), lower=0.0, upper=1.0)
    one, comp, comm, mc = _Rows(), _Rows(), _Rows(), _Rows()
    by_stage: dict[int, list[int]] = {}
    for k, (t, o) in enumerate(pairs):
        by_stage.setdefault(t, []).append(k)
    for t, ks in by_stage.items():
        one.row([(X[k], 1.0) for k in ks], 1.0, 1.0)
        for d in range(n):
            if poll is not None:
                poll()
            ce, me = [(C[t], 1.0)], [(M[t], 1.0)]
            for k in ks:
                s, a, c, m, e = coef[t][pairs[k][1]]
                ce += [(W[k, d], -a / F[d]), (X[k], -c / F[d])]
                me += [(W[k, d], -m), (X[k], -e)]
            comp.row(ce, 0.0, np.inf)
            comm.row(me, 0.0, np.inf)
    for k, (t, o) in enumerate(pairs):
        if poll is not None:
            poll()
        s = coef[t][o][0]
        for d in range(n):
            mc.row([(W[k, d], 1.0), (X[k], -1.0)], -np.inf, 0.0)          # w <= x
            mc.row([(W[k, d], 1.0), (B[s, d], -1.0)], -np.inf, 0.0)       # w <= B
            mc.row([(W[k, d], 1.0), (B[s, d], -1.0), (X[k], -1.0)], -1.0, np.inf)  # w >= B - (1 - x)
    for rows, name in ((one, "one_option"), (comp, "compute"), (comm, "communication"), (mc, "mccormick")):
        if poll is not None:
            poll()
        rows.add_to(b, name)
    return b.build()


def decode_ratios(model: LinearModel, x: np.ndarray) -> list[list[float]]:
    """The ratios of a model point, clipped to [0, 1] and renormalised onto the simplex (the LP
    satisfies the simplex rows to its 1e-7 feasibility tolerance)."""
    R = np.clip(model.block_values(x, "B"), 0.0, 1.0)
    R = R / R.sum(axis=1, keepdims=True)
    return R.tolist()


def decode_program(instance: HeteroShardingInstance, model: LinearModel, x: np.ndarray) -> list[int]:
    X = model.block_values(x, "x")
    out, k = [], 0
    for st in instance.stages:
        n_o = len(st.options)
        out.append(int(np.argmax(X[k:k + n_o])))
        k += n_o
    return out
