"""Compiled multilevel kernels of method ``bgl`` on compact CSR arrays [ours; BGL's BFS order
reconstructed; docs ``optsched/problems/graph_partition/README.md``, "bgl: the multi-level partitioner"].

Every kernel works on ``indptr`` (int64), ``indices`` (int32 or int64) and ``data`` (float64 or
float32) of the symmetric traffic-weighted adjacency, node weights ``w`` of shape ``(rows, n)`` and
capacities ``(rows, k)``; no Python object per node or edge, and the coarse levels store int32
indices. The steps:

* :func:`bfs_order` -- BGL's visiting order [reconstruction]: every node once, in BFS order from
  random roots (a queue array, O(n + m)).
* :func:`cluster_level` -- one coarsening level [ours, after size-constrained label propagation,
  Meyerhenke, Sanders & Schulz 2014]: nodes visited in BFS order join the neighbouring cluster with
  the heaviest total edge weight whose weight stays within ``bound`` in every row (``sweeps``
  sweeps); nodes left alone are then grouped two-hop -- singletons whose heaviest neighbour lies in
  the same cluster share a cluster (the leaves of a star), and isolated nodes are grouped in index
  order -- within the same bound. With ``held`` (a partition), clusters never straddle two parts.
* :func:`contract` -- the cluster graph: edge weights summed, self-loops dropped, int32 indices,
  O(n + m) with one marker array.
* :func:`lp_refine` -- balanced label-propagation refinement [ours]: each boundary node moves to the
  part with the largest positive gain among parts with room in every row; sweeps until no move.
  O(m) per sweep, O(k) extra memory (no ``n x k`` table), so it also runs on the finest level of
  10^8 edges.
"""

from __future__ import annotations

import numpy as np

from optsched.core import portable
from optsched.core.jit import njit

__all__ = ["bfs_order", "cluster_level", "contract", "lp_refine", "chung_lu_csr", "sampling_weights_csr"]



@njit(cache=True)
def _bfs_order(indptr, indices, perm):
    n = len(indptr) - 1
    seen = np.zeros(n, np.bool_)
    out = np.empty(n, np.int64)
    head = 0
    tail = 0
    for r in range(n):
        root = perm[r]
        if seen[root]:
            continue
        seen[root] = True
        out[tail] = root
        tail += 1
        while head < tail:
            v = out[head]
            head += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if not seen[u]:
                    seen[u] = True
                    out[tail] = u
                    tail += 1
    return out


def bfs_order(indptr, indices, rng: np.random.Generator) -> np.ndarray:
    """Every node once in BFS order, each component from a random root (roots in a random order)."""
    return _bfs_order(indptr, indices, rng.permutation(len(indptr) - 1))


@njit(cache=True)
def _fits_cluster(cw, w, c, v, bound):
    for r in range(w.shape[0]):
        if cw[r, c] + w[r, v] > bound[r]:
            return False
    return True


@njit(cache=True)
def _cluster(indptr, indices, data, w, bound, order, sweeps, held, use_held, two_hop):
    n = len(indptr) - 1
    rows = w.shape[0]
    cl = np.arange(n).astype(np.int64)
    cw = w.copy()
    size = np.ones(n, np.int64)
    rating = np.zeros(n)
    touched = np.empty(n, np.int64)
    for _ in range(sweeps):
        moved = 0
        for i in range(n):
            v = order[i]
            own = cl[v]
            nt = 0
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if use_held and held[u] != held[v]:
                    continue
                c = cl[u]
                if rating[c] == 0.0:
                    touched[nt] = c
                    nt += 1
                rating[c] += data[e]
            best = own
            best_r = rating[own]
            for j in range(nt):
                c = touched[j]
                if c != own and rating[c] > best_r and _fits_cluster(cw, w, c, v, bound):
                    best = c
                    best_r = rating[c]
            for j in range(nt):
                rating[touched[j]] = 0.0
            if best != own:
                for r in range(rows):
                    cw[r, own] -= w[r, v]
                    cw[r, best] += w[r, v]
                size[own] -= 1
                size[best] += 1
                cl[v] = best
                moved += 1
        if moved == 0:
            break
    if two_hop:
        # singletons: group those whose heaviest neighbour lies in the same cluster (star leaves);
        # isolated singletons (key -1) are grouped in index order
        key = np.full(n, -2, np.int64)
        for v in range(n):
            if size[cl[v]] != 1 or cl[v] != v:
                continue
            hv = -1
            hw = -1.0
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if use_held and held[u] != held[v]:
                    continue
                if data[e] > hw:
                    hw = data[e]
                    hv = u
            key[v] = -1 if hv < 0 else cl[hv]
        # one open cluster per key (a dense table over cluster ids, plus one for isolated nodes)
        open_c = np.full(n + 1, -1, np.int64)
        for v in range(n):
            kv = key[v]
            if kv == -2:
                continue
            slot = n if kv == -1 else kv
            if use_held and kv == -1:
                slot = n  # isolated nodes with held: grouped per part below
            c = open_c[slot]
            if c >= 0 and (not use_held or held[c] == held[v]) and _fits_cluster(cw, w, c, v, bound):
                for r in range(rows):
                    cw[r, v] -= w[r, v]
                    cw[r, c] += w[r, v]
                size[v] -= 1
                size[c] += 1
                cl[v] = c
            else:
                open_c[slot] = v
    # relabel 0..nc-1 in first-appearance order of the cluster representative
    label = np.full(n, -1, np.int64)
    nc = 0
    out = np.empty(n, np.int64)
    for v in range(n):
        c = cl[v]
        if label[c] < 0:
            label[c] = nc
            nc += 1
        out[v] = label[c]
    return out, nc


def cluster_level(indptr, indices, data, w, bound, order, *, sweeps: int = 3, held=None,
                  two_hop: bool = True) -> tuple[np.ndarray, int]:
    """``(cluster id of every node, number of clusters)`` of one coarsening level (module docstring)."""
    use_held = held is not None
    h = np.asarray(held, np.int64) if use_held else np.zeros(1, np.int64)
    return _cluster(indptr, indices, data, np.ascontiguousarray(w, dtype=np.float64),
                    np.asarray(bound, np.float64), np.asarray(order, np.int64), int(sweeps), h, use_held,
                    bool(two_hop))


@njit(cache=True)
def _contract(indptr, indices, data, cl, nc):
    n = len(indptr) - 1
    start = np.zeros(nc + 1, np.int64)  # members of each cluster (counting sort)
    for v in range(n):
        start[cl[v] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    members = np.empty(n, np.int64)
    fill = start[:-1].copy()
    for v in range(n):
        members[fill[cl[v]]] = v
        fill[cl[v]] += 1
    mark = np.full(nc, -1, np.int64)
    cptr = np.zeros(nc + 1, np.int64)
    for c in range(nc):  # pass 1: distinct neighbour clusters
        cnt = 0
        for i in range(start[c], start[c + 1]):
            v = members[i]
            for e in range(indptr[v], indptr[v + 1]):
                d = cl[indices[e]]
                if d != c and mark[d] != c:
                    mark[d] = c
                    cnt += 1
        cptr[c + 1] = cptr[c] + cnt
    cidx = np.empty(cptr[nc], np.int32)
    cdat = np.zeros(cptr[nc], np.float64)
    pos = np.full(nc, -1, np.int64)
    for c in range(nc):  # pass 2: summed weights
        p = cptr[c]
        for i in range(start[c], start[c + 1]):
            v = members[i]
            for e in range(indptr[v], indptr[v + 1]):
                d = cl[indices[e]]
                if d == c:
                    continue
                if pos[d] < cptr[c]:
                    pos[d] = p
                    cidx[p] = d
                    p += 1
                cdat[pos[d]] += data[e]
    return cptr, cidx, cdat


def contract(indptr, indices, data, clusters, nc: int, w):
    """``(indptr, indices, data, w)`` of the cluster graph (module docstring)."""
    cp, ci, cd = _contract(indptr, indices, data, np.asarray(clusters, np.int64), int(nc))
    cw = np.zeros((w.shape[0], nc))
    for r in range(w.shape[0]):
        cw[r] = np.bincount(clusters, weights=w[r], minlength=nc)
    return cp, ci, cd, cw


@njit(cache=True)
def _lp_refine(indptr, indices, data, parts, k, w, caps, loads, order, max_sweeps):
    n = len(indptr) - 1
    rows = w.shape[0]
    conn = np.zeros(k)
    gain_total = 0.0
    for _ in range(max_sweeps):
        moved = 0
        for i in range(n):
            v = order[i]
            own = parts[v]
            boundary = False
            for e in range(indptr[v], indptr[v + 1]):
                p = parts[indices[e]]
                conn[p] += data[e]
                if p != own:
                    boundary = True
            if boundary:
                best = own
                best_g = 0.0
                for p in range(k):
                    if p == own:
                        continue
                    g = conn[p] - conn[own]
                    if g > best_g:
                        ok = True
                        for r in range(rows):
                            if loads[r, p] + w[r, v] > caps[r, p] * (1.0 + 1e-9) + 1e-9:
                                ok = False
                                break
                        if ok:
                            best = p
                            best_g = g
                if best != own:
                    for r in range(rows):
                        loads[r, own] -= w[r, v]
                        loads[r, best] += w[r, v]
                    parts[v] = best
                    gain_total += best_g
                    moved += 1
            for e in range(indptr[v], indptr[v + 1]):
                conn[parts[indices[e]]] = 0.0
            conn[own] = 0.0
        if moved == 0:
            break
    return gain_total


def lp_refine(indptr, indices, data, parts, k: int, w, caps, rng: np.random.Generator, *,
              max_sweeps: int = 4) -> np.ndarray:
    """Balanced label propagation (module docstring); returns a new array. The traffic never
    increases (only positive-gain moves) and a partition within the capacities stays within them."""
    parts = np.asarray(parts, np.int64).copy()
    w = np.ascontiguousarray(w, dtype=np.float64)
    loads = np.zeros((w.shape[0], k))
    for r in range(w.shape[0]):
        loads[r] = np.bincount(parts, weights=w[r], minlength=k)
    _lp_refine(indptr, indices, data, parts, k, w, np.ascontiguousarray(caps, dtype=np.float64), loads,
               rng.permutation(len(indptr) - 1), int(max_sweeps))
    return parts


# --------------------------------------------------------------------------------------------
# memory-lean generated graphs (int32, chunked) for the scale benchmarks
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _count_deg(u, v, deg):
    for i in range(len(u)):
        deg[u[i]] += 1
        deg[v[i]] += 1


@njit(cache=True)
def _fill(u, v, ptr, idx):
    for i in range(len(u)):
        a, b = u[i], v[i]
        idx[ptr[a]] = b
        ptr[a] += 1
        idx[ptr[b]] = a
        ptr[b] += 1


@njit(cache=True)
def _dedup_rows(indptr, indices):
    """Sort each row, drop repeats and self-loops in place; returns the new indptr."""
    n = len(indptr) - 1
    out = np.zeros(n + 1, np.int64)
    q = 0
    for v in range(n):
        lo, hi = indptr[v], indptr[v + 1]
        row = np.sort(indices[lo:hi])
        last = -1
        for x in row:
            if x != last and x != v:
                indices[q] = x
                q += 1
                last = x
        out[v + 1] = q
    return out


def chung_lu_csr(n: int, mean_degree: float, seed: int, *, exponent: float = 2.5, chunk: int = 1 << 22):
    """``(indptr int64, indices int32)`` of a Chung-Lu power-law graph [ours, the model of
    :func:`optsched.graphs.sampling.power_law_graph`, generated in chunks]: ``n * mean_degree / 2``
    endpoint pairs drawn proportional to Pareto(exponent - 1) expected degrees (cut at
    ``sqrt(n) * mean``), self-loops and repeats removed. Peak memory about 16 bytes per endpoint pair
    plus 8 per node (two passes over the same seeded chunks: degrees, then fill)."""
    m = int(round(n * mean_degree / 2))
    rng = np.random.default_rng(seed)
    wts = 1.0 + portable.pareto(rng, exponent - 1.0, size=n)
    wts = np.minimum(wts, np.sqrt(n) * wts.mean())
    cdf = np.cumsum(wts)
    cdf /= cdf[-1]
    del wts

    def chunks():
        r = np.random.default_rng(seed + 1)
        done = 0
        while done < m:
            c = min(chunk, m - done)
            u = np.searchsorted(cdf, r.random(c), side="right").astype(np.int32)
            v = np.searchsorted(cdf, r.random(c), side="right").astype(np.int32)
            np.minimum(u, n - 1, out=u)
            np.minimum(v, n - 1, out=v)
            done += c
            yield u, v

    deg = np.zeros(n, np.int64)
    for u, v in chunks():
        _count_deg(u, v, deg)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=indptr[1:])
    del deg
    indices = np.empty(indptr[-1], np.int32)
    ptr = indptr[:-1].copy()
    for u, v in chunks():
        _fill(u, v, ptr, indices)
    del ptr
    new_ptr = _dedup_rows(indptr, indices)
    indices = indices[:new_ptr[-1]].copy()
    return new_ptr, indices


@njit(cache=True)
def _sampling_weights(indptr, indices, seeds, fanouts):
    n = len(indptr) - 1
    r = seeds.astype(np.float64)
    data = np.zeros(len(indices), np.float64)
    for f in fanouts:
        nxt = np.zeros(n)
        s = np.zeros(n)  # r_{h-1}(v) * p_h(v)
        for v in range(n):
            d = indptr[v + 1] - indptr[v]
            if d > 0:
                s[v] = r[v] * min(1.0, f / d)
        for v in range(n):
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                data[e] += s[v] + s[u]
                nxt[u] += s[v]
        r = nxt
    return data


def sampling_weights_csr(indptr, indices, train, fanouts=(10, 5)) -> np.ndarray:
    """Expected sampling traversals of every CSR entry (the formula of
    :func:`optsched.graphs.sampling.sampling_edge_weights`, README "Edge weights", on CSR arrays)."""
    seeds = np.zeros(len(indptr) - 1, np.bool_)
    seeds[np.asarray(train, np.int64)] = True
    return _sampling_weights(indptr, indices, seeds, np.asarray(fanouts, np.float64))
