"""Node and edge elimination (OneFlow's ``NodeAndEdgeEliminations``) as an exact DP [code, ours].

OneFlow's SBP search [code: Oneflow-Inc/oneflow oneflow/core/auto_parallel/sbp_graph.cpp,
``NodeAndEdgeEliminations``, ``NodeElimination``, ``EdgeElimination``, ``ChildElimination``;
read, not copied] shrinks the operator graph before its greedy search by three reductions that
do not change the optimum of the cost sum (memory is not part of OneFlow's objective):

* **parallel edges** between the same two nodes are merged (their matrices add);
* a **leaf** (degree-1 node v with neighbour u) is folded into u:
  ``c_u[s] += min_t (E_uv[s, t] + c_v[t])``;
* a **degree-2 node** v with neighbours u != w becomes a compound edge
  ``E_uw[s, r] = min_t (E_uv[s, t] + c_v[t] + E_vw[t, r])``.

Each step stores its argmin table, so a choice for the remaining nodes extends to an optimal
choice for the eliminated ones (back-substitution in reverse order). When the graph reduces to
isolated nodes (series-parallel graphs, trees, and any graph of treewidth <= 2 without an
oversized step), choosing each remaining node's cheapest strategy and back-substituting is an
exact minimization of the cost sum: this is the ``dp`` method. Otherwise a **core** of nodes of
degree >= 3 remains, with unary costs and edge matrices that already contain the eliminated
nodes' optimal reactions; OneFlow searches it greedily.

Complexity: a degree-2 step costs O(k_u k_v k_w); steps with ``k_u k_v k_w`` above ``max_work``
are skipped (the node stays in the core). Total O(sum of step costs) plus dictionary work per
node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .instance import IntraOpInstance

__all__ = ["Elimination", "eliminate", "LEAN_ENTRIES"]

#: edge-cost entries above which an instance with forbidden edge entries is eliminated without a
#: whole working copy of its edge costs (16.8 M entries: a copy of 134 MB) [ours]
LEAN_ENTRIES = 1 << 24


@dataclass
class Elimination:
    """Result of :func:`eliminate`: the core and how to extend a core choice to all nodes."""

    inst: IntraOpInstance
    unary: dict[int, np.ndarray]                     # core node -> unary cost vector
    edges: dict[tuple[int, int], np.ndarray]         # (a, b), a < b, core edges -> k_a x k_b matrix
    steps: list = field(default_factory=list)        # (kind, v, neighbours, argmin table)
    counts: dict = field(default_factory=dict)
    #: the core edges' matrices, row-major, one after the other in the order of ``edges``, each
    #: ``edges`` matrix a view of it: made by :func:`eliminate` on large files, else by the first
    #: :meth:`flat_layout` (None until then)
    flat: np.ndarray | None = None

    def flat_layout(self) -> np.ndarray | None:
        """The core matrices in one flat array, ``edges``' matrices views of it, in order: laid
        out on the first call (the numbers the matrices hold; the dictionary's matrices replaced
        by views of it), then ``flat`` as long as every matrix is still its view (else None: a
        caller replaced one)."""
        flat = self.flat
        if flat is None:
            mats = list(self.edges.values())
            flat = self.flat = np.concatenate([m.ravel() for m in mats]).astype(float, copy=False) if mats \
                else np.zeros(0)
            pos = 0
            for key, m in zip(list(self.edges), mats):
                self.edges[key] = flat[pos:pos + m.size].reshape(m.shape)
                pos += m.size
            return flat
        pos = 0
        for mat in self.edges.values():
            if mat.base is not flat or not mat.flags.c_contiguous or \
                    mat.__array_interface__["data"][0] != flat.__array_interface__["data"][0] + 8 * pos:
                return None
            pos += mat.size
        return flat if pos == flat.size else None

    @property
    def core(self) -> list[int]:
        return sorted(self.unary)

    @property
    def fully_reduced(self) -> bool:
        """No core edges left: the remaining nodes are independent."""
        return not self.edges

    def core_value(self, choice: dict[int, int]) -> float:
        val = sum(float(self.unary[v][choice[v]]) for v in self.unary)
        val += sum(float(m[choice[a], choice[b]]) for (a, b), m in self.edges.items())
        return val

    def extend(self, choice: dict[int, int]) -> np.ndarray:
        """Back-substitute: strategies for every node from strategies of the core nodes."""
        s = np.full(self.inst.num_nodes, -1, dtype=np.int64)
        for v, c in choice.items():
            s[v] = c
        for kind, v, nbrs, table in reversed(self.steps):
            if kind == "leaf":
                s[v] = table[s[nbrs[0]]]
            elif kind == "series":
                s[v] = table[s[nbrs[0]], s[nbrs[1]]]
            else:  # pragma: no cover - no other kinds
                raise AssertionError(kind)
        return s

    def independent_choice(self) -> dict[int, int]:
        """Each core node's cheapest strategy (optimal for the core when it has no edges)."""
        return {v: int(np.argmin(c)) for v, c in self.unary.items()}


def eliminate(inst: IntraOpInstance, *, max_work: int = 20_000_000) -> Elimination:
    """Apply parallel-edge merging, leaf folding and degree-2 elimination until none applies.

    >>> from optsched.problems.intra_op.generate import generate
    >>> inst = generate(0, preset="tiny")
    >>> el = eliminate(inst)
    >>> el.fully_reduced
    True
    """
    from .instance import FORBIDDEN
    from .structure import at_penalty, working_penalty

    k = inst.num_strategies
    off, eoff = inst.offsets, inst.edge_offsets
    # forbidden entries at one finite penalty (:func:`.structure.working_costs`). On a large file
    # with forbidden edge entries ("lean") the edge costs are not copied as a whole: an untouched
    # edge's matrix is a read-only view of the instance's array ("raw", in ``raw``) until it
    # enters a sum, where its working values are made, and the core's raw matrices get theirs in
    # the flat array below (a whole copy of 1.45e8 entries is 1.2 GB, and the core holds
    # another); otherwise the matrices are views of the working copy (or of the instance's array
    # when nothing is forbidden), as fast as before
    penalty, bad_n, bad_e = working_penalty(inst)
    node_w = at_penalty(inst.cost, penalty, bad_n)
    lean = bad_e and inst.edge_cost.size > LEAN_ENTRIES
    src = inst.edge_cost if lean else at_penalty(inst.edge_cost, penalty, bad_e)
    unary = {v: node_w[off[v]:off[v + 1]].astype(float) for v in range(inst.num_nodes)}
    adj: dict[int, dict[int, np.ndarray]] = {v: {} for v in range(inst.num_nodes)}
    raw: set[tuple[int, int]] = set()

    def work(a: int, b: int, m: np.ndarray) -> np.ndarray:
        """m = adj[a][b] with working values (lean only: a new array when raw)."""
        if (min(a, b), max(a, b)) in raw:
            return np.where(m >= FORBIDDEN, penalty, m)
        return m

    merged = 0
    for e in range(inst.num_edges):
        u, v = int(inst.edge_u[e]), int(inst.edge_v[e])
        mat = src[eoff[e]:eoff[e + 1]].reshape(k[u], k[v])
        if v in adj[u]:
            if lean:
                adj[u][v] = work(u, v, adj[u][v]) + np.where(mat >= FORBIDDEN, penalty, mat)
                raw.discard((min(u, v), max(u, v)))
            else:
                adj[u][v] = adj[u][v] + mat
            adj[v][u] = adj[u][v].T
            merged += 1
        else:
            adj[u][v] = mat
            adj[v][u] = mat.T
            if lean:
                raw.add((min(u, v), max(u, v)))
    steps = []
    counts = {"parallel_merged": merged, "leaf": 0, "series": 0, "series_skipped_size": 0}
    stack = [v for v in range(inst.num_nodes) if 1 <= len(adj[v]) <= 2]
    skipped: set[int] = set()
    while stack:
        v = stack.pop()
        if v not in unary:
            continue
        deg = len(adj[v])
        if deg == 1:
            (u, m_uv), = adj[v].items()   # m_uv is oriented v -> u: shape k_v x k_u
            if lean:
                m_uv = work(v, u, m_uv)
            tot = m_uv + unary[v][:, None]          # [t, s]
            arg = np.argmin(tot, axis=0)
            unary[u] = unary[u] + tot[arg, np.arange(tot.shape[1])]
            del adj[u][v]
            steps.append(("leaf", v, (u,), arg))
            counts["leaf"] += 1
        elif deg == 2:
            (u, m_vu), (w, m_vw) = adj[v].items()
            if int(k[u]) * int(k[v]) * int(k[w]) > max_work:
                counts["series_skipped_size"] += 1
                skipped.add(v)
                continue
            if lean:
                m_vu, m_vw = work(v, u, m_vu), work(v, w, m_vw)
            # tot[s, t, r] = E_uv[s, t] + c_v[t] + E_vw[t, r]
            tot = m_vu.T[:, :, None] + unary[v][None, :, None] + m_vw[None, :, :]
            arg = np.argmin(tot, axis=1)
            new = np.take_along_axis(tot, arg[:, None, :], axis=1)[:, 0, :]
            del adj[u][v], adj[w][v]
            if w in adj[u]:
                adj[u][w] = (work(u, w, adj[u][w]) if lean else adj[u][w]) + new
                counts["parallel_merged"] += 1
            else:
                adj[u][w] = new
            if lean:
                raw.discard((min(u, w), max(u, w)))   # computed now (also a pair once raw, then deleted)
            adj[w][u] = adj[u][w].T
            steps.append(("series", v, (u, w), arg))
            counts["series"] += 1
        else:
            continue
        del unary[v], adj[v]
        for x in (u,) if deg == 1 else (u, w):
            if 1 <= len(adj[x]) <= 2 and x not in skipped:
                stack.append(x)
    edges = {}
    for a, nb in adj.items():
        for b, mat in nb.items():
            if a < b:
                edges[(a, b)] = mat
    flat = None
    if lean:
        # the core matrices laid out in one flat array (the numbers the dictionary held, each raw
        # one at its working values), the dictionary's matrices made views of it: held once
        flat = np.empty(sum(mat.size for mat in edges.values()))
        pos = 0
        for key, mat in edges.items():
            seg = flat[pos:pos + mat.size].reshape(mat.shape)
            seg[...] = mat
            if key in raw:
                np.copyto(seg, penalty, where=seg >= FORBIDDEN)
            edges[key] = seg
            pos += mat.size
    counts["core_nodes"] = sum(1 for v in unary if adj[v])
    counts["core_edges"] = len(edges)
    return Elimination(inst, unary, edges, steps, counts, flat)
