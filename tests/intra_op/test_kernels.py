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
