"""Memory prices searched by compiled local moves, each relaxed plan repaired [ours; the idea of
adaptive usage penalties is the IOPDDL contest winner's, read in its public code and paper, not
copied].

Each step prices memory at every compressed time point (``lam_j >= 0``), so node v's strategy t
costs ``c_v(t) + u_v(t) * sum_{j live} lam_j`` and memory leaves the constraints. The priced,
memory-free problem is improved from the previous step's relaxed plan by compiled node and pair
moves (:mod:`.kernels`; a warm start, not an exact solve: this stage gives plans, never a
bound). A copy of the relaxed plan is repaired greedily (:func:`.kernels.repair`, least extra
cost per byte at the most loaded point), polished by memory-feasible node and pair moves under
the real costs and offered as a candidate. The prices then move against the relaxed plan's
overloads, ``lam_j <- max(0, lam_j + theta * scale * (load_j - M) / M)``, where ``scale`` is a
typical cost per byte of the instance divided by a typical live length, and ``theta`` halves
after ``patience`` steps without a better candidate.

Every candidate is memory-feasible (the repair only lowers usage until every point fits; the
polish only accepts moves that fit) and is checked again by the caller before it is kept.
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.clock import Deadline

from .instance import IntraOpInstance, plan_cost
from .kernels import loads, node_sweep, pair_sweep, repair

__all__ = ["price_scale", "penalty_search"]


def price_scale(inst: IntraOpInstance, st) -> float:
    """A typical cost per byte per live time point: the median over changeable nodes of (cost
    range / usage range) of their allowed strategies, over the median live length."""
    ok = st.allowed
    c = np.where(ok, inst.cost, np.nan)
    u = np.where(ok, inst.usage, np.nan)
    with np.errstate(all="ignore"):
        crange = np.fmax.reduceat(c, st.off[:-1]) - np.fmin.reduceat(c, st.off[:-1])
        urange = np.fmax.reduceat(u, st.off[:-1]) - np.fmin.reduceat(u, st.off[:-1])
        ratio = crange / urange
    good = np.isfinite(ratio) & (urange > 0) & (crange > 0)
    length = (st.b - st.a)[st.b > st.a]
    if not good.any() or not length.size:
        return 1.0
    return float(np.median(ratio[good])) / max(1.0, float(np.median(length)))


def penalty_search(inst: IntraOpInstance, st, start: np.ndarray, clock: Deadline, *, offer,
                   max_steps: int = 100_000, patience: int = 5, pairs: bool = True, debug: bool = False,
                   theta0: float = 1.0) -> dict:
    """Run the price loop from the relaxed plan ``start`` until ``clock``; every repaired and
    polished candidate goes to ``offer(s) -> bool`` (True when it was the best so far). Returns
    statistics (steps, candidates, improvements, the last theta)."""
    if not (math.isfinite(st.limit) and len(st.times)):
        return {"penalty_steps": 0}
    K = st.kernel
    G = K.graph
    npts = len(st.times)
    limit = float(st.limit)
    tol = 1e-9 * limit
    half = st.penalty / 2
    n = inst.num_nodes
    nodes = np.arange(n, dtype=np.int64)
    edges = np.arange(inst.num_edges, dtype=np.int64)
    rep = np.repeat(np.arange(n), K.k)
    scale = price_scale(inst, st)
    lam = np.zeros(npts)
    rel = np.ascontiguousarray(start, np.int64).copy()
    theta, stale, steps, found, cands = theta0, 0, 0, 0, 0
    while not clock.expired() and steps < max_steps:
        steps += 1
        cum = np.concatenate([[0.0], np.cumsum(lam)])
        pen = np.where(K.b > K.a, cum[K.b] - cum[K.a], 0.0)
        priced = K.node_cost + pen[rep] * K.usage
        local = K.local(rel, priced)
        relload = loads(rel, K.a, K.b, K.usage, K.off, npts)
        flags = np.zeros(n, np.bool_)
        for _ in range(3):  # the priced problem, memory-free: warm-started local moves
            g = node_sweep(nodes, rel, local, relload, K.a, K.b, K.usage, math.inf, 0.0, *G, flags)
            if pairs:
                g += pair_sweep(edges, K.eu, K.ev, rel, local, relload, K.a, K.b, K.usage, math.inf, 0.0, *G,
                                40_000, flags)
            if g <= 0 or clock.expired():
                break
        cand = rel.copy()
        cload = relload.copy()
        clocal = K.local(cand)
        ok = repair(cand, clocal, cload, K.a, K.b, K.usage, limit, tol, half, *G, flags, 200_000)
        if ok:
            for _ in range(5):  # the real costs, memory kept
                g = node_sweep(nodes, cand, clocal, cload, K.a, K.b, K.usage, limit, tol, *G, flags)
                if pairs:
                    g += pair_sweep(edges, K.eu, K.ev, cand, clocal, cload, K.a, K.b, K.usage, limit, tol, *G,
                                    40_000, flags)
                if g <= 0 or clock.expired():
                    break
            cands += 1
            if offer(cand):
                found += 1
                stale = 0
            else:
                stale += 1
        else:
            stale += 1
        if stale >= patience:
            theta, stale = max(theta / 2, 1e-3), 0
        over = (relload - limit) / limit
        if debug: print(steps, round(float(over.max()), 3), ok, plan_cost(inst, cand)[0] if ok else None, theta, flush=True)
        lam = np.maximum(0.0, lam + theta * scale * over)
    return {"penalty_steps": steps, "penalty_candidates": cands, "penalty_improvements": found,
            "penalty_theta": theta, "penalty_scale": scale}
