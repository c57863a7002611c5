"""Compiled node and pair moves of ``intra-op`` (numba; plain Python without it) [ours].

The same moves as :meth:`~.plan.Plan.node_move` and :meth:`~.plan.Plan.set_move` on an edge's two
nodes, on flat arrays and without per-node Python objects, so that a sweep over A's 35k nodes and
55k edges takes milliseconds instead of seconds:

* :func:`node_sweep` -- each node in turn to its cheapest strategy whose extra usage fits in the
  headroom of its live range (strict gains only; ties: the lowest index, as the Python move);
* :func:`pair_sweep` -- each edge's two nodes to their cheapest joint choice that fits: the load
  maxima of the three pieces (only the tail live, both, only the head) are taken once per edge;
* :func:`repair` -- a greedy memory repair (least extra cost per byte saved at the most loaded
  point);
* :func:`group_sweep` -- OneFlow's group moves: a node and a few neighbours to their cheapest
  joint choice that fits, by enumerating the group's product;
* :func:`star_sweep` -- star moves: a hub to each other strategy with every neighbour to its
  cheapest strategy given it, kept when the whole change gains and fits;
* :func:`sequential_decode` -- the sequential decode of a reparametrized core (:mod:`.dual`);
* :func:`diffusion_sweep`, :func:`reparam_bound`, :func:`reparam_node_theta` -- the core's
  min-sum diffusion and its bound, one pass over the edge entries without temporaries.

Costs are the working costs (:func:`~.structure.working_costs`: forbidden entries at one finite
penalty) or priced ones; ``local`` (flat, one entry per strategy, :func:`build_local`) holds each
strategy's node cost plus its edges to the neighbours' current choices and is kept up to date by
every move, as ``load`` (the memory at the compressed time points) and ``s``; ``changed`` marks
the nodes that moved. Every accepted move lowers the cost and keeps every
time point within ``limit + tol`` (or at most where it was), so a sweep never breaks feasibility.
"""

from __future__ import annotations

import numpy as np

from optsched.core.jit import HAVE_NUMBA, njit

__all__ = ["build_local", "node_sweep", "pair_sweep", "repair", "loads", "sequential_decode", "star_sweep",
           "reparam_node_theta", "reparam_bound", "diffusion_sweep", "group_sweep", "HAVE_NUMBA"]


@njit(cache=True)
def _segmax(load, lo, hi):
    m = -np.inf
    for j in range(lo, hi):
        if load[j] > m:
            m = load[j]
    return m


@njit(cache=True)
def build_local(s, k, off, ncost, eu, ev, eoff, ecost, out):
    """out[off[x] + t] = node cost of (x, t) plus x's edges to the neighbours' choices in ``s``."""
    for i in range(out.size):
        out[i] = ncost[i]
    for e in range(eu.size):
        u = eu[e]
        v = ev[e]
        kv = k[v]
        base = eoff[e]
        su = s[u]
        sv = s[v]
        for t in range(k[u]):
            out[off[u] + t] += ecost[base + t * kv + sv]
        for r in range(kv):
            out[off[v] + r] += ecost[base + su * kv + r]


@njit(cache=True)
def _move(x, new, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff, ecost):
    old = s[x]
    du = usage[off[x] + new] - usage[off[x] + old]
    if du != 0.0:
        for t in range(a[x], b[x]):
            load[t] += du
    kx = k[x]
    for i in range(inc_ptr[x], inc_ptr[x + 1]):
        w = inc_other[i]
        kw = k[w]
        base = eoff[inc_edge[i]]
        ow = off[w]
        if inc_tail[i]:  # x is the tail: a k_x x k_w matrix, w's costs are row s_x
            for r in range(kw):
                local[ow + r] += ecost[base + new * kw + r] - ecost[base + old * kw + r]
        else:            # x is the head: a k_w x k_x matrix, w's costs are column s_x
            for r in range(kw):
                local[ow + r] += ecost[base + r * kx + new] - ecost[base + r * kx + old]
    s[x] = new


@njit(cache=True)
def node_sweep(order, s, local, load, a, b, usage, limit, tol, k, off, inc_ptr, inc_edge, inc_other,
               inc_tail, eoff, ecost, changed):
    """One pass of node moves in ``order``; returns the total gain."""
    total = 0.0
    for idx in range(order.size):
        x = order[idx]
        kx = k[x]
        if kx <= 1:
            continue
        ox = off[x]
        cur_t = s[x]
        cur = local[ox + cur_t]
        ucur = usage[ox + cur_t]
        live = a[x] < b[x]
        room = np.inf
        if live and limit < np.inf:
            room = limit - _segmax(load, a[x], b[x]) + tol
        best = cur_t
        bestv = cur
        for t in range(kx):
            if live and usage[ox + t] - ucur > room:
                continue
            if local[ox + t] < bestv:
                bestv = local[ox + t]
                best = t
        if best != cur_t and cur - bestv > 0.0:
            _move(x, best, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff, ecost)
            changed[x] = True
            total += cur - bestv
    return total


@njit(cache=True)
def pair_sweep(edges, eu, ev, s, local, load, a, b, usage, limit, tol, k, off, inc_ptr, inc_edge,
               inc_other, inc_tail, eoff, ecost, max_product, changed):
    """One pass of joint moves of each listed edge's two nodes; returns the total gain."""
    kmax = 1
    for x in range(k.size):
        if k[x] > kmax:
            kmax = k[x]
    vx = np.empty(kmax)
    vy = np.empty(kmax)
    table = np.empty(kmax * kmax)
    total = 0.0
    for idx in range(edges.size):
        e0 = edges[idx]
        x = eu[e0]
        y = ev[e0]
        kx = k[x]
        ky = k[y]
        if kx * ky <= 1 or kx * ky > max_product:
            continue
        sx = s[x]
        sy = s[y]
        for t in range(kx):
            vx[t] = local[off[x] + t]
        for r in range(ky):
            vy[r] = local[off[y] + r]
        for t in range(kx):
            for r in range(ky):
                table[t * ky + r] = 0.0
        for i in range(inc_ptr[x], inc_ptr[x + 1]):  # every edge joining x and y (parallel ones too)
            if inc_other[i] != y:
                continue
            base = eoff[inc_edge[i]]
            if inc_tail[i]:  # k_x x k_y
                for t in range(kx):
                    vx[t] -= ecost[base + t * ky + sy]
                for r in range(ky):
                    vy[r] -= ecost[base + sx * ky + r]
                for t in range(kx):
                    for r in range(ky):
                        table[t * ky + r] += ecost[base + t * ky + r]
            else:            # k_y x k_x
                for t in range(kx):
                    vx[t] -= ecost[base + sy * kx + t]
                for r in range(ky):
                    vy[r] -= ecost[base + r * kx + sx]
                for t in range(kx):
                    for r in range(ky):
                        table[t * ky + r] += ecost[base + r * kx + t]
        cur = vx[sx] + vy[sy] + table[sx * ky + sy]
        ax, bx, ay, by = a[x], b[x], a[y], b[y]
        bounded = limit < np.inf
        mx = -np.inf
        my = -np.inf
        mb = -np.inf
        if bounded:
            lo = max(ax, ay)
            hi = min(bx, by)
            if ax < bx:
                if lo < hi:
                    mx = max(_segmax(load, ax, min(bx, lo)), _segmax(load, max(ax, hi), bx))
                else:
                    mx = _segmax(load, ax, bx)
            if ay < by:
                if lo < hi:
                    my = max(_segmax(load, ay, min(by, lo)), _segmax(load, max(ay, hi), by))
                else:
                    my = _segmax(load, ay, by)
            if lo < hi and ax < bx and ay < by:
                mb = _segmax(load, lo, hi)
        ux = usage[off[x] + sx]
        uy = usage[off[y] + sy]
        cap = limit + tol
        bt, br, bv = sx, sy, cur
        for t in range(kx):
            dx = usage[off[x] + t] - ux
            if bounded and dx > 0 and mx + dx > cap:
                continue
            for r in range(ky):
                v = vx[t] + vy[r] + table[t * ky + r]
                if v >= bv:
                    continue
                if bounded:
                    dy = usage[off[y] + r] - uy
                    if dy > 0 and my + dy > cap:
                        continue
                    if dx + dy > 0 and mb + dx + dy > cap:
                        continue
                bt, br, bv = t, r, v
        if (bt != sx or br != sy) and cur - bv > 0.0:
            if bt != sx:
                _move(x, bt, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff,
                      ecost)
                changed[x] = True
            if br != sy:
                _move(y, br, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff,
                      ecost)
                changed[y] = True
            total += cur - bv
    return total


@njit(cache=True)
def repair(s, local, load, a, b, usage, limit, tol, half_penalty, k, off, inc_ptr, inc_edge, inc_other,
           inc_tail, eoff, ecost, changed, max_steps):
    """Greedy memory repair. At the most loaded time point, each live node offers its strategy of
    least extra cost per unit of memory saved (a saving beyond the excess counts as the excess);
    the offers are taken cheapest first until the point fits, skipping a node whose neighbour
    moved in this round (its offer is stale). Offers that add a forbidden pair (extra cost of at
    least ``half_penalty``) come last, one per round. Usage only falls. Returns whether every time
    point now fits (False: no offer left, or ``max_steps`` rounds spent)."""
    n = k.size
    ox = np.empty(n, np.int64)
    ot = np.empty(n, np.int64)
    okey = np.empty(n)
    stale = np.zeros(n, np.bool_)
    if load.size == 0:
        return True
    for _ in range(max_steps):
        j = 0
        for t in range(load.size):
            if load[t] > load[j]:
                j = t
        excess = load[j] - limit
        if excess <= tol:
            return True
        m = 0
        for x in range(n):
            if k[x] <= 1 or a[x] > j or b[x] <= j:
                continue
            o = off[x]
            ucur = usage[o + s[x]]
            cur = local[o + s[x]]
            bt, bclean, bratio = -1, False, np.inf
            for t in range(k[x]):
                save = ucur - usage[o + t]
                if save <= 0:
                    continue
                extra = local[o + t] - cur
                clean = extra < half_penalty
                ratio = max(extra, 0.0) / min(save, excess)
                if (clean and not bclean) or (clean == bclean and ratio < bratio):
                    bt, bclean, bratio = t, clean, ratio
            if bt >= 0:
                ox[m] = x
                ot[m] = bt
                # clean offers first (key < 1 after the squash), then by ratio
                okey[m] = (bratio / (1.0 + bratio)) + (0.0 if bclean else 2.0)
                m += 1
        if m == 0:
            return False
        order = np.argsort(okey[:m])
        moved = 0
        for r in range(m):
            i = order[r]
            x = ox[i]
            if okey[i] >= 2.0 and moved > 0:
                break  # offers with a forbidden pair: only when no clean one moved, one at a time
            if stale[x]:
                continue
            _move(x, ot[i], s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff,
                  ecost)
            changed[x] = True
            moved += 1
            for q in range(inc_ptr[x], inc_ptr[x + 1]):
                stale[inc_other[q]] = True
            if load[j] - limit <= tol or okey[i] >= 2.0:
                break
        for r in range(m):
            x = ox[r]
            for q in range(inc_ptr[x], inc_ptr[x + 1]):
                stale[inc_other[q]] = False
    mx = -np.inf
    for t in range(load.size):
        if load[t] > mx:
            mx = load[t]
    return mx - limit <= tol


@njit(cache=True)
def loads(s, a, b, usage, off, npoints):
    """Memory at every compressed time point under plan ``s``."""
    diff = np.zeros(npoints + 1)
    for x in range(s.size):
        if a[x] < b[x]:
            u = usage[off[x] + s[x]]
            diff[a[x]] += u
            diff[b[x]] -= u
    out = np.empty(npoints)
    acc = 0.0
    for t in range(npoints):
        acc += diff[t]
        out[t] = acc
    return out


@njit(cache=True)
def sequential_decode(order, th_node, noff, k, ea, eb, eoff, E, phi_a, phi_b, aoff, boff, inc_ptr, inc_e, x):
    """Sequential decoding of a reparametrized pairwise problem (the core of :mod:`.dual`) [ours;
    the decoding step of TRW-S-style solvers, Kolmogorov 2006]: the nodes in ``order`` each take
    the strategy minimizing its reparametrized unary cost plus, per incident edge, the
    reparametrized edge cost at the neighbour's choice when the neighbour is decided, else the
    edge's least entry in that row (column). ``x`` (-1 = undecided) receives the choices; nodes
    already decided in ``x`` are kept."""
    for v in order:
        if x[v] >= 0:
            continue
        kv = k[v]
        best = np.inf
        arg = 0
        for s in range(kv):
            c = th_node[noff[v] + s]
            for i in range(inc_ptr[v], inc_ptr[v + 1]):
                e = inc_e[i]
                a = ea[e]
                b = eb[e]
                kb = k[b]
                base = eoff[e]
                if a == v:
                    o = x[b]
                    if o >= 0:
                        c += E[base + s * kb + o] - phi_a[aoff[e] + s] - phi_b[boff[e] + o]
                    else:
                        m = np.inf
                        for t in range(kb):
                            y = E[base + s * kb + t] - phi_b[boff[e] + t]
                            if y < m:
                                m = y
                        c += m - phi_a[aoff[e] + s]
                else:
                    o = x[a]
                    if o >= 0:
                        c += E[base + o * kb + s] - phi_a[aoff[e] + o] - phi_b[boff[e] + s]
                    else:
                        m = np.inf
                        for t in range(k[a]):
                            y = E[base + t * kb + s] - phi_a[aoff[e] + t]
                            if y < m:
                                m = y
                        c += m - phi_b[boff[e] + s]
            if c < best:
                best = c
                arg = s
        x[v] = arg


@njit(cache=True)
def star_sweep(hubs, s, local, load, a, b, usage, limit, tol, k, off, inc_ptr, inc_edge, inc_other, inc_tail,
               eoff, ecost, changed, stack_x, stack_old):
    """Star moves [ours]: each hub in turn tries each other strategy, and every neighbour then
    takes its cheapest strategy given the hub's new one (one after the other, each seeing the
    neighbours already moved). The move is kept when the whole change lowers the cost and no
    time point the moved nodes' larger usages touch goes over ``limit + tol``; otherwise every
    node is moved back. A node whose strategy must follow a hub's ("same sharding" pairs, the
    only finite entries of an edge's row) can change only together with it, which node and pair
    moves cannot do. ``stack_x`` / ``stack_old`` are scratch of size >= 1 + the largest degree.
    Returns the total gain."""
    total = 0.0
    for idx in range(hubs.size):
        h = hubs[idx]
        kh = k[h]
        if kh <= 1:
            continue
        for r in range(kh):
            s0 = s[h]
            if r == s0:
                continue
            delta = local[off[h] + r] - local[off[h] + s0]
            n = 0
            stack_x[n] = h
            stack_old[n] = s0
            n += 1
            _move(h, r, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail, eoff, ecost)
            for i in range(inc_ptr[h], inc_ptr[h + 1]):
                w = inc_other[i]
                kw = k[w]
                if kw <= 1:
                    continue
                ow = off[w]
                cw = s[w]
                bt = cw
                bv = local[ow + cw]
                for t in range(kw):
                    if local[ow + t] < bv:
                        bv = local[ow + t]
                        bt = t
                if bt != cw:
                    delta += bv - local[ow + cw]
                    stack_x[n] = w
                    stack_old[n] = cw
                    n += 1
                    _move(w, bt, s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail,
                          eoff, ecost)
            ok = delta < -1e-9 * (1.0 + abs(local[off[h] + r]))
            if ok and limit < np.inf:
                for j in range(n):
                    x = stack_x[j]
                    if a[x] < b[x] and usage[off[x] + s[x]] > usage[off[x] + stack_old[j]]:
                        if _segmax(load, a[x], b[x]) > limit + tol:
                            ok = False
                            break
            if ok:
                total -= delta
                for j in range(n):
                    changed[stack_x[j]] = True
            else:
                for j in range(n - 1, -1, -1):
                    _move(stack_x[j], stack_old[j], s, local, load, a, b, usage, k, off, inc_ptr, inc_edge,
                          inc_other, inc_tail, eoff, ecost)
    return total


@njit(cache=True)
def reparam_node_theta(theta, noff, k, ea, eb, aoff, boff, phi_a, phi_b, out):
    """``out``: the reparametrized unary costs, ``theta`` plus each edge end's ``phi`` added to its
    node's strategy (the core of :mod:`.dual`)."""
    out[:] = theta
    for e in range(ea.size):
        a = ea[e]
        b = eb[e]
        for s in range(k[a]):
            out[noff[a] + s] += phi_a[aoff[e] + s]
        for t in range(k[b]):
            out[noff[b] + t] += phi_b[boff[e] + t]


@njit(cache=True)
def reparam_bound(theta, noff, k, ea, eb, eoff, aoff, boff, E, phi_a, phi_b, th):
    """The lower bound ``sum_v min theta_v^phi + sum_e min theta_e^phi`` of a reparametrized core
    (:meth:`.dual.Core.bound`), with ``th`` as scratch of the unary size."""
    reparam_node_theta(theta, noff, k, ea, eb, aoff, boff, phi_a, phi_b, th)
    val = 0.0
    for v in range(noff.size - 1):
        m = np.inf
        for i in range(noff[v], noff[v + 1]):
            if th[i] < m:
                m = th[i]
        val += m
    for e in range(ea.size):
        ka = k[ea[e]]
        kb = k[eb[e]]
        base = eoff[e]
        m = np.inf
        for s in range(ka):
            pa = phi_a[aoff[e] + s]
            for t in range(kb):
                y = E[base + s * kb + t] - pa - phi_b[boff[e] + t]
                if y < m:
                    m = y
        val += m
    return val


@njit(cache=True)
def diffusion_sweep(theta, noff, k, ea, eb, eoff, aoff, boff, E, phi_a, phi_b, deg, damping, ma, mb, tot):
    """One damped min-sum diffusion sweep on all nodes at once (:meth:`.dual.Core.diffuse`),
    in place on ``phi_a`` / ``phi_b``: per edge end the least reparametrized edge entry of each
    row (column), ``ma`` / ``mb``; per node strategy ``tot`` = unary + those minima; then each
    end moves ``damping`` of the way to ``m - tot / (deg + 1)``. One pass over the edge entries
    with no temporary of their size (the numpy form needed four)."""
    for e in range(ea.size):
        kb = k[eb[e]]
        bo = boff[e]
        for t in range(kb):
            mb[bo + t] = np.inf
        base = eoff[e]
        ao = aoff[e]
        for s in range(k[ea[e]]):
            pa = phi_a[ao + s]
            row = base + s * kb
            best = np.inf
            for t in range(kb):
                x = E[row + t]
                y = x - phi_b[bo + t]
                if y < best:
                    best = y
                z = x - pa
                if z < mb[bo + t]:
                    mb[bo + t] = z
            ma[ao + s] = best
    # per node strategy: the unary cost plus the row (column) minima of its edge ends
    reparam_node_theta(theta, noff, k, ea, eb, aoff, boff, ma, mb, tot)
    for e in range(ea.size):
        a = ea[e]
        b = eb[e]
        for s in range(k[a]):
            i = aoff[e] + s
            phi_a[i] = (1 - damping) * phi_a[i] + damping * (ma[i] - tot[noff[a] + s] / (deg[a] + 1))
        for t in range(k[b]):
            i = boff[e] + t
            phi_b[i] = (1 - damping) * phi_b[i] + damping * (mb[i] - tot[noff[b] + t] / (deg[b] + 1))


@njit(cache=True)
def _group_fits(grp, d, choice, s, load, a, b, usage, off, cap, cuts):
    """Whether re-choosing the ``d`` nodes of ``grp`` to ``choice`` keeps every time point their
    ranges cover within ``cap`` where their usage rises (segments between the ranges' ends; a
    segment whose total usage does not rise may stay where it was)."""
    nc = 0
    for i in range(d):
        x = grp[i]
        if a[x] < b[x]:
            cuts[nc] = a[x]
            cuts[nc + 1] = b[x]
            nc += 2
    if nc == 0:
        return True
    c = np.sort(cuts[:nc])
    for j in range(nc - 1):
        lo = c[j]
        hi = c[j + 1]
        if lo >= hi:
            continue
        delta = 0.0
        for i in range(d):
            x = grp[i]
            if a[x] <= lo and hi <= b[x]:
                delta += usage[off[x] + choice[i]] - usage[off[x] + s[x]]
        if delta > 0.0 and _segmax(load, lo, hi) + delta > cap:
            return False
    return True


@njit(cache=True)
def group_sweep(order, size, max_product, top, free, s, local, load, a, b, usage, limit, tol, k, off, inc_ptr,
                inc_edge, inc_other, inc_tail, eoff, ecost, changed, table, cand, nbuf, ie_base, ie_t, ie_h):
    """OneFlow-style group moves [code: OneFlow's ``GreedyStrategy``; ours]: each node of
    ``order`` with up to ``size - 1`` of its neighbours (in increasing index, skipping one whose
    strategy count would take the group's product over ``max_product``; with ``free``, skipping
    nodes of one strategy) re-chosen jointly: the cheapest of the ``top`` cheapest improving
    joint choices whose usage rises fit (:func:`_group_fits`). The same move as
    :meth:`~.plan.Plan.set_move` on that group. Scratch: ``table`` and ``cand`` of size
    ``max_product``, ``nbuf`` of the largest degree, ``ie_*`` of ``size`` times it. Returns the
    total gain."""
    kmax = 1
    for x in range(k.size):
        if k[x] > kmax:
            kmax = k[x]
    grp = np.empty(size, np.int64)
    rad = np.empty(size, np.int64)
    digit = np.empty(size, np.int64)
    best_c = np.empty(size, np.int64)
    vec = np.empty((size, kmax))
    cuts = np.empty(2 * size, np.int64)
    cap = limit + tol
    total = 0.0
    for idx in range(order.size):
        x = order[idx]
        # the group: x and its distinct neighbours in increasing index (sorted, repeats of a
        # neighbour joined by parallel edges skipped)
        nn = inc_ptr[x + 1] - inc_ptr[x]
        for i in range(nn):
            nbuf[i] = inc_other[inc_ptr[x] + i]
        nb = np.sort(nbuf[:nn])
        grp[0] = x
        d = 1
        prod = k[x]
        for j in range(nn):
            if d >= size:
                break
            w = nb[j]
            if (j > 0 and w == nb[j - 1]) or w == x or (free and k[w] <= 1):
                continue
            if prod * k[w] <= max_product:
                grp[d] = w
                d += 1
                prod *= k[w]
        if prod <= 1:
            continue
        # unary parts: each member's costs without its edges to the other members
        ne = 0
        for i in range(d):
            y = grp[i]
            ky = k[y]
            for t in range(ky):
                vec[i, t] = local[off[y] + t]
            for q in range(inc_ptr[y], inc_ptr[y + 1]):
                w = inc_other[q]
                pos = -1
                for j in range(d):
                    if grp[j] == w and j != i:
                        pos = j
                        break
                if pos < 0:
                    continue
                kw = k[w]
                base = eoff[inc_edge[q]]
                if inc_tail[q]:  # y is the tail: k_y x k_w; counted once, from its tail
                    for t in range(ky):
                        vec[i, t] -= ecost[base + t * kw + s[w]]
                    ie_base[ne] = base
                    ie_t[ne] = i
                    ie_h[ne] = pos
                    ne += 1
                else:
                    for t in range(ky):
                        vec[i, t] -= ecost[base + s[w] * ky + t]
        # the joint table, row-major over the members (the last one fastest)
        for i in range(d):
            rad[i] = k[grp[i]]
            digit[i] = 0
        cur_idx = 0
        for i in range(d):
            cur_idx = cur_idx * rad[i] + s[grp[i]]
        for p in range(prod):
            v = 0.0
            for i in range(d):
                v += vec[i, digit[i]]
            for q in range(ne):
                v += ecost[ie_base[q] + digit[ie_t[q]] * rad[ie_h[q]] + digit[ie_h[q]]]
            table[p] = v
            j = d - 1
            while j >= 0:
                digit[j] += 1
                if digit[j] < rad[j]:
                    break
                digit[j] = 0
                j -= 1
        cur = table[cur_idx]
        nc = 0
        for p in range(prod):
            if table[p] < cur:
                cand[nc] = p
                nc += 1
        if nc == 0:
            continue
        vals = np.empty(nc)
        for j in range(nc):
            vals[j] = table[cand[j]]
        rank = np.argsort(vals, kind="mergesort")
        found = -1
        for r in range(min(nc, top)):
            p = cand[rank[r]]
            rem = p
            for i in range(d - 1, -1, -1):
                best_c[i] = rem % rad[i]
                rem //= rad[i]
            if limit < np.inf and not _group_fits(grp, d, best_c, s, load, a, b, usage, off, cap, cuts):
                continue
            found = p
            break
        if found < 0:
            continue
        for i in range(d):
            y = grp[i]
            if best_c[i] != s[y]:
                _move(y, best_c[i], s, local, load, a, b, usage, k, off, inc_ptr, inc_edge, inc_other, inc_tail,
                      eoff, ecost)
                changed[y] = True
        total += cur - table[found]
    return total
