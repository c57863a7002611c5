"""The elimination core of a memory-free problem, solved: exactly when small, else by OneFlow's
greedy [code: oneflow sbp_graph.cpp, read, not copied; ours].

After :func:`~.elimination.eliminate`, a core of nodes of degree >= 3 may remain;
:func:`solve_core` enumerates it when its product of strategy counts is at most a limit, else
starts from the better of each node's cheapest strategy and a breadth-first sequential greedy and
improves it by OneFlow's ``GreedyStrategy(4)`` neighbourhood moves.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from optsched.core.clock import Deadline

from .elimination import Elimination
from .instance import IntraOpInstance, plan_cost
from .plan import Plan
from .structure import structure

__all__ = ["CORE_ENUMERATION_LIMIT", "core_instance", "solve_core", "core_product", "sequential_greedy"]


#: largest product of core strategy counts the dp enumerates exactly
CORE_ENUMERATION_LIMIT = 1_000_000


def core_product(el: Elimination) -> float:
    linked = {v for key in el.edges for v in key}
    k = [len(el.unary[v]) for v in el.unary if v in linked]
    return float(np.exp(min(np.sum(np.log(k)), 700.0))) if k else 1.0



def core_instance(el, linked):
    """The eliminated core as an instance of its own (no memory): the unary costs of the ``linked``
    nodes and the compound edges between them, sentinel costs capped so that sums stay finite.

    Memory: when the core's matrices are still laid out in the elimination's flat array
    (:meth:`.elimination.Elimination.flat_layout`, as :func:`.elimination.eliminate` returns
    them) and no entry reaches the cap, the instance's edge costs are a read-only view of that
    array (the same numbers as their concatenation: the cap changes none of them) instead of a
    1.2 GB copy on a 1.45e8-entry file; the caller does not write the core's matrices while the
    instance lives."""
    from .instance import _Adopt, _Shared

    idx = {v: i for i, v in enumerate(linked)}
    keys = list(el.edges)
    cap = lambda a: np.minimum(a, 1e300)  # noqa: E731 - sums of sentinels stay finite
    flat = el.flat_layout()
    if flat is not None and flat.size and float(flat.max()) <= 1e300:
        edge_cost = _Shared(flat)
    else:
        edge_cost = _Adopt(np.concatenate([cap(el.edges[key]).ravel() for key in keys]))  # fresh: not copied again
    return IntraOpInstance(num_strategies=[len(el.unary[v]) for v in linked],
                           cost=np.concatenate([cap(el.unary[v]) for v in linked]),
                           usage=np.zeros(sum(len(el.unary[v]) for v in linked)),
                           start=np.zeros(len(linked), np.int64), end=np.zeros(len(linked), np.int64),
                           edge_u=[idx[a] for a, b in keys], edge_v=[idx[b] for a, b in keys],
                           edge_cost=edge_cost)


def solve_core(el: Elimination, *, exact_limit: float = CORE_ENUMERATION_LIMIT, greedy_rounds: int = 10,
               clock: Deadline | None = None, diffusion: int = 0, start: dict | None = None):
    """A choice for the core: exact (independent nodes, or enumeration when the core's product is
    at most ``exact_limit``), else OneFlow's greedy neighbourhood search from the better of each
    core node's cheapest strategy and a sequential greedy. Returns ``(choice, exact)``.

    With ``diffusion > 0`` [ours], also the decodes of the core after that many sweeps of min-sum
    diffusion (:class:`.dual.Core`; the classical reparametrization of Schlesinger's max-sum
    diffusion, Werner 2007) and, when given, ``start`` (a choice per core node, e.g. the current
    plan's: the result is then never worse than it) are candidates; each candidate is improved
    by compiled node, pair and star sweeps, and the cheapest of them then by the group moves
    too (after their first pass only around the nodes that moved).
    The greedy alone misses what binds a hub to hundreds of neighbours: on a region of 799 nodes
    around a hub of degree 392 in IOPDDL instance A, it stayed 4.5% above the region's optimum,
    which the decode after 100 sweeps found."""
    choice = el.independent_choice()
    if el.fully_reduced:
        return choice, True
    linked = sorted({v for key in el.edges for v in key})
    if core_product(el) <= exact_limit:
        best, best_val = None, math.inf
        for combo in itertools.product(*[range(len(el.unary[v])) for v in linked]):
            c = dict(choice)
            c.update(zip(linked, combo))
            val = el.core_value(c)
            if val < best_val:
                best, best_val = c, val
        return best, True
    core = core_instance(el, linked)
    val = lambda sv: plan_cost(core, sv)[0]  # noqa: E731
    as_vec = lambda c: np.array([c[v] for v in linked], dtype=np.int64)  # noqa: E731
    cheapest = as_vec(choice)
    seq = sequential_greedy(core)
    # OneFlow's Find1Strategy4Greedy: start from a sequential greedy when it is cheaper
    # [code: sbp_graph.cpp; our order: breadth-first from the heaviest node]
    first = seq if val(seq) < val(cheapest) else cheapest
    if diffusion <= 0 and start is None:
        state = Plan(core, first, clock)
        for _ in range(greedy_rounds):
            if state.neighbourhood_sweep(memory=False) <= 0:
                break
        choice.update({v: int(state.s[i]) for i, v in enumerate(linked)})
        return choice, False
    starts = [first]
    if start is not None:
        starts.append(as_vec(start))
    if diffusion > 0:
        from .dual import Core

        reparam = Core(el)
        reparam.diffuse(diffusion, clock=clock)
        starts += [as_vec(reparam.sequential_decode()), as_vec(reparam.decode())]
    # each start improved by the cheap compiled sweeps; the best of them then by the group moves
    # too, which cost most (a joint table of up to 20,000 entries per node), after the first
    # pass only around the nodes that moved
    best, best_val = None, math.inf
    for s0 in starts:
        if best is not None and clock is not None and clock.expired():
            break
        state = Plan(core, s0, clock)
        for _ in range(greedy_rounds):
            if state.fast_sweep() + (0.0 if state.expired() else state.star_sweep()) <= 0 or state.expired():
                break
        v = val(state.s)
        if v < best_val:
            best, best_val = state, v
    state, nodes = best, None
    for _ in range(greedy_rounds):
        if state.expired():
            break
        state.touched.clear()
        gain = state.neighbourhood_sweep(nodes=nodes, memory=False)
        if gain <= 0:
            break
        near = set(state.touched)
        for x in state.touched:
            near.update(int(w) for w in state.st.neighbours[x])
        state.touched.clear()
        gain = state.fast_sweep(nodes=near)
        if not state.expired():
            gain += state.star_sweep()
        near.update(state.touched)
        for x in list(state.touched):
            near.update(int(w) for w in state.st.neighbours[x])
        nodes = sorted(near)
    choice.update({v: int(state.s[i]) for i, v in enumerate(linked)})
    return choice, False


def sequential_greedy(core: IntraOpInstance) -> np.ndarray:
    """Visit nodes breadth-first (from the node with most edges, each component in turn); each
    takes its cheapest strategy given the already visited neighbours only."""
    st = structure(core)
    n = core.num_nodes
    s = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, bool)
    assigned = np.zeros(n, bool)
    order = np.argsort(-np.array([len(x) for x in st.neighbours]), kind="stable")
    for root in order:
        if done[root]:
            continue
        queue = [int(root)]
        done[root] = True
        while queue:
            x = queue.pop(0)
            vec = st.node_costs(x).astype(float).copy()
            for i in range(st.inc_ptr[x], st.inc_ptr[x + 1]):
                w = int(st.inc_other[i])
                if assigned[w]:
                    mat = st.edge_matrix(st.inc_edge[i])
                    vec += mat[:, s[w]] if st.inc_tail[i] else mat[s[w], :]
            s[x] = int(np.argmin(vec))
            assigned[x] = True
            for w in st.neighbours[x]:
                if not done[w]:
                    done[w] = True
                    queue.append(int(w))
    return s
