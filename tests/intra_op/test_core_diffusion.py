"""The elimination core's search with min-sum diffusion decodes and a warm start
(:func:`optsched.problems.intra_op.core_search.solve_core`): each on an instance where the step
decides the asserted result."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optsched.problems.intra_op import generate
from optsched.problems.intra_op.core_search import solve_core
from optsched.problems.intra_op.elimination import eliminate
from optsched.problems.intra_op.instance import IntraOpInstance


def _hubs_against_crowd(hubs: int = 3, crowd: int = 20) -> IntraOpInstance:
    """``hubs`` nodes each joined to every one of ``crowd`` nodes (so every node has degree >= 3
    and the elimination leaves the whole graph as its core); two strategies each, an edge costs
    0 when its ends agree and 100 when they differ. A hub's strategy 0 costs 0 and its strategy
    1 costs 5; a crowd node's strategy 0 costs 1 and its strategy 1 costs 0. All 0 costs
    ``crowd`` = 20, all 1 costs 5 ``hubs`` = 15, and any plan that mixes costs 100 or more.
    From all 0 (where OneFlow's sequential greedy starts: the hubs, visited first, take their
    cheap strategy and the crowd follows) every move of a node and up to 3 neighbours mixes, so
    the greedy stays at 20; the optimum is all 1."""
    n = hubs + crowd
    cost = [0.0, 5.0] * hubs + [1.0, 0.0] * crowd
    eu, ev = zip(*[(h, hubs + c) for h, c in itertools.product(range(hubs), range(crowd))])
    return IntraOpInstance(num_strategies=[2] * n, cost=cost, usage=[0.0] * (2 * n), start=[0] * n, end=[0] * n,
                           edge_u=list(eu), edge_v=list(ev), edge_cost=[0.0, 100.0, 100.0, 0.0] * len(eu))


def test_greedy_alone_is_stuck_on_the_crowd():
    el = eliminate(_hubs_against_crowd())
    assert len(el.core) == 23 and not el.fully_reduced
    choice, exact = solve_core(el, exact_limit=0)
    assert el.core_value(choice) == 20.0 and not exact


def test_diffusion_decode_finds_the_optimum():
    """Attractive two-strategy edges: the LP relaxation is tight, so the decode after enough
    sweeps is the optimum (all 1, cost 15), and the search returns it."""
    el = eliminate(_hubs_against_crowd())
    choice, exact = solve_core(el, exact_limit=0, diffusion=100)
    assert el.core_value(choice) == 15.0 and set(choice.values()) == {1}
    assert not exact  # a heuristic path never claims optimality


def test_warm_start_is_never_made_worse():
    """Given the optimum as the start, the search without diffusion keeps it (the greedy's own
    start is worse): the start is a candidate, and sweeps only lower a candidate's cost."""
    el = eliminate(_hubs_against_crowd())
    start = {v: 1 for v in el.core}
    choice, _ = solve_core(el, exact_limit=0, start=start)
    assert el.core_value(choice) == 15.0


@pytest.mark.parametrize("seed", range(8))
def test_search_with_diffusion_and_start_is_at_most_each_candidate(seed):
    """On random cores: the result costs at most the greedy's alone and at most the start's."""
    inst = generate(seed, graph="random", nodes=30, strategies=4)
    el = eliminate(inst)
    assert not el.fully_reduced
    rng = np.random.default_rng(seed)
    start = {v: int(rng.integers(len(el.unary[v]))) for v in el.core}
    greedy, _ = solve_core(el, exact_limit=0)
    both, _ = solve_core(el, exact_limit=0, diffusion=50, start=start)
    assert el.core_value(both) <= el.core_value(greedy)
    assert el.core_value(both) <= el.core_value(start)
