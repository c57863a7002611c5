"""Certified lower bounds for ``intra-op`` without a MILP solve [ours].

Two relaxations, both valid for any multipliers (so every value they report is a proof that no
plan costs less, whatever the quality of the search that produced the multipliers):

* **Lagrangian relaxation of the memory rows.** With a price ``lam_j >= 0`` per time point j
  (the interval starts, where the load is maximal), every plan x satisfies
  ``cost(x) >= cost(x) + sum_j lam_j (load_j(x) - M)``, and the right-hand side is an
  *unconstrained* pairwise problem with node costs ``c_v(s) + u_v(s) * sum_{j live} lam_j``
  minus the constant ``M * sum_j lam_j``. Any lower bound of that pairwise problem minus the
  constant is a lower bound on OPT.
* **Lower bound of the pairwise problem.** The exact eliminations of :mod:`.elimination`
  (leaves, degree-2 nodes; min-sum steps that keep the optimum) leave a core; on the core any
  *reparametrization* ``phi`` (per edge end and strategy) gives
  ``min >= sum_v min_s theta_v^phi(s) + sum_e min_{s,t} theta_e^phi(s,t)`` (the dual of the
  local-polytope LP). ``phi`` is improved by damped min-sum diffusion [reconstruction: Schlesinger's
  diffusion / Werner 2007, "A linear programming approach to max-sum problem", run here on all
  nodes at once with damping, vectorised over flat arrays]; the best value seen is kept.

Forbidden entries (cost >= 1e15) enter at the finite working penalty of
:func:`.state.working_costs`, which is lower than the true (infinite) cost: a relaxation, so the
bound stays valid. Strategies whose usage alone exceeds the limit on a live node are forbidden
(no plan can take them).
"""

from __future__ import annotations

import math

import numpy as np

from optsched.core.clock import Deadline

from .elimination import Elimination, eliminate
from .instance import FORBIDDEN, IntraOpInstance

__all__ = ["Core", "core_arrays", "priced_instance", "node_prices", "lagrangian_value"]


def node_prices(st, price: np.ndarray) -> np.ndarray:
    """Per node, the sum of the prices of the time points at which it is live."""
    cum = np.concatenate([[0.0], np.cumsum(price)])
    live = st.b > st.a
    return np.where(live, cum[st.b] - cum[st.a], 0.0)


def priced_instance(inst: IntraOpInstance, st, price: np.ndarray | None) -> IntraOpInstance:
    """The memory-free instance with node costs ``c + u * (sum of prices over live points)``;
    strategies whose usage alone exceeds the limit on a live node become forbidden."""
    import dataclasses

    cost = np.array(inst.cost, dtype=float)
    if price is not None and price.size:
        lam = node_prices(st, price)
        cost = cost + np.repeat(lam, inst.num_strategies) * inst.usage
    if math.isfinite(st.limit):
        live = np.repeat(st.b > st.a, inst.num_strategies)
        cost = np.where(live & (inst.usage > st.limit * (1 + 1e-12)), 2 * FORBIDDEN, cost)
    cost = np.minimum(cost, 2 * FORBIDDEN)
    return dataclasses.replace(inst, cost=cost, usage_limit=None)


class Core:
    """The elimination core as flat arrays, with a reparametrization ``phi`` and diffusion.

    Nodes: the core's nodes (with their unary costs, after the eliminations). Edges: the core
    edges ``(a, b)`` with ``k_a x k_b`` matrices stored row-major in one flat array."""

    def __init__(self, el: Elimination):
        self.el = el
        nodes = sorted(el.unary)
        self.nodes = np.array(nodes, dtype=np.int64)
        pos = {v: i for i, v in enumerate(nodes)}
        k = np.array([len(el.unary[v]) for v in nodes], dtype=np.int64)
        self.k = k
        self.noff = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
        self.theta = np.concatenate([el.unary[v] for v in nodes]) if nodes else np.zeros(0)
        keys = list(el.edges)
        self.keys = keys
        ea = np.array([pos[a] for a, b in keys], dtype=np.int64)
        eb = np.array([pos[b] for a, b in keys], dtype=np.int64)
        self.ea, self.eb = ea, eb
        m = len(keys)
        ka, kb = k[ea], k[eb]
        size = ka * kb
        self.E = np.concatenate([el.edges[key].ravel() for key in keys]) if m else np.zeros(0)
        self.eoff = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
        eid = np.repeat(np.arange(m, dtype=np.int32 if m < 2**31 else np.int64), size)
        local = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(self.eoff[:-1], size)
        s = local // np.repeat(kb, size)
        t = local - s * np.repeat(kb, size)
        # edge-end ids: tail ends (e, s) in [0, A), head ends (e, t) in [0, B)
        self.aoff = np.concatenate([[0], np.cumsum(ka)]).astype(np.int64)
        self.boff = np.concatenate([[0], np.cumsum(kb)]).astype(np.int64)
        self.rowid = (self.aoff[:-1][eid] + s) if m else np.zeros(0, np.int64)
        self.colid = (self.boff[:-1][eid] + t) if m else np.zeros(0, np.int64)
        # row segments are contiguous (row-major); columns through a permutation
        self.row_starts = (self.eoff[:-1][np.repeat(np.arange(m), ka)]
                           + (np.arange(int(ka.sum())) - np.repeat(self.aoff[:-1], ka)) * np.repeat(kb, ka)) \
            if m else np.zeros(0, np.int64)
        self.col_perm = np.lexsort((s, self.colid)) if m else np.zeros(0, np.int64)
        self.col_starts = np.searchsorted(self.colid[self.col_perm], np.arange(int(kb.sum()))) if m \
            else np.zeros(0, np.int64)
        # node strategy of each edge end
        self.a_node = (self.noff[ea][np.repeat(np.arange(m), ka)] + np.arange(int(ka.sum()))
                       - np.repeat(self.aoff[:-1], ka)) if m else np.zeros(0, np.int64)
        self.b_node = (self.noff[eb][np.repeat(np.arange(m), kb)] + np.arange(int(kb.sum()))
                       - np.repeat(self.boff[:-1], kb)) if m else np.zeros(0, np.int64)
        # int32 indices when they fit: half the memory of the per-entry index arrays
        idx = np.int32 if self.eoff[-1] < 2**31 - 1 else np.int64
        self.rowid, self.colid = self.rowid.astype(idx), self.colid.astype(idx)
        self.row_starts, self.col_perm = self.row_starts.astype(np.int64), self.col_perm.astype(idx)
        self.deg = np.bincount(np.concatenate([ea, eb]), minlength=len(nodes)).astype(float)
        self.phi_a = np.zeros(int(ka.sum()))
        self.phi_b = np.zeros(int(kb.sum()))
        self.entries = int(size.sum())

    def set_costs(self, el: Elimination) -> None:
        """New unary and edge costs of the same core structure (keeps ``phi``: a warm start)."""
        self.el = el
        self.theta = np.concatenate([el.unary[int(v)] for v in self.nodes]) if self.nodes.size else np.zeros(0)
        if self.keys:
            self.E = np.concatenate([el.edges[key].ravel() for key in self.keys])

    def _node_theta(self) -> np.ndarray:
        th = self.theta.copy()
        if self.phi_a.size:
            th += np.bincount(self.a_node, weights=self.phi_a, minlength=th.size)
            th += np.bincount(self.b_node, weights=self.phi_b, minlength=th.size)
        return th

    def bound(self) -> float:
        """``sum_v min theta_v^phi + sum_e min theta_e^phi`` (a lower bound on the core's minimum)."""
        th = self._node_theta()
        val = float(np.minimum.reduceat(th, self.noff[:-1]).sum()) if th.size else 0.0
        if self.E.size:
            te = self.E - self.phi_a[self.rowid] - self.phi_b[self.colid]
            val += float(np.minimum.reduceat(te, self.eoff[:-1]).sum())
        return val

    def diffuse(self, sweeps: int, *, damping: float = 0.5, clock: Deadline | None = None,
                check_every: int = 5) -> float:
        """Damped min-sum diffusion on all nodes at once; returns the best bound seen among those
        evaluated (every ``check_every`` sweeps and after the last; ``phi`` is left at the best)."""
        best = self.bound()
        best_phi = (self.phi_a.copy(), self.phi_b.copy())
        if not self.E.size:
            return best
        dega = self.deg[self.ea][np.repeat(np.arange(len(self.keys)), self.k[self.ea])]
        degb = self.deg[self.eb][np.repeat(np.arange(len(self.keys)), self.k[self.eb])]
        for i in range(sweeps):
            if clock is not None and clock.expired():
                break
            ma = np.minimum.reduceat(self.E - self.phi_b[self.colid], self.row_starts)
            mb = np.minimum.reduceat((self.E - self.phi_a[self.rowid])[self.col_perm], self.col_starts)
            tot = self.theta + np.bincount(self.a_node, weights=ma, minlength=self.theta.size) \
                + np.bincount(self.b_node, weights=mb, minlength=self.theta.size)
            na = ma - tot[self.a_node] / (dega + 1)
            nb = mb - tot[self.b_node] / (degb + 1)
            self.phi_a = (1 - damping) * self.phi_a + damping * na
            self.phi_b = (1 - damping) * self.phi_b + damping * nb
            if (i + 1) % check_every and i + 1 < sweeps:
                continue  # the bound costs as much as a sweep: evaluated every few sweeps
            val = self.bound()
            if val > best:
                best, best_phi = val, (self.phi_a.copy(), self.phi_b.copy())
        self.phi_a, self.phi_b = best_phi
        return best

    def sequential_decode(self) -> dict[int, int]:
        """Each core node's strategy by sequential decoding (:func:`.kernels.sequential_decode`):
        nodes of larger degree first (a hub decides before the neighbours that follow it), each
        given the choices of its decided neighbours through the reparametrized edge costs."""
        from .kernels import sequential_decode

        n = self.nodes.size
        if "_inc" not in self.__dict__:
            m = len(self.keys)
            ends = np.concatenate([self.ea, self.eb])
            order = np.argsort(ends, kind="stable")
            inc_e = np.concatenate([np.arange(m), np.arange(m)])[order].astype(np.int64)
            inc_ptr = np.searchsorted(ends[order], np.arange(n + 1)).astype(np.int64)
            node_order = np.lexsort((np.arange(n), -self.deg)).astype(np.int64)
            self._inc = (inc_ptr, inc_e, node_order)
        inc_ptr, inc_e, node_order = self._inc
        x = np.full(n, -1, dtype=np.int64)
        if n:
            sequential_decode(node_order, self._node_theta(), self.noff, self.k, self.ea, self.eb, self.eoff,
                              np.ascontiguousarray(self.E, dtype=np.float64), self.phi_a, self.phi_b,
                              self.aoff, self.boff, inc_ptr, inc_e, x)
        return {int(v): int(x[i]) for i, v in enumerate(self.nodes)}

    def decode(self) -> dict[int, int]:
        """Each core node's best strategy under the reparametrized unary costs."""
        th = self._node_theta()
        out = {}
        for i, v in enumerate(self.nodes):
            seg = th[self.noff[i]:self.noff[i + 1]]
            out[int(v)] = int(np.argmin(seg))
        return out


def core_arrays(inst: IntraOpInstance) -> tuple[Elimination, Core]:
    el = eliminate(inst)
    return el, Core(el)


def lagrangian_value(core_bound: float, price: np.ndarray, limit: float) -> float:
    """``L(lam) = (lower bound of the priced problem) - M * sum_j lam_j``."""
    return core_bound - (limit * float(price.sum()) if price is not None and price.size else 0.0)
