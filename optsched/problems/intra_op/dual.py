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
  nodes at once with damping, compiled loops over the flat edge-cost array]; the best value seen
  is kept.

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
    edges ``(a, b)`` with ``k_a x k_b`` matrices stored row-major in one flat array ``E``. Per
    edge, ``phi_a`` holds one entry per strategy of its tail and ``phi_b`` one per strategy of its
    head (offsets ``aoff`` / ``boff``). The diffusion and the bound are compiled loops over ``E``
    (:mod:`.kernels`): besides ``E`` nothing of its size is held or allocated (on a file with
    1.45e8 edge-cost entries the earlier numpy form held five index arrays of that size)."""

    def __init__(self, el: Elimination):
        self.el = el
        nodes = sorted(el.unary)
        self.nodes = np.array(nodes, dtype=np.int64)
        pos = {v: i for i, v in enumerate(nodes)}
        k = np.array([len(el.unary[v]) for v in nodes], dtype=np.int64)
        self.k = k
        self.noff = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
        self.theta = np.concatenate([el.unary[v] for v in nodes]).astype(float) if nodes else np.zeros(0)
        keys = list(el.edges)
        self.keys = keys
        self.ea = np.array([pos[a] for a, b in keys], dtype=np.int64)
        self.eb = np.array([pos[b] for a, b in keys], dtype=np.int64)
        ka, kb = k[self.ea], k[self.eb]
        self.E = self._flat(el)
        self.eoff = np.concatenate([[0], np.cumsum(ka * kb)]).astype(np.int64)
        self.aoff = np.concatenate([[0], np.cumsum(ka)]).astype(np.int64)
        self.boff = np.concatenate([[0], np.cumsum(kb)]).astype(np.int64)
        self._share(el)
        self.deg = np.bincount(np.concatenate([self.ea, self.eb]), minlength=len(nodes)).astype(float)
        self.phi_a = np.zeros(int(ka.sum()))
        self.phi_b = np.zeros(int(kb.sum()))
        self.entries = int(self.E.size)

    def set_costs(self, el: Elimination) -> None:
        """New unary and edge costs of the same core structure (keeps ``phi``: a warm start)."""
        self.el = el
        self.theta = np.concatenate([el.unary[int(v)] for v in self.nodes]).astype(float) if self.nodes.size \
            else np.zeros(0)
        if self.keys:
            self.E = self._flat(el)
        self._share(el)

    def _flat(self, el: Elimination) -> np.ndarray:
        """The core matrices in the order of ``keys``, row-major, in one float array: the
        elimination's own flat array when its matrices are still laid out in it in that order
        (:meth:`.elimination.Elimination.flat_layout`: no copy), else their concatenation."""
        if not self.keys:
            return np.zeros(0)
        flat = el.flat_layout()
        if flat is not None and list(el.edges) == self.keys and flat.dtype == np.float64:
            return flat
        return np.concatenate([el.edges[key].ravel() for key in self.keys]).astype(float)

    def release(self) -> None:
        """Drop the edge costs and the elimination (keeps the structure and ``phi``): before the
        next elimination of a priced problem, whose :meth:`set_costs` follows, so that the old
        and the new core costs are not held at once (1.2 GB each on a 1.45e8-entry file)."""
        self.E = np.zeros(0)
        self.el = None

    def _share(self, el: Elimination) -> None:
        """Make the elimination's core matrices views of ``E`` (the same numbers, held once: on a
        file with 1.45e8 edge-cost entries each copy is 1.2 GB); nothing to do when ``E`` is the
        elimination's own flat array."""
        if self.E is el.flat:
            return
        for e, key in enumerate(self.keys):
            shape = el.edges[key].shape
            el.edges[key] = self.E[self.eoff[e]:self.eoff[e + 1]].reshape(shape)

    def _phi(self) -> tuple[np.ndarray, np.ndarray]:
        # the kernels need contiguous float arrays (a caller may have assigned any array)
        self.phi_a = np.ascontiguousarray(self.phi_a, dtype=float)
        self.phi_b = np.ascontiguousarray(self.phi_b, dtype=float)
        return self.phi_a, self.phi_b

    def _node_theta(self) -> np.ndarray:
        from .kernels import reparam_node_theta

        th = np.empty_like(self.theta)
        reparam_node_theta(self.theta, self.noff, self.k, self.ea, self.eb, self.aoff, self.boff, *self._phi(), th)
        return th

    def bound(self) -> float:
        """``sum_v min theta_v^phi + sum_e min theta_e^phi`` (a lower bound on the core's minimum)."""
        from .kernels import reparam_bound

        if not self.theta.size:
            return 0.0
        return float(reparam_bound(self.theta, self.noff, self.k, self.ea, self.eb, self.eoff, self.aoff, self.boff,
                                   self.E, *self._phi(), np.empty_like(self.theta)))

    def diffuse(self, sweeps: int, *, damping: float = 0.5, clock: Deadline | None = None,
                check_every: int = 5) -> float:
        """Damped min-sum diffusion on all nodes at once; returns the best bound seen among those
        evaluated (every ``check_every`` sweeps and after the last; ``phi`` is left at the best)."""
        from .kernels import diffusion_sweep

        best = self.bound()
        best_phi = (self.phi_a.copy(), self.phi_b.copy())
        if not self.E.size:
            return best
        # the best phi is copied into these two buffers (not into new arrays: at 7e6 entries each,
        # a new pair beside the old one was 110 MB more at the peak)
        ma, mb, tot = np.empty_like(self.phi_a), np.empty_like(self.phi_b), np.empty_like(self.theta)
        for i in range(sweeps):
            if clock is not None and clock.expired():
                break
            diffusion_sweep(self.theta, self.noff, self.k, self.ea, self.eb, self.eoff, self.aoff, self.boff,
                            self.E, *self._phi(), self.deg, float(damping), ma, mb, tot)
            if (i + 1) % check_every and i + 1 < sweeps:
                continue  # the bound costs as much as a sweep: evaluated every few sweeps
            val = self.bound()
            if val > best:
                best = val
                np.copyto(best_phi[0], self.phi_a)
                np.copyto(best_phi[1], self.phi_b)
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
