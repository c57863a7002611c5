"""The compiled moves (kernels.py) against the Python ones and the checker."""

from __future__ import annotations

import numpy as np
import pytest

from optsched.problems.intra_op import check, generate
from optsched.problems.intra_op.instance import plan_cost
from optsched.problems.intra_op.state import PlanState
from optsched.problems.intra_op.structure import least_memory_plan

SEEDS = range(6)


def _fresh(state: PlanState) -> PlanState:
    return PlanState(state.inst, state.s)


def _working_cost(state: PlanState) -> float:
    """The plan's cost with forbidden entries at the working penalty (what the moves minimize)."""
    st, inst, s = state.st, state.inst, state.s
    value = float(st.node_cost[st.off[:-1] + s].sum())
    for e in range(inst.num_edges):
        value += float(st.edge_matrix(e)[s[inst.edge_u[e]], s[inst.edge_v[e]]])
    return value


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_node_sweep_is_the_python_node_sweep(seed):
    """Same order, same rule (strict gain, lowest index on ties, memory headroom): same plan.
    The cost vectors kept by the moves equal freshly built ones (no drift on integral costs)."""
    inst = generate(seed, preset="random")
    s0 = least_memory_plan(inst)
    py, fast = PlanState(inst, s0), PlanState(inst, s0)
    for _ in range(3):
        py.sweep_nodes()
        fast.fast_sweep(pairs=False)
    assert np.array_equal(py.s, fast.s)
    fresh = _fresh(fast)
    assert np.array_equal(fresh.flat, fast.flat) and np.allclose(fresh.load, fast.load)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_pair_sweep_keeps_memory_and_leaves_no_improving_pair(seed):
    """After compiled sweeps to a fixed point, the plan fits, its cost fell by the gains
    reported, and the Python pair move finds no improving memory-feasible joint move of any
    edge whose nodes' usages do not rise (the compiled rule also admits usage decreases at an
    overloaded point, so it is at least as strong)."""
    inst = generate(seed, preset="random")
    state = PlanState(inst, least_memory_plan(inst))
    before = _working_cost(state)
    gains = 0.0
    for _ in range(20):
        g = state.fast_sweep()
        gains += g
        if g <= 0:
            break
    # integral costs (forbidden entries at the working penalty): the gains add up exactly
    assert _working_cost(state) == before - gains
    assert check(inst, {"strategy": state.s.tolist()}).feasible == (state.overload() <= state.tol)
    assert state.overload() <= state.tol
    probe = _fresh(state)
    for e in range(inst.num_edges):
        x, y = int(inst.edge_u[e]), int(inst.edge_v[e])
        assert probe.set_move([x, y], top=10**6) == 0.0, (seed, e)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_repair_fits_and_only_lowers_usage(seed):
    """From the memory-free greedy plan (every node at its cheapest strategy), the compiled
    repair reaches a plan that fits whenever it says so, and no node's usage rose."""
    inst = generate(seed, preset="random", memory_ratio=1.0)
    st = PlanState(inst, least_memory_plan(inst)).st
    cheap = np.array([int(np.argmin(st.node_costs(v))) for v in range(inst.num_nodes)])
    state = PlanState(inst, cheap)
    ok = state.fast_repair()
    u0 = inst.usage[st.off[:-1] + cheap]
    u1 = inst.usage[st.off[:-1] + state.s]
    assert np.all(u1 <= u0)
    assert ok == (state.overload() <= state.tol)
    if ok:
        assert check(inst, {"strategy": state.s.tolist()}).violations == [] or \
            plan_cost(inst, state.s)[0] >= 1e15  # a forbidden pair is the only possible violation
    assert np.array_equal(_fresh(state).flat, state.flat)


@pytest.mark.parametrize("seed", range(4))
def test_compiled_repair_is_the_python_repair_without_region_offers(seed):
    """The same least-cost-per-byte rule: where the Python repair needs no region offer (no
    offer would add a forbidden pair), both reach a plan of the same cost. (The compiled repair
    is a speed step of an existing one, not a new heuristic.)"""
    from optsched.problems.intra_op.state import fix_plan

    inst = generate(seed, preset="small", memory_ratio=1.0)
    st = PlanState(inst, least_memory_plan(inst)).st
    cheap = np.array([int(np.argmin(st.node_costs(v))) for v in range(inst.num_nodes)])
    fast, py = PlanState(inst, cheap), PlanState(inst, cheap)
    assert fast.overload() > fast.tol  # the memory-free plan overflows: the repair has work to do
    assert fast.fast_repair() and not fast.forbidden_edges().size
    assert fix_plan(py)
    assert plan_cost(inst, fast.s)[0] == plan_cost(inst, py.s)[0]


def _propagation_path(n: int = 12):
    """A path whose every node prefers strategy 1 by 1, each edge charges 10 for unequal
    strategies, and the last node prefers 1 by 20: from all-0, one node + pair pass moves only
    the nodes next to the last one, so reaching all-1 (the optimum) takes several passes."""
    from optsched.problems.intra_op import IntraOpInstance

    cost = []
    for v in range(n):
        cost += [1.0, 0.0] if v < n - 1 else [20.0, 0.0]
    return IntraOpInstance(num_strategies=[2] * n, cost=cost, usage=[1.0] * (2 * n), start=[0] * n,
                           end=[1] * n, edge_u=list(range(n - 1)), edge_v=list(range(1, n)),
                           edge_cost=[0.0, 10.0, 10.0, 0.0] * (n - 1), usage_limit=float(n))


def test_polish_to_a_fixed_point_beats_one_pass():
    """The repaired relaxed plans get compiled sweeps until one gains nothing (``polish_sweeps``);
    with a single pass the plan on this path stays worse."""
    from optsched.problems.intra_op.anytime import _polish

    inst = _propagation_path()
    one, many = PlanState(inst, np.zeros(12, int)), PlanState(inst, np.zeros(12, int))
    _polish(one, {"polish_sweeps": 1})
    _polish(many, {"polish_sweeps": 10})
    assert plan_cost(inst, many.s)[0] == 0.0  # all at strategy 1
    assert plan_cost(inst, one.s)[0] > 0.0


def _core_with_edges(seed: int):
    from optsched.problems.intra_op.dual import Core, priced_instance
    from optsched.problems.intra_op.elimination import eliminate
    from optsched.problems.intra_op.structure import structure

    for nodes in (9, 10, 11, 12):
        inst = generate(seed, graph="random", nodes=nodes, strategies=3)
        el = eliminate(priced_instance(inst, structure(inst), None))
        if el.edges:
            return el, Core(el)
    pytest.skip("no generated instance with a core")  # pragma: no cover - the seeds below have cores


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_reparametrized_bound_is_its_definition_and_below_the_core_minimum(seed):
    """Core.bound (compiled) equals ``sum_v min (theta + phi) + sum_e min (E - phi_a - phi_b)``
    written out in numpy, for random phi (negative edge minima included), and never exceeds
    the core's minimum found by enumeration. Tolerance: float summation order only (1e-9
    relative)."""
    import itertools

    el, core = _core_with_edges(seed)
    rng = np.random.default_rng(seed)
    core.phi_a = rng.normal(0, 20, core.phi_a.size)
    core.phi_b = rng.normal(0, 20, core.phi_b.size)
    th = core.theta.copy()
    for e in range(len(core.keys)):
        a, b = core.ea[e], core.eb[e]
        th[core.noff[a]:core.noff[a + 1]] += core.phi_a[core.aoff[e]:core.aoff[e + 1]]
        th[core.noff[b]:core.noff[b + 1]] += core.phi_b[core.boff[e]:core.boff[e + 1]]
    want = sum(th[core.noff[v]:core.noff[v + 1]].min() for v in range(core.nodes.size))
    edge_minima = []
    for e in range(len(core.keys)):
        ka, kb = core.k[core.ea[e]], core.k[core.eb[e]]
        mat = core.E[core.eoff[e]:core.eoff[e + 1]].reshape(ka, kb)
        pa = core.phi_a[core.aoff[e]:core.aoff[e + 1]]
        pb = core.phi_b[core.boff[e]:core.boff[e + 1]]
        mat = mat - pa[:, None] - pb[None, :]
        edge_minima.append(mat.min())
    want += sum(edge_minima)
    assert min(edge_minima) < 0, "the test needs a negative edge minimum"
    got = core.bound()
    assert got == pytest.approx(want, rel=1e-9)
    nodes = [int(v) for v in core.nodes]
    if np.prod([len(el.unary[v]) for v in nodes]) <= 200_000:
        best = min(el.core_value(dict(zip(nodes, combo)))
                   for combo in itertools.product(*[range(len(el.unary[v])) for v in nodes]))
        assert got <= best + 1e-9 * abs(best)


def _reference_group_sweep(state: PlanState, *, size: int = 4, max_product: int = 20_000, free: bool = False):
    """OneFlow's group moves written with the Python joint move (:meth:`Plan.set_move`): each
    node with up to ``size - 1`` neighbours in increasing index, every improving joint choice
    examined (``top`` unlimited) in increasing cost, ties by the lowest index."""
    st, total = state.st, 0.0
    for x in range(state.inst.num_nodes):
        group, prod = [x], int(st.k[x])
        for w in st.neighbours[x]:
            if len(group) >= size:
                break
            if free and st.k[w] <= 1:
                continue
            if prod * int(st.k[w]) <= max_product:
                group.append(int(w))
                prod *= int(st.k[w])
        if prod > 1:
            total += state.set_move(group, top=10**9)
    return total


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("free", [False, True])
@pytest.mark.parametrize("size", [3, 4])
def test_compiled_group_sweep_is_the_python_group_move(seed, free, size):
    """From the same memory-feasible plan, the compiled group sweep takes the same joint moves as
    the Python one (same groups, same order, same rule; integral costs, so the tables are equal
    exactly and ties fall the same way), reports the same gains, keeps memory, and leaves the
    kept cost vectors equal to freshly built ones."""
    inst = generate(seed, preset="random")
    s0 = least_memory_plan(inst)
    py, fast = PlanState(inst, s0), PlanState(inst, s0)
    assert py.overload() <= py.tol
    gains = []
    for _ in range(3):
        g_py = _reference_group_sweep(py, size=size, free=free)
        g_fast = fast.neighbourhood_sweep(size=size, free=free, top=10**9)
        gains.append(g_fast)
        assert g_py == g_fast and np.array_equal(py.s, fast.s), (seed, free, size)
    assert gains[0] > 0, "no group move taken: the instance does not exercise the sweep"
    assert fast.overload() <= fast.tol
    fresh = _fresh(fast)
    assert np.array_equal(fresh.flat, fast.flat) and np.allclose(fresh.load, fast.load)


def _star_trade(limit: float = 10.0):
    """A star c - x, c - y (edges of cost 0), all live at time 0. c: two free strategies, no
    memory. x: strategy 0 costs 10 and uses 5 bytes, strategy 1 costs 0 and uses 8. y: strategy 0
    costs 0 and uses 5, strategy 1 costs 1 and uses 2. From all 0 (cost 10, load 10) the group
    of c re-chooses x and y together: x = y = 1 costs 1 and loads 8 + 2 = 10."""
    from optsched.problems.intra_op.instance import IntraOpInstance

    return IntraOpInstance(num_strategies=[2, 2, 2], cost=[0.0, 0.0, 10.0, 0.0, 0.0, 1.0],
                           usage=[0.0, 0.0, 5.0, 8.0, 5.0, 2.0], start=[0] * 3, end=[1] * 3,
                           edge_u=[0, 0], edge_v=[1, 2], edge_cost=[0.0] * 8, usage_limit=limit)


def test_group_move_trades_memory_between_its_members():
    """x's rise (+3 bytes) fits only because y falls (-3) at the same time point: the group
    move checks the members' summed change, not each one's alone."""
    state = PlanState(_star_trade(), np.zeros(3, np.int64))
    assert state.fast_sweep() == 0.0
    assert state.neighbourhood_sweep(size=3) == 9.0 and state.s.tolist() == [0, 1, 1]
    assert state.overload() <= state.tol


def test_group_move_memory_flag():
    """With the limit one byte lower, no joint choice that gains fits: the memory-bound sweep
    leaves the plan, the memory-free one takes x = 1, y = 0 (cost 0), which overflows."""
    inst = _star_trade(limit=9.0)
    bounded = PlanState(inst, np.array([0, 0, 1]))
    assert bounded.overload() <= bounded.tol
    assert bounded.neighbourhood_sweep(size=3) == 0.0 and bounded.s.tolist() == [0, 0, 1]
    free_mem = PlanState(inst, np.array([0, 0, 1]))
    assert free_mem.neighbourhood_sweep(size=3, memory=False) == 11.0 and free_mem.s.tolist() == [0, 1, 0]
    assert free_mem.overload() > 0
