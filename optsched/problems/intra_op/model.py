"""The exact MILP of ``intra-op`` [standard: the Alpa / TePDist form, with equality marginals].

Variables: ``x[v,s]`` binary (node v takes strategy s) and ``y[e,s,t] >= 0`` (edge e takes the
pair (s, t)). Rows:

* ``sum_s x[v,s] = 1`` for every node;
* equality marginals ``sum_t y[e,s,t] = x[u,s]`` and ``sum_s y[e,s,t] = x[v,t]`` for every edge
  and strategy (Alpa's ``<=`` rows with ``sum y = 1`` [code: alpa ``auto_sharding.py``], which
  ``sum_s x = 1`` forces to equality; tighter than the elementwise ``y <= x``, ``sum y = 1``);
  at integral x they force ``y[e] = x[u] x[v]^T``, so y is integral without being declared so;
* memory at every interval start t_j where the live set is maximal (a start followed by an end
  before the next start: usage is piecewise constant, rises only at starts, and a point whose
  live set is contained in another's is implied by it): either one row
  ``sum_{v live at t_j} U_v <= limit`` per point, or, for large instances, a continuous load
  column ``m_j <= limit`` per point tied by the recurrence ``m_j = m_{j-1} + U(entering at j) - U(leaving at j)`` with
  ``U_v = sum_s usage[v,s] x[v,s]``. This equals ``m_j = sum_{v live at t_j} U_v`` exactly
  (same LP relaxation) with two nonzeros per strategy instead of one per strategy and live point
  [ours: both reductions]; only usage above a node's least usage enters the rows, the least
  usages are constants.

Columns whose cost is forbidden (>= 1e15) are not created (fixing such a column to 0 is
exact, since the choice is forbidden) [ours], nor strategies whose usage alone exceeds the
limit on a live node. When every cost is an integer, the objective moves in steps of 1 over
integer points (x integral => y integral), so the model declares ``objective_granularity = 1``
and ``optimal`` is exact.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from optsched.core.errors import Infeasible
from optsched.core.linear import LinearModel, ModelBuilder

from .instance import FORBIDDEN, IntraOpInstance

__all__ = ["build_model", "decode", "maximal_starts", "DENSE_MEMORY_NNZ", "model_pairs", "milp_memory",
           "MILP_BYTES_PER_ENTRY", "physical_memory", "milp_fits"]

#: largest number of memory-row nonzeros written as one row per point (else the recurrence)
DENSE_MEMORY_NNZ = 5_000_000
#: peak memory of building and solving the MILP per edge pair or strategy [ours: measured 211
#: bytes per edge pair while building a 20,000-node, 40-strategy random graph (1.26e7 pairs,
#: 2.7 GB: the index arrays of the pairs, the marginal rows' triplets, the sparse matrix), plus
#: the solver's copy of two nonzeros per pair, rounded up]
MILP_BYTES_PER_ENTRY = 320


def model_pairs(inst: IntraOpInstance) -> int:
    """``sum_e k_u k_v``: the edge pairs the MILP's y block is cut from (at most that many columns)."""
    k = inst.num_strategies
    return int(np.dot(k[inst.edge_u].astype(np.float64), k[inst.edge_v].astype(np.float64)))


def milp_memory(inst: IntraOpInstance) -> float:
    """The MILP's memory estimate in bytes: :data:`MILP_BYTES_PER_ENTRY` per edge pair and per
    strategy, from the instance's counts alone (before anything is built)."""
    return float(MILP_BYTES_PER_ENTRY) * (model_pairs(inst) + int(inst.num_strategies.sum()))


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (None where the system does not say)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def milp_fits(inst: IntraOpInstance) -> tuple[bool, str]:
    """Whether the MILP's memory estimate (:func:`milp_memory`) fits this machine's physical
    memory; a model that cannot fit is refused before anything is built (``NotApplicable``)."""
    need, have = milp_memory(inst), physical_memory()
    pairs = model_pairs(inst)
    if have is None or need <= have:
        return True, f"the MILP ({pairs:,} edge pairs) needs about {need / 1e9:.3g} GB"
    return False, (f"the MILP has {pairs:,} edge pairs (sum over the edges of k_u k_v) and needs about "
                   f"{need / 1e9:.3g} GB ({MILP_BYTES_PER_ENTRY} bytes per pair and strategy), more than this "
                   f"machine's {have / 1e9:.3g} GB")


def maximal_starts(inst: IntraOpInstance) -> np.ndarray:
    """The interval starts whose live sets are not contained in another start's (sorted)."""
    live = inst.end > inst.start
    starts = np.unique(inst.start[live])
    if starts.size == 0:
        return starts
    ends = np.sort(inst.end[live])
    nxt = np.append(starts[1:], np.iinfo(np.int64).max)
    # an end e with starts[i] < e <= next start: the live set shrinks before it grows again
    first_end_after = np.searchsorted(ends, starts, side="right")
    has_end = first_end_after < ends.size
    keep = has_end & (ends[np.minimum(first_end_after, ends.size - 1)] <= nxt)
    keep[-1] = True
    return starts[keep]


def _ranges(counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(c)`` for every c in ``counts``."""
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def _allowed_strategies(inst: IntraOpInstance) -> np.ndarray:
    ok = inst.cost < FORBIDDEN
    if inst.usage_limit is not None:
        live = np.repeat(inst.end > inst.start, inst.num_strategies)
        ok &= ~live | (inst.usage <= inst.usage_limit)
    return ok


def build_model(inst: IntraOpInstance, *, memory: bool = True, memory_form: str = "auto", poll=None) -> LinearModel:
    """The MILP as a :class:`~optsched.core.linear.LinearModel` (blocks ``x`` over the allowed
    strategies and ``y`` over the allowed edge pairs; ``x_index`` maps them back).

    ``memory_form``: ``rows`` (one row per point), ``recurrence`` (load columns), or ``auto``:
    rows when they have at most :data:`DENSE_MEMORY_NNZ` nonzeros (HiGHS solves B in 2 s with
    rows and 29 s with the recurrence, measured), else the recurrence (A: 2.2e8 nonzeros as rows).
    Raises :class:`Infeasible` when a node has no allowed strategy.

    ``poll`` (e.g. a method's clock check) is called between the vectorized steps (each a pass
    over the strategies, the edge pairs or the rows, at most a few seconds at the generator's
    bounds that fit in memory); it stops the building by raising.
    """
    step = poll if poll is not None else (lambda: None)
    if memory_form not in ("auto", "rows", "recurrence"):
        raise ValueError(f"memory_form must be auto, rows or recurrence, not {memory_form!r}")
    n, k, off = inst.num_nodes, inst.num_strategies, inst.offsets
    ok = _allowed_strategies(inst)
    per_node = np.add.reduceat(ok.astype(np.int64), off[:-1])
    empty = np.flatnonzero(per_node == 0)
    if empty.size:
        raise Infeasible(f"node {int(empty[0])} has no allowed strategy (every cost >= {FORBIDDEN:g} or usage over "
                         f"the limit)")
    step()
    xcol = np.full(ok.size, -1, dtype=np.int64)
    xcol[ok] = np.arange(int(ok.sum()))
    node_of = np.repeat(np.arange(n), k)
    b = ModelBuilder(f"intra-op-{inst.name or 'instance'}", sense="min")
    xb = b.add_block("x", int(ok.sum()), upper=1, integer=True, cost=inst.cost[ok])
    # edge entries: (edge, s, t) for every allowed pair
    m = inst.num_edges
    ku, kv = k[inst.edge_u], k[inst.edge_v]
    size = ku * kv
    step()
    eid = np.repeat(np.arange(m), size)
    local = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(inst.edge_offsets[:-1], size)
    step()
    s_idx = local // np.repeat(kv, size)
    t_idx = local - s_idx * np.repeat(kv, size)
    step()
    fu = off[inst.edge_u][eid] + s_idx   # flat strategy index of the tail's choice
    fv = off[inst.edge_v][eid] + t_idx
    del local
    step()
    keep = (inst.edge_cost < FORBIDDEN) & ok[fu] & ok[fv]
    eid, s_idx, t_idx, fu, fv = eid[keep], s_idx[keep], t_idx[keep], fu[keep], fv[keep]
    step()
    ny = int(keep.sum())
    yb = b.add_block("y", ny, upper=1, cost=inst.edge_cost[keep])
    del keep
    step()
    # one-hot rows
    b.add_sparse_rows("one_hot", node_of[ok], xb.ravel(), np.ones(xb.size), n, lower=1, upper=1)
    # marginal rows: (e, tail strategy s) and (e, head strategy t) with -x and +y entries
    eu_rows = np.repeat(np.arange(m), ku)
    eu_flat = np.concatenate([np.arange(off[u], off[u + 1]) for u in inst.edge_u]) if m else np.zeros(0, np.int64)
    ev_rows = np.repeat(np.arange(m), kv)
    ev_flat = np.concatenate([np.arange(off[v], off[v + 1]) for v in inst.edge_v]) if m else np.zeros(0, np.int64)
    tail_base = np.concatenate([[0], np.cumsum(ku)])[:-1]
    head_base = np.concatenate([[0], np.cumsum(kv)])[:-1]
    nt, nh = int(ku.sum()), int(kv.sum())
    step()
    # tail rows: row r = tail_base[e] + s
    rows_y_tail = tail_base[eid] + s_idx
    rows_y_head = nt + head_base[eid] + t_idx
    rows_x_tail = tail_base[eu_rows] + (eu_flat - off[inst.edge_u][eu_rows])
    rows_x_head = nt + head_base[ev_rows] + (ev_flat - off[inst.edge_v][ev_rows])
    xt, xh = ok[eu_flat], ok[ev_flat]
    step()
    rows = np.concatenate([rows_y_tail, rows_y_head, rows_x_tail[xt], rows_x_head[xh]])
    cols = np.concatenate([yb.ravel(), yb.ravel(), xcol[eu_flat[xt]], xcol[ev_flat[xh]]])
    del rows_y_tail, rows_y_head
    step()
    vals = np.concatenate([np.ones(2 * ny), -np.ones(int(xt.sum()) + int(xh.sum()))])
    # the rows that have an entry, numbered in order (as np.unique's inverse, in linear time)
    present = np.zeros(nt + nh, dtype=bool)
    present[rows] = True
    rows = (np.cumsum(present) - 1)[rows]
    used = int(present.sum())
    step()
    b.add_sparse_rows("marginals", rows, cols, vals, used, lower=0, upper=0)
    del rows, cols, vals
    step()
    if memory and inst.usage_limit is not None:
        points = maximal_starts(inst)
        live_node = inst.end > inst.start
        base = np.minimum.reduceat(inst.usage, off[:-1])
        extra = inst.usage - np.repeat(base, k)
        pa = np.searchsorted(points, inst.start, side="left")
        pb = np.where(live_node, np.searchsorted(points, inst.end, side="left"), pa)
        live_node = live_node & (pb > pa)
        P = points.size
        flat = np.flatnonzero((extra > 0) & ok & live_node[node_of])
        cover = pb - pa
        dense_nnz = int(cover[node_of[flat]].sum())
        form = memory_form if memory_form != "auto" else ("rows" if dense_nnz <= DENSE_MEMORY_NNZ else "recurrence")
        if form == "rows":
            # one row per point over the live nodes' strategies
            base_at = np.bincount(np.repeat(pa[live_node], cover[live_node]) + _ranges(cover[live_node]),
                                  weights=np.repeat(base[live_node], cover[live_node]), minlength=P)
            reps = cover[node_of[flat]]
            rows = np.repeat(pa[node_of[flat]], reps) + _ranges(reps)
            b.add_sparse_rows("memory", rows, np.repeat(xcol[flat], reps), np.repeat(extra[flat], reps), P,
                              upper=inst.usage_limit - base_at)
        else:
            # a load column per point with m_j - m_{j-1} = U(entering at j) - U(leaving at j)
            mb = b.add_block("load", P, lower=-np.inf, upper=inst.usage_limit)
            const = np.bincount(pa[live_node], weights=base[live_node], minlength=P + 1)[:P] - \
                np.bincount(pb[live_node], weights=base[live_node], minlength=P + 1)[:P]
            enter_rows, leave_rows = pa[node_of[flat]], pb[node_of[flat]]
            inside = leave_rows < P
            rows = np.concatenate([np.arange(P), np.arange(1, P), enter_rows, leave_rows[inside]])
            cols = np.concatenate([mb.ravel(), mb.ravel()[:-1], xcol[flat], xcol[flat[inside]]])
            vals = np.concatenate([np.ones(P), -np.ones(P - 1), -extra[flat], extra[flat[inside]]])
            b.add_sparse_rows("memory", rows, cols, vals, P, lower=const, upper=const)
    step()
    model = b.build()
    if model.objective_granularity is None and np.all(model.cost == np.round(model.cost)):
        # y is integral at integral x (the equality marginals force y = x_u x_v^T)
        model = dataclasses.replace(model, objective_granularity=1.0)
    object.__setattr__(model, "x_index", xcol)  # flat strategy -> x column (or -1)
    return model


def decode(inst: IntraOpInstance, model: LinearModel, x: np.ndarray) -> dict:
    """The strategy per node of a model point (the largest x value among a node's strategies)."""
    xcol = model.x_index
    xv = np.where(xcol >= 0, x[np.maximum(xcol, 0)], -1.0)
    s = [int(np.argmax(xv[inst.offsets[v]:inst.offsets[v + 1]])) for v in range(inst.num_nodes)]
    return {"strategy": s}
