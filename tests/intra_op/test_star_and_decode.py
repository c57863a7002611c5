"""Star moves (a hub and all its neighbours together), hub regions (large regions grown from a
hub, re-optimized exactly) and the sequential decode of a reparametrized core: each on an instance where the move or the decode is what finds the better
plan (without it the asserted result changes)."""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.problems.intra_op import check
from optsched.problems.intra_op.dual import Core
from optsched.problems.intra_op.elimination import eliminate
from optsched.problems.intra_op.instance import FORBIDDEN, IntraOpInstance, plan_cost
from optsched.problems.intra_op.state import PlanState

F = 2 * FORBIDDEN  # a forbidden entry (any cost >= FORBIDDEN)


def _hub(leaves: int = 6, *, limit: float | None = None) -> IntraOpInstance:
    """A hub (node 0, two strategies) whose every leaf must take the hub's strategy ("same
    sharding": the off-diagonal entries are forbidden). Strategy 0 costs each leaf 10, strategy 1
    nothing, and uses one more byte on every node; all nodes are live at time 0. The least-memory
    plan (all 0) costs 10 * leaves; all 1 costs 0 and uses leaves + 1 more bytes."""
    n = leaves + 1
    cost = [0.0, 0.0] + [10.0, 0.0] * leaves
    usage = [1.0, 2.0] * n
    same = [0.0, F, F, 0.0]
    return IntraOpInstance(num_strategies=[2] * n, cost=cost, usage=usage, start=[0] * n, end=[1] * n,
                           edge_u=[0] * leaves, edge_v=list(range(1, n)), edge_cost=same * leaves,
                           usage_limit=limit)


def test_star_move_switches_a_hub_with_its_leaves_where_node_and_pair_moves_cannot():
    """From all 0 (cost 60): node and pair sweeps find nothing (any one or two nodes switched leave
    a forbidden pair); the star move switches all seven nodes at once to the optimum 0."""
    inst = _hub(6, limit=100.0)
    state = PlanState(inst, np.zeros(7, np.int64))
    assert state.fast_sweep() == 0.0 and plan_cost(inst, state.s)[0] == 60.0
    gain = state.star_sweep(min_degree=2)
    assert gain == 60.0 and state.s.tolist() == [1] * 7
    assert check(inst, state.s.tolist()).feasible and check(inst, state.s.tolist()).objective == 0.0
    # the kept cost vectors equal freshly built ones
    assert np.array_equal(PlanState(inst, state.s).flat, state.flat)


def test_star_move_keeps_memory():
    """With a limit of 10 bytes (all 0 uses 7, all 1 uses 14) the star move must not switch."""
    inst = _hub(6, limit=10.0)
    state = PlanState(inst, np.zeros(7, np.int64))
    assert state.star_sweep(min_degree=2) == 0.0
    assert state.s.tolist() == [0] * 7 and state.overload() <= state.tol
    assert np.array_equal(PlanState(inst, state.s).flat, state.flat)


@pytest.mark.parametrize("star", [True, False])
def test_anytime_star_moves_option(star):
    """The anytime LNS alone (no MILP, no Lagrangian stage, no region, hub-region or path DPs)
    from the least-memory plan: with star moves the optimum 0, without them the start's 80 (8 leaves: the
    LNS's star moves visit nodes of degree >= 8)."""
    inst = _hub(8, limit=100.0)
    r = optsched.solve(inst, "anytime", seed=0, options={
        "exact": False, "lagrange": False, "large_moves": False, "hub_regions": False, "star_moves": star,
        "budget": 5.0})
    assert check(inst, r.solution).feasible
    assert r.objective == (0.0 if star else 80.0)


def _frustrated_core() -> IntraOpInstance:
    """K_{3,3} (every node of degree 3, so the eliminations keep all six), unary costs 0, each
    edge prefers its ends different ([[10, 0], [0, 10]]). Optimum 0 (one side 0, the other 1);
    the problem is symmetric under swapping strategies, so every node's reparametrized costs tie."""
    left, right = [0, 1, 2], [3, 4, 5]
    eu = [a for a in left for _ in right]
    ev = [b for _ in left for b in right]
    return IntraOpInstance(num_strategies=[2] * 6, cost=[0.0] * 12, usage=[1.0] * 12, start=[0] * 6,
                           end=[1] * 6, edge_u=eu, edge_v=ev, edge_cost=[10.0, 0.0, 0.0, 10.0] * 9)


def _value(inst, choice: dict[int, int]) -> float:
    return plan_cost(inst, np.array([choice[v] for v in range(inst.num_nodes)], np.int64))[0]


def test_sequential_decode_reaches_the_optimum_where_the_argmin_decode_does_not():
    """On the frustrated core the per-node argmin of the reparametrized costs takes the same
    strategy everywhere (ties, cost 90); the sequential decode lets each node follow its decided
    neighbours and reaches 0. Also after diffusion (the bound stays <= 0 = OPT)."""
    inst = _frustrated_core()
    el = eliminate(inst)
    core = Core(el)
    assert core.nodes.size == 6
    for sweeps in (0, 20):
        if sweeps:
            assert core.diffuse(sweeps, damping=0.8) <= 1e-9
        assert _value(inst, core.decode()) == 90.0
        assert _value(inst, core.sequential_decode()) == 0.0


def _two_level_hub(mids: int = 8, leaves: int = 2) -> IntraOpInstance:
    """A hub (node 0) with ``mids`` middle nodes, each with ``leaves`` leaves; every edge is
    "same sharding" (off-diagonal forbidden). Leaves cost 10 at strategy 0, nothing at 1; the
    others cost nothing. All 0 (the least-memory plan) costs 10 * mids * leaves, all 1 costs 0.
    A star move around the hub cannot switch: each middle node would break the pairs with its
    own leaves. Memory is not binding (limit 1000)."""
    n = 1 + mids + mids * leaves
    cost = [0.0, 0.0] * (1 + mids) + [10.0, 0.0] * (mids * leaves)
    eu, ev = [], []
    for m in range(mids):
        eu.append(0)
        ev.append(1 + m)
        for j in range(leaves):
            eu.append(1 + m)
            ev.append(1 + mids + m * leaves + j)
    return IntraOpInstance(num_strategies=[2] * n, cost=cost, usage=[1.0, 2.0] * n, start=[0] * n, end=[1] * n,
                           edge_u=eu, edge_v=ev, edge_cost=[0.0, F, F, 0.0] * len(eu), usage_limit=1000.0)


def test_star_moves_cannot_switch_a_two_level_hub():
    inst = _two_level_hub()
    state = PlanState(inst, np.zeros(inst.num_nodes, np.int64))
    assert state.fast_sweep() == 0.0 and state.star_sweep() == 0.0
    assert plan_cost(inst, state.s)[0] == 160.0


@pytest.mark.parametrize("hub_regions", [True, False])
def test_anytime_hub_regions_option(hub_regions):
    """The anytime LNS alone (no MILP, no Lagrangian stage, no random regions or path DPs): the
    region grown from the hub (here the whole graph, a tree, re-optimized exactly) reaches the
    optimum 0; without hub regions the plan stays at the start's 160."""
    inst = _two_level_hub()
    r = optsched.solve(inst, "anytime", seed=0, options={
        "exact": False, "lagrange": False, "large_moves": False, "hub_regions": hub_regions, "budget": 5.0})
    assert check(inst, r.solution).feasible
    assert r.objective == (0.0 if hub_regions else 160.0)


def test_fast_region_instance_is_the_region_instance():
    """The region subproblem built from the inner edges has the same unary costs and the same
    cost for every plan of the region as the pairwise-built one (a random instance, a random
    region, both with and without the memory restriction)."""
    from optsched.problems.intra_op import generate

    inst = generate(3, preset="random")
    state = PlanState(inst, np.zeros(inst.num_nodes, np.int64))
    rng = np.random.default_rng(0)
    nodes = state.region([int(state.st.free_nodes[0])], 8)
    for restrict in (False, True):
        slow, cur_s = state._region_instance(nodes, restrict)
        fast, cur_f = state._region_instance_fast(nodes, restrict)
        assert np.array_equal(cur_s, cur_f)
        assert np.allclose(slow.cost, fast.cost, rtol=1e-12, atol=0)  # float summation order only
        for _ in range(20):
            plan = np.array([rng.integers(k) for k in slow.num_strategies], np.int64)
            assert plan_cost(slow, plan)[0] == pytest.approx(plan_cost(fast, plan)[0], rel=1e-12)
