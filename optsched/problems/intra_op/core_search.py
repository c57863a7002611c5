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
               clock: Deadline | None = None):
    """A choice for the core: exact (independent nodes, or enumeration when the core's product is
    at most ``exact_limit``), else OneFlow's greedy neighbourhood search from each core node's
    cheapest strategy. Returns ``(choice, exact)``."""
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
    start = np.array([choice[v] for v in linked], dtype=np.int64)
    seq = sequential_greedy(core)
    val = lambda sv: plan_cost(core, sv)[0]  # noqa: E731
    # OneFlow's Find1Strategy4Greedy: start from a sequential greedy when it is cheaper
    # [code: sbp_graph.cpp; our order: breadth-first from the heaviest node]
    state = Plan(core, seq if val(seq) < val(start) else start, clock)
    for _ in range(greedy_rounds):
        if state.neighbourhood_sweep(memory=False) <= 0:
            break
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
