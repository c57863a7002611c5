"""The memory-lean forms of intra-op's working costs, elimination, core and core instance give the
very numbers (bit for bit) of the earlier whole-array forms, kept here as references; and no cache
keeps a dead instance's structure alive.

Every comparison is exact (``np.array_equal``, ``==`` on floats): the lean forms only change which
arrays are copied, never an operation on a number, so any difference is a bug, not rounding.
"""

from __future__ import annotations

import gc
import math
import weakref

import numpy as np
import pytest

from optsched.core.clock import Deadline
from optsched.problems.intra_op import generate
from optsched.problems.intra_op import anytime as anytime_mod
from optsched.problems.intra_op import elimination as elimination_mod
from optsched.problems.intra_op import structure as structure_mod
from optsched.problems.intra_op.core_search import core_instance
from optsched.problems.intra_op.dual import Core, priced_instance
from optsched.problems.intra_op.elimination import Elimination, eliminate
from optsched.problems.intra_op.instance import FORBIDDEN, IntraOpInstance
from optsched.problems.intra_op.structure import all_integral, structure, working_costs

SENTINEL = 1e18


# -- references: the whole-array forms as they were -----------------------------------------
def ref_working_costs(inst):
    bad_n, bad_e = inst.cost >= FORBIDDEN, inst.edge_cost >= FORBIDDEN
    fin_n = np.where(bad_n, 0.0, inst.cost)
    fin_e = np.where(bad_e, 0.0, inst.edge_cost)
    upper = float(np.maximum.reduceat(fin_n, inst.offsets[:-1]).sum()) if inst.num_nodes else 0.0
    if inst.num_edges:
        nonempty = inst.edge_offsets[:-1] < inst.edge_offsets[1:]
        upper += float(np.maximum.reduceat(fin_e, inst.edge_offsets[:-1][nonempty]).sum()) if nonempty.any() else 0.0
    penalty = 10.0 ** math.ceil(math.log10(2 * upper + 1)) if upper > 0 else 1.0
    return np.where(bad_n, penalty, inst.cost), np.where(bad_e, penalty, inst.edge_cost), penalty


def ref_eliminate(inst, max_work=20_000_000):
    k = inst.num_strategies
    off, eoff = inst.offsets, inst.edge_offsets
    node_w, edge_w, _ = ref_working_costs(inst)
    unary = {v: node_w[off[v]:off[v + 1]].astype(float) for v in range(inst.num_nodes)}
    adj = {v: {} for v in range(inst.num_nodes)}
    merged = 0
    for e in range(inst.num_edges):
        u, v = int(inst.edge_u[e]), int(inst.edge_v[e])
        mat = edge_w[eoff[e]:eoff[e + 1]].reshape(k[u], k[v]).astype(float)
        if v in adj[u]:
            adj[u][v] = adj[u][v] + mat
            adj[v][u] = adj[u][v].T
            merged += 1
        else:
            adj[u][v] = mat.copy()
            adj[v][u] = adj[u][v].T
    steps = []
    counts = {"parallel_merged": merged, "leaf": 0, "series": 0, "series_skipped_size": 0}
    stack = [v for v in range(inst.num_nodes) if 1 <= len(adj[v]) <= 2]
    skipped = set()
    while stack:
        v = stack.pop()
        if v not in unary:
            continue
        deg = len(adj[v])
        if deg == 1:
            (u, m_uv), = adj[v].items()
            tot = m_uv + unary[v][:, None]
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
            tot = m_vu.T[:, :, None] + unary[v][None, :, None] + m_vw[None, :, :]
            arg = np.argmin(tot, axis=1)
            new = np.take_along_axis(tot, arg[:, None, :], axis=1)[:, 0, :]
            del adj[u][v], adj[w][v]
            if w in adj[u]:
                adj[u][w] = adj[u][w] + new
                counts["parallel_merged"] += 1
            else:
                adj[u][w] = new
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
    counts["core_nodes"] = sum(1 for v in unary if adj[v])
    counts["core_edges"] = len(edges)
    return Elimination(inst, unary, edges, steps, counts)


def ref_core_instance(el, linked):
    idx = {v: i for i, v in enumerate(linked)}
    keys = list(el.edges)
    cap = lambda a: np.minimum(a, 1e300)  # noqa: E731
    return IntraOpInstance(num_strategies=[len(el.unary[v]) for v in linked],
                           cost=np.concatenate([cap(el.unary[v]) for v in linked]),
                           usage=np.zeros(sum(len(el.unary[v]) for v in linked)),
                           start=np.zeros(len(linked), np.int64), end=np.zeros(len(linked), np.int64),
                           edge_u=[idx[a] for a, b in keys], edge_v=[idx[b] for a, b in keys],
                           edge_cost=np.concatenate([cap(el.edges[key]).ravel() for key in keys]))


# -- instances --------------------------------------------------------------------------------
def random_instance(seed: int, *, n: int = 40, extra_edges: int = 70, forbidden: bool = True,
                    parallel: int = 6, scale: float = 1.0) -> IntraOpInstance:
    """A chain with random chords (a core remains), leaves, parallel edges, sentinel entries;
    ``scale`` 1e13: allowed costs up to 9.9e14, so sums of them pass FORBIDDEN (1e15) and the
    penalty itself is above it (a computed matrix must keep such sums)."""
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 6, size=n)
    edges = [(i - 1, i) for i in range(1, n)]
    while len(edges) < n - 1 + extra_edges:
        a, b = (int(x) for x in rng.integers(0, n, size=2))
        if a != b:
            edges.append((a, b))
    edges += [edges[int(rng.integers(len(edges)))][::-1] for _ in range(parallel)]   # parallel, reversed
    cost = rng.integers(0, 100, size=int(k.sum())).astype(float) * scale
    ecost = np.concatenate([rng.integers(0, 100, size=int(k[a] * k[b])).astype(float) for a, b in edges]) * scale
    if forbidden:
        cost[rng.random(cost.size) < 0.05] = SENTINEL
        cost[np.concatenate([[0], np.cumsum(k)[:-1]])] = rng.integers(0, 100, size=n)  # one allowed each
        ecost[rng.random(ecost.size) < 0.15] = SENTINEL
    start = rng.integers(0, 10, size=n)
    return IntraOpInstance(num_strategies=k, cost=cost, usage=rng.integers(1, 20, size=int(k.sum())).astype(float),
                           start=start, end=start + rng.integers(0, 6, size=n), edge_u=[a for a, b in edges],
                           edge_v=[b for a, b in edges], edge_cost=ecost, usage_limit=60.0)


CASES = [pytest.param(lambda s: random_instance(s), id="forbidden"),
         pytest.param(lambda s: random_instance(s, forbidden=False), id="none-forbidden"),
         pytest.param(lambda s: random_instance(s, n=12, extra_edges=0), id="tree-like"),
         pytest.param(lambda s: random_instance(s, n=30, extra_edges=30, scale=1e13), id="large-costs"),
         pytest.param(lambda s: generate(s, graph="random", nodes=30, strategies=4, memory_ratio=1.05),
                      id="generated")]


def _same_elimination(a: Elimination, b: Elimination) -> None:
    assert list(a.unary) == list(b.unary)
    for v in a.unary:
        assert np.array_equal(a.unary[v], b.unary[v])
    assert list(a.edges) == list(b.edges)
    for key in a.edges:
        assert a.edges[key].shape == b.edges[key].shape and np.array_equal(a.edges[key], b.edges[key])
    assert len(a.steps) == len(b.steps)
    for (k1, v1, n1, t1), (k2, v2, n2, t2) in zip(a.steps, b.steps):
        assert (k1, v1, n1) == (k2, v2, n2) and np.array_equal(t1, t2)
    assert a.counts == b.counts


@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("seed", range(4))
def test_working_costs_are_the_whole_array_ones(make, seed):
    inst = make(seed)
    node, edge, pen = working_costs(inst)
    rn, re, rp = ref_working_costs(inst)
    assert pen == rp and np.array_equal(node, rn) and np.array_equal(edge, re)
    # an array without forbidden entries is the instance's own (no copy); one with them a copy
    assert (edge is inst.edge_cost) == (not (inst.edge_cost >= FORBIDDEN).any())
    assert (node is inst.cost) == (not (inst.cost >= FORBIDDEN).any())


def test_working_costs_chunked_on_several_chunks(monkeypatch):
    """The chunked passes cover every entry when the array spans many chunks (and a last partial
    one): chunks of 7 entries on a few hundred."""
    monkeypatch.setattr(structure_mod, "CHUNK", 7)
    inst = random_instance(3)
    node, edge, pen = working_costs(inst)
    rn, re, rp = ref_working_costs(inst)
    assert pen == rp and np.array_equal(node, rn) and np.array_equal(edge, re)
    assert all_integral(inst.edge_cost)
    frac = IntraOpInstance(num_strategies=[2, 2], cost=[1, 2, 3, 4], usage=[1, 1, 1, 1], start=[0, 0], end=[1, 1],
                           edge_u=[0] * 4, edge_v=[1] * 4, edge_cost=[0.0] * 15 + [0.5])
    assert not all_integral(frac.edge_cost)   # the fraction sits in the last, partial chunk


@pytest.fixture(params=["fast", "lean"])
def lean(request, monkeypatch):
    """Both forms of the elimination: views of a working copy (instances up to LEAN_ENTRIES edge
    entries), and views of the instance's own array made working where used (larger ones)."""
    if request.param == "lean":
        monkeypatch.setattr(elimination_mod, "LEAN_ENTRIES", 0)
    return request.param


@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("seed", range(4))
def test_elimination_core_and_core_instance_are_the_copying_ones(make, seed, lean):
    inst = make(seed)
    for target in (inst, priced_instance(inst, structure(inst), None)):
        el, ref = eliminate(target), ref_eliminate(target)
        _same_elimination(el, ref)
        if not el.edges:
            continue
        flat = el.flat_layout()
        assert flat is not None and all(np.shares_memory(m, flat) for m in el.edges.values())
        concatenated = np.concatenate([ref.edges[key].ravel() for key in ref.edges]).astype(float)  # the old E
        core, ref_core = Core(el), Core(ref)
        assert core.E is flat and np.array_equal(core.E, concatenated)
        assert core.diffuse(7) == ref_core.diffuse(7)
        linked = sorted({v for key in el.edges for v in key})
        sub, ref_sub = core_instance(el, linked), ref_core_instance(ref, linked)
        assert np.shares_memory(sub.edge_cost, flat) and not sub.edge_cost.flags.writeable
        for name in ("num_strategies", "cost", "usage", "start", "end", "edge_u", "edge_v", "edge_cost"):
            assert np.array_equal(getattr(sub, name), getattr(ref_sub, name)), name
        assert sub.sha256() == ref_sub.sha256()


def test_core_instance_copies_when_the_layout_was_replaced(lean):
    """A caller that replaced a core matrix gets the concatenation (the flat array no longer holds
    the numbers), equal to the reference."""
    inst = random_instance(1)
    el = eliminate(inst)
    assert el.flat_layout() is not None   # laid out (by eliminate when lean, else on this call)
    key = next(iter(el.edges))
    el.edges[key] = el.edges[key] + 1.0
    assert el.flat_layout() is None
    linked = sorted({v for key in el.edges for v in key})
    sub = core_instance(el, linked)
    assert not np.shares_memory(sub.edge_cost, el.flat)
    assert np.array_equal(sub.edge_cost, ref_core_instance(el, linked).edge_cost)


@pytest.mark.parametrize("seed", range(3))
def test_core_plan_and_lagrange_steps_are_unchanged(seed, monkeypatch, lean):
    """The core plan of the Lagrangian stage (decode, sequential decode, greedy, compiled and
    OneFlow moves) from the lean elimination and core instance equals the one from the copying
    references, over a release / set_costs step with new prices."""
    inst = generate(seed, graph="random", nodes=40, strategies=4, memory_ratio=1.05)
    st = structure(inst)

    def run():
        el = anytime_mod.eliminate(priced_instance(inst, st, None))
        core = Core(el)
        core.diffuse(10)
        plans = [anytime_mod._core_plan(el, core, Deadline(), rounds=2, greedy=True, sequential=True,
                                        compiled=True)]
        price = np.linspace(0.0, 1.0, len(st.times))
        core.release()
        el = anytime_mod.eliminate(priced_instance(inst, st, price))
        core.set_costs(el)
        bound = core.diffuse(5)
        plans.append(anytime_mod._core_plan(el, core, Deadline(), rounds=2, sequential=True, compiled=True))
        return plans, bound

    plans, bound = run()
    monkeypatch.setattr(anytime_mod, "eliminate", ref_eliminate)
    monkeypatch.setattr(anytime_mod, "core_instance", ref_core_instance)
    ref_plans, ref_bound = run()
    assert bound == ref_bound
    assert all(np.array_equal(a, b) for a, b in zip(plans, ref_plans))


def test_the_structure_cache_keeps_no_dead_instance():
    """A core instance's structure (its working costs: 1.2 GB on the largest contest files) is
    freed with the instance: the cache holds neither."""
    inst = random_instance(0)
    st = structure(inst)
    assert structure(inst) is st and st.inst is inst
    inst_ref, st_ref = weakref.ref(inst), weakref.ref(st)
    key = id(inst)
    del inst, st
    gc.collect()
    assert inst_ref() is None and st_ref() is None
    assert key not in structure_mod._CACHE


def test_released_working_edge_costs_come_back_the_same():
    """The Lagrangian stage drops the moves' working edge costs while the core lives; the next use
    rebuilds the very same numbers (and the compiled moves' arrays with them)."""
    inst = random_instance(2)
    st = structure(inst)
    before, kernel_before = st.edge_cost.copy(), st.kernel.ecost
    st.release_edge_costs()
    assert "_kernel" not in st.__dict__ and st._edge_cost is None
    assert np.array_equal(st.edge_cost, before) and np.array_equal(st.kernel.ecost, kernel_before)
    assert np.array_equal(st.edge_cost, ref_working_costs(inst)[1])
    clean = random_instance(2, forbidden=False)
    st = structure(clean)
    st.release_edge_costs()   # nothing to drop: the instance's own array
    assert st.edge_cost is clean.edge_cost


def ref_lean_plan(inst, st, deadline):
    """``anytime._lean_plan`` as it was (whole-array temporaries, the lean costs copied)."""
    import dataclasses

    from optsched.problems.intra_op.state import PlanState

    allowed_e = inst.edge_cost < FORBIDDEN
    upper = float(np.where(st.allowed, inst.cost, 0).sum() + np.where(allowed_e, inst.edge_cost, 0).sum()) + 1.0
    pos = inst.usage[inst.usage > 0]
    eps = (float(pos.min()) if pos.size else 1.0) / (2 * upper)
    cost = np.where(st.allowed, inst.usage + eps * inst.cost, 2 * FORBIDDEN)
    ecost = np.where(allowed_e, eps * inst.edge_cost, 2 * FORBIDDEN)
    lean = dataclasses.replace(inst, cost=cost, edge_cost=ecost, usage_limit=None)
    el = ref_eliminate(lean)
    state = PlanState(inst, anytime_mod._core_plan(el, None, deadline), deadline)
    if state.overload() > state.tol:
        state.repair_memory(allow_forbidden=False)
    if state.overload() <= state.tol:
        for _ in range(2):
            if state.fast_sweep(pairs=False) <= 0 or state.expired():
                break
    return state


@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_lean_start_plan_is_unchanged(make, seed, lean, monkeypatch):
    """The memory-lean start (chunked lean costs, the working costs released and rebuilt) gives the
    plan of the whole-array form, with the chunked pass over several chunks."""
    monkeypatch.setattr(structure_mod, "CHUNK", 64)
    inst = make(seed)
    st = structure(inst)
    new = anytime_mod._lean_plan(inst, st, Deadline())
    ref = ref_lean_plan(inst, st, Deadline())
    assert np.array_equal(new.s, ref.s)
