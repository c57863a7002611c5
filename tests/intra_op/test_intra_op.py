"""intra-op: instance I/O, checker, importer/exporter, SBP generator, exact cross-checks and the
effect of every heuristic step."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from hypothesis import given, strategies as hst

import optsched
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.intra_op import (IntraOpInstance, build_model, check, eliminate,
                                        export_iopddl_solution, generate, load_iopddl, transfer_cost)
from optsched.problems.intra_op.generate import SENTINEL, TRANSFER_OVERHEAD, tiny_instances
from optsched.problems.intra_op.model import maximal_starts
from optsched.problems.intra_op.state import PlanState
from tests.conftest import require_data

EXAMPLE = {"problem": {"name": "example", "nodes": {
    "intervals": [[30, 70], [40, 70], [50, 120], [110, 140], [110, 150]],
    "costs": [[15], [55, 65], [25, 45, 35], [85, 75], [95]],
    "usages": [[10], [25, 25], [15, 20, 15], [10, 10], [15]]},
    "edges": {"nodes": [[0, 1], [0, 2], [1, 3], [2, 4], [3, 4]],
              "costs": [[30, 40], [50, 10, 40], [90, 10, 20, 80], [60, 20, 30], [70, 60]]},
    "usage_limit": 50}}


def _write(tmp_path, doc, name="x.json", gz=False):
    path = tmp_path / (name + (".gz" if gz else ""))
    data = json.dumps(doc).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _example(tmp_path):
    return load_iopddl(_write(tmp_path, EXAMPLE))


# -- instance, checker, importer ---------------------------------------------------------------
def test_example_by_hand(tmp_path):
    inst = _example(tmp_path)
    # [0, 0, 1, 1, 0]: nodes 15+55+45+75+95 = 285, edges 30+10+10+20+60 = 130
    rep = check(inst, {"strategy": [0, 0, 1, 1, 0]})
    assert rep.objective == 285 + 130
    # usage at t = 50..69: nodes 0, 1, 2 -> 10 + 25 + 20 = 55 > 50
    assert rep.details["peak_usage"] == 55 and not rep.feasible and "memory" in rep.violations[0]
    ok = check(inst, [0, 0, 0, 1, 0])
    assert ok.feasible and ok.details["peak_usage"] == 50


def test_example_optimum_all_exact_routes(tmp_path):
    inst = _example(tmp_path)
    ref = optsched.solve(inst, "brute")
    for m in ("milp", "dp"):
        r = optsched.solve(inst, m)
        assert r.objective == ref.objective
    assert optsched.solve(inst, "milp", backend="scipy").objective == ref.objective


def test_round_trip_and_gz(tmp_path):
    inst = load_iopddl(_write(tmp_path, EXAMPLE, gz=True))
    assert inst == _example(tmp_path)
    again = IntraOpInstance.from_json(json.loads(inst.dumps(indent=1)))
    assert again == inst and again.sha256() == inst.sha256()


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["problem"]["nodes"]["costs"].__setitem__(1, [5]), "problem.nodes.usages[1]"),
    (lambda d: d["problem"]["edges"]["costs"].__setitem__(0, [1]), "problem.edges.costs[0]"),
    (lambda d: d["problem"]["edges"]["nodes"].__setitem__(0, [0, 1, 2]), "problem.edges.nodes[0]"),
    (lambda d: d["problem"]["edges"]["nodes"].__setitem__(0, [0, 9]), "problem.edges.nodes[0]"),
    (lambda d: d["problem"]["nodes"]["intervals"].__setitem__(0, [5, 1]), "end[0]"),
    (lambda d: d["problem"].__setitem__("usage_limit", "x"), "problem.usage_limit"),
])
def test_importer_rejects(tmp_path, mutate, field):
    doc = json.loads(json.dumps(EXAMPLE))
    mutate(doc)
    with pytest.raises(InvalidInstanceError) as exc:
        load_iopddl(_write(tmp_path, doc))
    assert exc.value.field == field


def test_usage_limit_optional_and_forbidden(tmp_path):
    doc = json.loads(json.dumps(EXAMPLE))
    del doc["problem"]["usage_limit"]
    doc["problem"]["nodes"]["costs"][1] = [55, 1e18]
    inst = load_iopddl(_write(tmp_path, doc))
    assert inst.usage_limit is None
    rep = check(inst, [0, 1, 0, 0, 0])
    assert not rep.feasible and "forbidden" in rep.violations[0]
    assert optsched.solve(inst, "milp").solution["strategy"][1] == 0


def test_bad_solution_shapes(tmp_path):
    inst = _example(tmp_path)
    assert not check(inst, [0, 0]).feasible
    assert not check(inst, [0, 5, 0, 0, 0]).feasible
    assert not check(inst, {"plan": [0] * 5}).feasible


def test_exporter_matches_contest_format(tmp_path):
    inst = _example(tmp_path)
    assert export_iopddl_solution(inst, {"strategy": [0, 1, 2, 0, 0]}) == "[0, 1, 2, 0, 0]"
    assert json.loads(export_iopddl_solution(inst, [0, 1, 2, 0, 0])) == [0, 1, 2, 0, 0]


def test_cli_import_solve_check(tmp_path, capsys):
    from optsched.cli import main
    src = _write(tmp_path, EXAMPLE, gz=True)
    out = tmp_path / "inst.json"
    assert main(["import", "iopddl", str(src), "-o", str(out)]) == 0
    assert main(["solve", "intra-op", str(out), "--method", "milp", "-o", str(tmp_path / "r.json")]) == 0
    assert main(["check", "intra-op", str(out), str(tmp_path / "r.json")]) == 0
    bare = tmp_path / "sol.json"
    bare.write_text("[0, 0, 1, 1, 0]")
    assert main(["check", "intra-op", str(out), str(bare)]) == 1


# -- SBP cost model ------------------------------------------------------------------------------
def test_transfer_table():
    T, p = 100.0, 4
    o = TRANSFER_OVERHEAD
    assert transfer_cost(("S(0)",), ("S(1)",), T, (p,)) == T * (p - 1) / p + o
    assert transfer_cost(("P",), ("S(0)",), T, (p,)) == T * (p - 1) + o
    assert transfer_cost(("S(1)",), ("B",), T, (p,)) == T * (p - 1) + o
    assert transfer_cost(("P",), ("B",), T, (p,)) == 2 * T * (p - 1) + o
    assert transfer_cost(("B",), ("S(0)",), T, (p,)) == 1.0
    assert transfer_cost(("S(0)",), ("P",), T, (p,)) == SENTINEL
    assert transfer_cost(("P",), ("P",), T, (p,)) == 0.0
    # 2-D: the differing axis only, T divided by the other axis' split
    assert transfer_cost(("S(0)", "B"), ("S(0)", "S(1)"), T, (2, 4)) == 1.0
    assert transfer_cost(("S(0)", "S(1)"), ("S(0)", "B"), T, (2, 4)) == T / 2 * 3 + o


def test_sbp_compute_divided_and_memory():
    inst = generate(0, preset="small")
    v = 2  # l0.qkv, a matmul
    labels = inst.labels[inst.offsets[v]:inst.offsets[v + 1]]
    cost = dict(zip(labels, inst.node_costs(v)))
    assert cost["S(0)"] == pytest.approx(cost["B"] / 4) and cost["P"] == pytest.approx(cost["B"] / 4)
    use = dict(zip(labels, inst.node_usages(v)))
    assert use["S(1)"] < use["S(0)"] < use["B"]
    assert inst.usage_limit is not None


def test_generator_2d_and_operator_graph():
    inst = generate(0, preset="transformer-2d")
    assert max(inst.num_strategies) == 16 and "S(0),S(1)" in inst.labels
    path = require_data("graphs/dnn-partitioning/latency-inputs/OperatorGraphs/bert_l-3_inference.json")
    og = generate(0, graph=str(path), mesh="4")
    assert og.num_nodes > 10 and og.usage_limit > 0


def test_generator_rejects():
    # generator options are options of generate: InvalidOptionError, not an instance error
    with pytest.raises(InvalidOptionError, match="mesh"):
        generate(0, mesh="1")
    with pytest.raises(InvalidOptionError, match="graph"):
        generate(0, graph="no-such-graph")


# -- exact methods ---------------------------------------------------------------------------------
def test_maximal_starts():
    inst = IntraOpInstance(num_strategies=[1, 1, 1], cost=[0, 0, 0], usage=[1, 1, 1], start=[0, 1, 5],
                           end=[4, 3, 6], edge_u=[], edge_v=[], edge_cost=[], usage_limit=10)
    # live sets: t=0 {0}, t=1 {0,1} (maximal), t=5 {2} (maximal)
    assert maximal_starts(inst).tolist() == [1, 5]


@pytest.mark.parametrize("seed", range(8))
def test_everything_equals_brute_on_tiny(seed):
    inst = tiny_instances(seed)
    ref = optsched.solve(inst, "brute")
    assert optsched.solve(inst, "milp").objective == pytest.approx(ref.objective, rel=1e-9)
    assert optsched.solve(inst, "milp", backend="scipy").objective == pytest.approx(ref.objective, rel=1e-9)
    lp = optsched.solve(inst, "lp")
    assert lp.objective <= ref.objective * (1 + 1e-9)
    d = optsched.solve(inst, "dp")
    assert d.bound <= ref.objective * (1 + 1e-9)
    if d.status == "optimal":
        assert d.objective == pytest.approx(ref.objective, rel=1e-9)


def test_milp_without_memory_rows_is_lower():
    inst = generate(0, preset="tiny")
    full = build_model(inst)
    free = build_model(inst, memory=False)
    assert "memory" in full.row_blocks and "memory" not in free.row_blocks


@given(hst.integers(0, 10_000), hst.integers(3, 14))
def test_dp_equals_milp_on_series_parallel(seed, nodes):
    inst = generate(seed, graph="random-sp", nodes=nodes, strategies=3)
    el = eliminate(inst)
    assert el.fully_reduced
    free = IntraOpInstance(**{**{k: getattr(inst, k) for k in ("num_strategies", "cost", "usage", "start", "end",
                                                               "edge_u", "edge_v", "edge_cost")}})
    d = optsched.solve(free, "dp")
    m = optsched.solve(free, "milp")
    assert d.status == "optimal" and m.status == "optimal"
    assert d.objective == pytest.approx(m.objective, rel=1e-9)
    # with memory: the dp's bound never exceeds OPT, and 'optimal' only when it is
    dm, mm = optsched.solve(inst, "dp"), optsched.solve(inst, "milp")
    assert dm.bound <= mm.objective * (1 + 1e-9)
    assert dm.status != "optimal" or dm.objective == pytest.approx(mm.objective, rel=1e-9)


def test_dp_reports_memory_binding():
    inst = generate(0, preset="tiny")      # the memory-free optimum overflows here
    r = optsched.solve(inst, "dp")
    assert r.stats["memory_binds"] and r.status == "feasible"
    assert r.bound < optsched.solve(inst, "milp").objective


def test_dp_not_applicable_with_a_large_core():
    inst = generate(1, graph="random", nodes=40, strategies=6)
    ok, why = optsched.get_problem("intra-op").methods["dp"].applicable(inst)
    assert not ok and "core" in why


# -- heuristic steps change results ------------------------------------------------------------------
def test_oneflow_memory_repair_changes_the_plan():
    inst = generate(0, preset="tiny")
    r = optsched.solve(inst, "oneflow", options={"final_greedy": False})
    assert r.stats["memory_free_peak"] > inst.usage_limit       # the OneFlow plan overflows
    assert r.stats["peak_usage"] <= inst.usage_limit and r.status == "feasible"


def test_oneflow_final_greedy_improves():
    inst = generate(0, preset="tiny")
    without = optsched.solve(inst, "oneflow", options={"final_greedy": False})
    with_ = optsched.solve(inst, "oneflow")
    assert with_.objective < without.objective


def test_elimination_steps_all_happen():
    inst = generate(0, preset="small")
    el = eliminate(inst)
    assert el.counts["leaf"] > 0 and el.counts["series"] > 0 and el.counts["parallel_merged"] > 0


def test_core_greedy_differs_from_independent_choice():
    inst = generate(3, graph="random", nodes=30, strategies=4)
    el = eliminate(inst)
    assert not el.fully_reduced
    from optsched.problems.intra_op.core_search import solve_core
    greedy_choice, _ = solve_core(el, exact_limit=0)
    assert el.core_value(greedy_choice) < el.core_value(el.independent_choice())


def _ls(inst, **opts):
    opts.setdefault("init", "least-memory")
    return optsched.solve(inst, "local-search", options=opts)


def test_local_search_moves_each_matter():
    inst = generate(0, preset="tiny")
    base = _ls(inst, pair_moves=False, group_moves=False, large_moves=False)
    groups = _ls(inst, pair_moves=False, large_moves=False)
    assert groups.objective < base.objective            # group (OneFlow-4) moves
    inst6 = generate(6, graph="random", nodes=30, strategies=4)
    nopair = _ls(inst6, pair_moves=False, group_moves=False, large_moves=False)
    pair = _ls(inst6, group_moves=False, large_moves=False)
    assert pair.objective < nopair.objective            # pair moves
    inst8 = generate(8, graph="random", nodes=30, strategies=4)
    nolarge = _ls(inst8, group_moves=False, large_moves=False)
    large = _ls(inst8, group_moves=False)
    assert large.objective < nolarge.objective          # chain / random-path DP moves
    assert large.stats["moves"]["chain"] > 0


def test_local_search_inits_differ():
    inst = generate(0, preset="tiny")
    a = _ls(inst, init="least-memory", rounds=0)
    b = _ls(inst, init="lagrangian", rounds=0)
    assert a.objective != b.objective and a.status == b.status == "feasible"


def test_chain_move_is_exact_on_a_path():
    inst = generate(2, graph="random-sp", nodes=8, strategies=3)
    free = IntraOpInstance(**{k: getattr(inst, k) for k in ("num_strategies", "cost", "usage", "start", "end",
                                                            "edge_u", "edge_v", "edge_cost")})
    # a path graph: chain move over all nodes = global optimum
    n = 6
    path = IntraOpInstance(num_strategies=[3] * n, cost=np.arange(3 * n) % 5, usage=np.ones(3 * n),
                           start=np.zeros(n, int), end=np.ones(n, int), edge_u=list(range(n - 1)),
                           edge_v=list(range(1, n)), edge_cost=(np.arange(9 * (n - 1)) * 7) % 11)
    st = PlanState(path, np.zeros(n, int))
    st.chain_move(list(range(n)), memory=False)
    assert check(path, st.s.tolist()).objective == optsched.solve(path, "brute").objective
    assert free.num_nodes == 8


def test_lp_round_repair_and_polish():
    inst = generate(0, preset="tiny")
    r = optsched.solve(inst, "lp-round", options={"polish": False})
    p = optsched.solve(inst, "lp-round")
    assert p.objective <= r.objective
    assert r.bound == pytest.approx(optsched.solve(inst, "lp").objective)


def test_baselines_repair_memory():
    inst = generate(0, preset="tiny", mesh="3")
    r = optsched.solve(inst, "replicated")
    assert r.stats["uniform_peak"] > inst.usage_limit and r.stats["nodes_changed_for_memory"] > 0
    assert r.status == "feasible"
    g = optsched.solve(inst, "greedy")
    assert g.status == "feasible"


def test_baselines_not_applicable_without_labels(tmp_path):
    inst = _example(tmp_path)
    ok, why = optsched.get_problem("intra-op").methods["replicated"].applicable(inst)
    assert not ok and "labels" in why


# -- real data -------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name, optimum", [("B", 532843.0), ("G", None)])
def test_iopddl_small_instances_proven(name, optimum):
    path = require_data(f"iopddl/asplos-2025-iopddl-{name}.json.gz")
    inst = load_iopddl(path)
    r = optsched.solve(inst, "milp", time_limit=600)
    assert r.status == "optimal"
    if optimum is not None:
        assert r.objective == optimum     # B's optimum, proven by milp (gap 0; optsched/problems/intra_op/README.md)
    lr = optsched.solve(inst, "lp-round")
    assert lr.status == "feasible" and lr.objective <= r.objective * 1.01


def test_local_search_best_init_takes_the_greedy_start_when_cheaper():
    inst = generate(0, graph="random-sp", nodes=20, strategies=4)
    best = optsched.solve(inst, "local-search", options={"rounds": 0})
    oneflow_start = optsched.solve(inst, "local-search", options={"rounds": 0, "init": "oneflow"})
    assert best.stats["init_choice"] == "greedy"
    assert best.objective < oneflow_start.objective


def test_cli_exports_a_solution_in_the_contest_format(tmp_path):
    import json as _json

    from optsched.cli import main

    inst, res, out = tmp_path / "i.json", tmp_path / "r.json", tmp_path / "sol.txt"
    assert main(["generate", "intra-op", "--preset", "tiny", "-o", str(inst)]) == 0
    assert main(["solve", "intra-op", str(inst), "--method", "milp", "-o", str(res)]) == 0
    assert main(["export", "intra-op", str(inst), "--solution", str(res), "--format", "iopddl",
                 "-o", str(out)]) == 0
    strategy = _json.loads(out.read_text())
    assert strategy == _json.loads(res.read_text())["solution"]["strategy"]
    assert main(["check", "intra-op", str(inst), str(out)]) == 0          # the bare list checks
    assert main(["export", "intra-op", str(inst), "--solution", str(res), "--format", "nope",
                 "-o", str(out)]) == 2


def _scaled(inst, factor):
    """``inst`` with every allowed cost multiplied by ``factor`` (forbidden entries kept)."""
    import dataclasses

    from optsched.problems.intra_op.instance import FORBIDDEN

    def scale(a):
        a = np.asarray(a, float)
        return np.where(a >= FORBIDDEN, a, a * factor)
    return dataclasses.replace(inst, cost=scale(inst.cost), edge_cost=scale(inst.edge_cost))


def test_fractional_costs_are_not_solved_as_integral():
    """Costs scaled so that every plan costs less than 1: the objective is no longer integral, so the
    model must not declare a granularity of 1 (HiGHS would then stop within 0.999 of the bound, at
    once, and call its first plan optimal: 0.05247 on this instance, the optimum being 0.05142).
    The scaled optimum is the integral instance's optimum times the factor; 1e-7 absolute is far
    below one cost unit after scaling (2.6e-4) and above HiGHS's default absolute gap (1e-9) and the
    float error of the products. ``anytime`` on a tiny scaled instance likewise reports the exact
    optimum with a bound below it (with integral costs assumed it closes its gap within 1)."""
    from optsched.problems.intra_op.instance import FORBIDDEN
    from tests.status_support import tiny

    inst = optsched.generate("intra-op", seed=0, preset="random-sp")
    exact = optsched.solve(inst, "milp")
    assert exact.status == "optimal"
    allowed = lambda a: np.where(np.asarray(a) >= FORBIDDEN, 0.0, np.asarray(a, float)).sum()  # noqa: E731
    factor = 0.5 / (allowed(inst.cost) + allowed(inst.edge_cost))
    frac = _scaled(inst, factor)
    assert build_model(frac).objective_granularity is None
    r = optsched.solve(frac, "milp")
    assert r.status == "optimal"
    assert abs(r.objective - factor * exact.objective) <= 1e-7, (r.objective, factor * exact.objective)
    small = tiny("intra-op")
    want = optsched.solve(small, "brute").objective * 1e-5
    any_ = optsched.solve(_scaled(small, 1e-5), "anytime")
    assert any_.status == "optimal" and abs(any_.objective - want) <= 1e-9 and any_.bound <= any_.objective + 1e-12
