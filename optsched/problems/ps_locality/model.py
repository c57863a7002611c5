"""The mixed packing-covering program of ``ps-locality`` as a :class:`LinearModel`.

One builder covers three uses (docs ``optsched/problems/ps_locality/README.md``, all [ours] as formulated here):

* one bucket per slot: the time-indexed IP (``milp``) and its LP relaxation (``lp``, ``rr``);
* wider buckets (``bucket_starts``) on the *pooled* data of :func:`pooled_data`: the lower bound
  for large instances (each column is the sum of the slot columns of one bucket; completion is
  charged at the bucket's first slot, or the job's earliest possible completion slot when later);
* a rolling window of the online variant (residual workloads, an ``overflow`` completion column
  for jobs that finish after the window).

Rows (per job i, machine h, resource r, bucket b of ``len[b]`` slots, ``avail[i,b]`` of which the
job has arrived for):

    cover      sum_{b' <= b} sum_h (x/e_in + y/e_ex)[i,h,b'] / V_i >= sum_{b' <= b} d[i,b']
    ps         fan_i sum_h p >= sum_h x ;  fan_i sum_h q >= sum_h y
    complete   sum_b d[i,b] (+ overflow_i) = 1
    capacity   sum_i dw[i,r] (x + y) + dp[i,r] (p + q) <= len[b] cap[h,r]
    mode       sum_h z[i,h,b] + u[i,b] <= avail[i,b]
    link       x <= W z ;  p <= P z ;  sum_h y <= W u ;  sum_h q <= P u     (P = ceil(W / fan))
    width      sum_h (x + y)[i,h,b] <= W avail[i,b]

    active     sum_h (x + y)[i,h,b] <= W avail[i,b] sum_{b' >= b} d[i,b']   (works only until done)
    solo cut   d[i,b] = 0 for buckets that end before earliest[i] = a_i + solo_i - 1

All three switches keep an exact IP (``cumulative = False`` replaces ``cover`` by the aggregate
row ``sum_b progress / V_i >= 1``, which with the ``active`` rows still defines C_i); they exist to
measure what each family is worth to the LP bound (``optsched/problems/ps_locality/README.md``).

Construction is vectorized: index arrays built by broadcasting, O(nnz) memory, no Python loop
over entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.linear import LinearModel, ModelBuilder

from .instance import PROGRESS_RTOL, PsLocalityInstance

__all__ = ["ModelData", "solo_rates", "solo_slots", "offline_data", "pooled_data", "lower_bound_buckets",
           "build_model", "build_ip", "decode_counts", "model_nonzeros", "MAX_NONZEROS",
           "SECONDS_PER_NONZERO"]

#: a model of more nonzeros (:func:`model_nonzeros`) is not built: about 200 bytes per nonzero
#: (the builder's index and value arrays and their concatenations, the matrix, its copy in the
#: solver's process and HiGHS's own copies) keep a run under 4 GB [ours]
MAX_NONZEROS = 20_000_000
#: building a model and handing it to the solver's process cost about this many seconds per
#: nonzero, outside the solver's own time limit (a 20-million-nonzero model took about 14 us per
#: nonzero to build and reach a 1 s HiGHS limit on 2 cores shared at load 20; this is the
#: unloaded share) [ours, measured]
SECONDS_PER_NONZERO = 5e-6


@dataclass
class ModelData:
    """The numbers a model is built from (arrays over the jobs of one model)."""

    workload: np.ndarray       # (n,) V_i (residual in the online variant)
    release: np.ndarray        # (n,) first slot (relative to the window) the job may use
    earliest: np.ndarray       # (n,) earliest slot (relative) the job can complete in
    cost_offset: np.ndarray    # (n,) completing in relative slot t costs t + cost_offset_i
    e_in: np.ndarray
    e_ex: np.ndarray
    max_workers: np.ndarray
    max_ps: np.ndarray
    ps_fan: np.ndarray
    worker_demand: np.ndarray  # (n, R)
    ps_demand: np.ndarray      # (n, R)
    capacity: np.ndarray       # (H, R) free capacity per slot
    slots: int
    overflow_cost: np.ndarray | None = None  # (n,) cost of completing after the window
    colo_workers: np.ndarray | None = None   # (n,) co-located worker cap (default max_workers)


def _max_width(dw: np.ndarray, dp: np.ndarray, fan: np.ndarray, W: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Largest w <= W_i with w dw_i + ceil(w / fan_i) dp_i <= cap (per job; cap shape (R,))."""
    wmax = int(W.max())
    w = np.arange(wmax + 1)
    need = w[None, :, None] * dw[:, None, :] + (-(-w[None, :] // fan[:, None]))[:, :, None] * dp[:, None, :]
    ok = np.all(need <= cap * (1 + 1e-9) + 1e-9, axis=2) & (w[None, :] <= W[:, None])
    return np.where(ok, w[None, :], 0).max(axis=1)


def _machine_kinds(instance: PsLocalityInstance) -> np.ndarray:
    """The distinct capacity rows (a maximum over machines is one over these)."""
    return np.unique(instance.capacity, axis=0)


def solo_rates(instance: PsLocalityInstance) -> tuple[np.ndarray, np.ndarray]:
    """Per job: the best co-located rate (mini-batches per slot, alone on an empty machine) and an
    upper bound on the spread rate (aggregate capacity of all machines)."""
    dw, dp, fan, W = instance.worker_demand, instance.ps_demand, instance.ps_fan, instance.max_workers
    colo = np.max([_max_width(dw, dp, fan, W, c) for c in _machine_kinds(instance)], axis=0)
    spread = _max_width(dw, dp, fan, W, instance.capacity.sum(axis=0))
    return colo / instance.e_in, spread / instance.e_ex


def solo_slots(instance: PsLocalityInstance, workload: np.ndarray | None = None) -> np.ndarray:
    """Lower bound on each job's completion time C_i - a_i + 1 (slots) if it ran alone."""
    colo, spread = solo_rates(instance)
    rate = np.maximum(colo, spread)
    V = instance.workload if workload is None else workload
    # 1e-9 guards the ceiling against float noise; it can only lower the bound
    return np.maximum(1, np.ceil(V * (1 - PROGRESS_RTOL) / rate - 1e-9)).astype(np.int64)


def offline_data(instance: PsLocalityInstance) -> ModelData:
    a = instance.arrival
    return ModelData(
        workload=instance.workload, release=a, earliest=a + solo_slots(instance) - 1, cost_offset=1 - a,
        e_in=instance.e_in, e_ex=instance.e_ex, max_workers=instance.max_workers, max_ps=instance.max_ps,
        ps_fan=instance.ps_fan, worker_demand=instance.worker_demand, ps_demand=instance.ps_demand,
        capacity=instance.capacity, slots=instance.horizon_slots)


def model_nonzeros(data: ModelData, *, bucket_starts: np.ndarray | None = None, cumulative: bool = True,
                   activity: bool = True) -> int:
    """The entries :func:`build_model` writes into its matrix (its ``nnz``), from the shapes alone:
    with N = n H B (job, machine, bucket) and pairs = B (B + 1) / 2 bucket pairs,
    cover 2 H n pairs + n pairs (cumulative) or 2 N (+ n with an overflow column), active
    2 N + n pairs (+ n B), ps 4 N, complete n B (+ n), capacity 4 R N, mode N + n B, links
    4 N + 2 (N + n B), width 2 N.

    >>> import optsched
    >>> inst = optsched.generate("ps-locality", seed=1, preset="tiny")
    >>> model_nonzeros(offline_data(inst)) == build_ip(inst).matrix.nnz
    True
    """
    n, R = data.worker_demand.shape
    H, T = data.capacity.shape[0], data.slots
    B = T if bucket_starts is None else len(bucket_starts)
    N, pairs = n * H * B, B * (B + 1) // 2
    over = data.overflow_cost is not None
    total = (2 * H + 1) * n * pairs if cumulative else 2 * N + (n if over else 0)
    if activity:
        total += 2 * N + n * pairs + (n * B if over else 0)
    total += 4 * N + n * B + (n if over else 0) + 4 * R * N + N + n * B + 4 * N + 2 * (N + n * B) + 2 * N
    return int(total)


def build_model(data: ModelData, *, bucket_starts: np.ndarray | None = None, cumulative: bool = True,
                activity: bool = True, solo_cut: bool = True, integer: bool = True,
                name: str = "ps-locality") -> LinearModel:
    """The (bucketed) packing-covering model; see the module docstring for its rows.

    ``bucket_starts``: first slot of each bucket (increasing, starting at 0); one per slot if None.
    """
    n, R = data.worker_demand.shape
    H, T = data.capacity.shape[0], data.slots
    start = np.arange(T) if bucket_starts is None else np.asarray(bucket_starts, dtype=np.int64)
    B = len(start)
    end = np.append(start[1:], T) - 1                       # last slot of each bucket
    length = end - start + 1
    avail = np.clip(end[None, :] - np.maximum(start[None, :], data.release[:, None]) + 1, 0, None)  # (n, B)
    integer = integer and B == T
    W, P = data.max_workers.astype(float), data.max_ps.astype(float)
    Wc = W if data.colo_workers is None else data.colo_workers.astype(float)
    Pc = np.ceil(Wc / data.ps_fan)

    b = ModelBuilder(name, "min")
    per_machine = lambda a: (a[:, None] * avail)[:, None, :] * np.ones((1, H, 1))  # noqa: E731
    x = b.add_block("x", (n, H, B), upper=per_machine(Wc), integer=integer)
    p = b.add_block("p", (n, H, B), upper=per_machine(Pc), integer=integer)
    y = b.add_block("y", (n, H, B), upper=per_machine(W), integer=integer)
    q = b.add_block("q", (n, H, B), upper=per_machine(P), integer=integer)
    z = b.add_block("z", (n, H, B), upper=avail[:, None, :] * np.ones((1, H, 1)), integer=integer)
    u = b.add_block("u", (n, B), upper=avail.astype(float), integer=integer)
    earliest = data.earliest if solo_cut else data.release
    may_finish = end[None, :] >= earliest[:, None]
    charged = np.maximum(start[None, :], earliest[:, None]) + data.cost_offset[:, None]
    d = b.add_block("d", (n, B), upper=may_finish.astype(float), integer=integer,
                    cost=np.where(may_finish, charged, 0.0))
    over = None
    if data.overflow_cost is not None:
        over = b.add_block("overflow", (n,), upper=1.0, integer=integer, cost=data.overflow_cost)

    ii = np.arange(n)[:, None, None]
    hh = np.arange(H)[None, :, None]
    bb = np.arange(B)[None, None, :]
    full = lambda a: np.broadcast_to(a, (n, H, B))  # noqa: E731
    rate_x = full((1 / (data.e_in * data.workload))[:, None, None])
    rate_y = full((1 / (data.e_ex * data.workload))[:, None, None])

    def rows(name, parts, num, lower=-np.inf, upper=np.inf):
        r = np.concatenate([np.broadcast_to(pr, pc.shape).ravel() for pr, pc, _ in parts])
        c = np.concatenate([pc.ravel() for _, pc, _ in parts])
        v = np.concatenate([np.broadcast_to(pv, pc.shape).ravel() for _, pc, pv in parts])
        b.add_sparse_rows(name, r, c, v, num, lower=lower, upper=upper)

    row_ib = ii[:, :, 0] * B + np.arange(B)[None, :]                  # (n, B)
    if cumulative:
        b_row, b_col = np.tril_indices(B)                                # bucket pairs b' <= b
        rr = ii * B + b_row[None, None, :]                               # (n, 1, K)
        rows("cover", [(rr, x[:, :, b_col], rate_x[:, :, :1]), (rr, y[:, :, b_col], rate_y[:, :, :1]),
                       (rr[:, 0, :], d[:, b_col], -1.0)], n * B, lower=0.0)
    else:
        parts = [(ii, x, rate_x), (ii, y, rate_y)]
        if over is not None:  # a job completing after the window needs no progress inside it
            parts.append((ii[:, 0, 0], over, 1.0))
        rows("cover", parts, n, lower=1.0)
    if activity:
        b_row, b_col = np.triu_indices(B)                                # pairs b <= b'
        act = ii[:, :, 0] * B + b_row[None, :]
        widths = 1 / np.maximum(W[:, None] * avail, 1)                   # (n, B)
        parts = [(row_ib[:, None, :], x, widths[:, None, :]), (row_ib[:, None, :], y, widths[:, None, :]),
                 (act, d[:, b_col], -1.0)]
        if over is not None:
            parts.append((row_ib, np.broadcast_to(over[:, None], (n, B)), -1.0))
        rows("active", parts, n * B, upper=0.0)
    fan = data.ps_fan.astype(float)[:, None, None]
    rows("ps_colo", [(row_ib[:, None, :], p, full(fan)), (row_ib[:, None, :], x, -1.0)], n * B, lower=0.0)
    rows("ps_spread", [(row_ib[:, None, :], q, full(fan)), (row_ib[:, None, :], y, -1.0)], n * B, lower=0.0)
    parts = [(ii[:, 0, :], d, 1.0)]
    if over is not None:
        parts.append((ii[:, 0, 0], over, 1.0))
    rows("complete", parts, n, lower=1.0, upper=1.0)
    # capacity rows (h, r, b): one part per resource
    cap_parts = []
    for r in range(R):
        row = (hh * R + r) * B + bb                                       # (1, H, B)
        for blk, dem in ((x, data.worker_demand), (y, data.worker_demand), (p, data.ps_demand), (q, data.ps_demand)):
            cap_parts.append((row, blk, full(dem[:, r][:, None, None])))
    rows("capacity", cap_parts, H * R * B,
         upper=(data.capacity[:, :, None] * length[None, None, :]).ravel())
    rows("mode", [(row_ib[:, None, :], z, 1.0), (row_ib, u, 1.0)], n * B, upper=avail.ravel().astype(float))
    row_ihb = (ii * H + hh) * B + bb
    rows("link_x", [(row_ihb, x, 1.0), (row_ihb, z, full(-Wc[:, None, None]))], n * H * B, upper=0.0)
    rows("link_p", [(row_ihb, p, 1.0), (row_ihb, z, full(-Pc[:, None, None]))], n * H * B, upper=0.0)
    rows("link_y", [(row_ib[:, None, :], y, 1.0), (row_ib, u, -W[:, None])], n * B, upper=0.0)
    rows("link_q", [(row_ib[:, None, :], q, 1.0), (row_ib, u, -P[:, None])], n * B, upper=0.0)
    rows("width", [(row_ib[:, None, :], x, 1.0), (row_ib[:, None, :], y, 1.0)], n * B,
         upper=(W[:, None] * avail).ravel())
    return b.build()


def pooled_data(instance: PsLocalityInstance) -> ModelData:
    """The offline data with all machines pooled into one (capacity = the sum) and each job's
    co-located width capped by the most workers that fit co-located on one machine: a
    relaxation (proof: ``optsched/problems/ps_locality/README.md#lower-bounds-ours``) with H times fewer columns."""
    data = offline_data(instance)
    dw, dp, fan, W = instance.worker_demand, instance.ps_demand, instance.ps_fan, instance.max_workers
    data.colo_workers = np.max([_max_width(dw, dp, fan, W, c) for c in _machine_kinds(instance)], axis=0)
    data.capacity = instance.capacity.sum(axis=0, keepdims=True)
    return data


def lower_bound_buckets(instance: PsLocalityInstance, fine_slots: int) -> np.ndarray:
    """Bucket starts: one slot each up to the last arrival + ``fine_slots``, then widths 2, 4, 8, ..."""
    T = instance.horizon_slots
    fine = max(1, min(T, int(instance.arrival.max()) + fine_slots))
    starts, nxt, width = list(range(fine)), fine, 2
    while nxt < T:
        starts.append(nxt)
        nxt, width = nxt + width, width * 2
    return np.array(starts, dtype=np.int64)


def build_ip(instance: PsLocalityInstance, **rows) -> LinearModel:
    """The time-indexed IP of an instance (what ``optsched export`` writes); ``rows`` are the
    switches of :func:`build_model`."""
    return build_model(offline_data(instance), name=f"ps-locality-{instance.name or 'instance'}", **rows)


def decode_counts(model: LinearModel, xval: np.ndarray) -> tuple[np.ndarray, ...]:
    """Integer (job, machine, slot) arrays x, p, y, q of a MILP point."""
    return tuple(np.rint(np.clip(model.block_values(xval, k), 0, None)).astype(np.int64) for k in "xpyq")
