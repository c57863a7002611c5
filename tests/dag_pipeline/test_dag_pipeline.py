"""dag-pipeline: the stage MILP against brute force, and chain plans against the shared chain partition's DP."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.pipeline.partition.dp import best_plan
from optsched.pipeline.partition.instance import check as check_chain_plan
from optsched.problems.dag_pipeline import DagPipelineInstance, generate, stage_window
from tests.conftest import require_data
from tests.repro_support import load_problem_script

REL = 1e-6  # objective_tolerance


def close(a, b):
    return abs(a - b) <= REL * max(1.0, abs(b))


CASES = [(seed, obj, bal) for seed in range(4) for obj in ("cut-bytes", "bottleneck", "sync-estimate")
         for bal in (-1.0, 40.0)]


@pytest.mark.parametrize("seed,objective,balance", CASES)
def test_milp_equals_brute_on_tiny_dags(seed, objective, balance):
    inst = generate(seed, nodes=8, stages=3, objective=objective, balance_percent=balance)
    a, b = optsched.solve(inst, "milp"), optsched.solve(inst, "brute")
    assert a.status == b.status
    if a.status == "optimal":
        assert close(a.objective, b.objective)


@pytest.mark.parametrize("seed", range(3))
def test_backends_agree(seed):
    inst = generate(seed, nodes=9, stages=3, objective="bottleneck")
    assert close(optsched.solve(inst, "milp", backend="scipy").objective, optsched.solve(inst, "milp").objective)


def test_window_keeps_every_feasible_plan():
    inst = generate(2, nodes=7, stages=3, objective="cut-bytes", balance_percent=30.0)
    lo, hi = stage_window(inst)
    assert np.any(lo > 0) or np.any(hi < 2)  # the window is not trivial here
    g = inst.graph
    cap = inst.stage_budget
    feasible = 0
    for s in itertools.product(range(3), repeat=7):
        s = np.asarray(s)
        W = np.bincount(s, weights=inst.compute_array, minlength=3)
        if np.all(s[g.src] <= s[g.dst]) and np.all(np.bincount(s, minlength=3) > 0) and np.all(W <= cap * (1 + 1e-9)):
            feasible += 1
            assert np.all(lo <= s) and np.all(s <= hi)
    assert feasible > 0


@pytest.mark.parametrize("seed,objective,stages", [(s, o, k) for s in range(3) for o in ("bottleneck", "sync-estimate")
                                                   for k in (2, 3)])
def test_chain_milp_equals_the_chain_partition_dp(seed, objective, stages):
    """Acceptance: on chains, the DAG MILP = order-dp = the shared chain partition's exact DP
    (``optsched.pipeline.partition.dp.best_plan``, exact on identical devices)."""
    t12b = load_problem_script("dag_pipeline")
    inst = generate(seed, nodes=9, stages=stages, shape="chain", objective=objective, microbatches=4)
    assert inst.is_chain
    dag = optsched.solve(inst, "milp")
    linear = t12b.chain_instance(inst)
    plan, exact = best_plan(linear)
    chain = check_chain_plan(linear, plan.solution())
    heur = optsched.solve(inst, "order-dp")
    assert dag.status == "optimal" and exact and chain.feasible
    assert close(dag.objective, chain.objective) and close(heur.objective, dag.objective)


def test_chain_cut_bytes_order_dp_is_exact():
    for seed in range(3):
        inst = generate(seed, nodes=9, stages=3, shape="chain", objective="cut-bytes", balance_percent=50.0)
        assert close(optsched.solve(inst, "order-dp").objective, optsched.solve(inst, "milp").objective)


def test_dag_beats_every_chain_plan_of_its_order():
    # a diamond 0 -> {1, 2} -> 3 with heavy edges 0->2 and 1->3; equal budgets force two nodes per
    # stage; contiguous in the order 0,1,2,3 that is {0,1} | {2,3} (cuts both heavy edges); the DAG
    # plan {0,2} | {1,3} cuts only the light ones
    edges = ((0, 1, 1.0), (0, 2, 100.0), (1, 3, 100.0), (2, 3, 1.0))
    inst = DagPipelineInstance(compute_s=(1.0, 1.0, 1.0, 1.0), edges=edges, stages=2, objective="cut-bytes",
                               balance_percent=0.0)
    dag, dp = optsched.solve(inst, "milp"), optsched.solve(inst, "order-dp")
    assert close(dag.objective, 2.0) and dag.solution["stages"] in ([0, 1, 0, 1],)
    assert close(dp.objective, 200.0)


def test_checker_and_infeasible():
    inst = DagPipelineInstance(compute_s=(1.0, 2.0, 3.0), edges=((0, 1, 5.0), (1, 2, 7.0)), stages=2,
                               objective="cut-bytes", balance_percent=0.0)
    # budget 3 per stage: only {0, 1} | {2} fits
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.solution["stages"] == [0, 0, 1] and close(r.objective, 7.0)
    assert not optsched.check(inst, {"stages": [1, 0, 1]}).feasible        # precedence
    assert not optsched.check(inst, {"stages": [0, 0, 0]}).feasible        # empty stage
    assert not optsched.check(inst, {"stages": [0, 1, 1]}).feasible        # budget 5 > 3
    tight = DagPipelineInstance(compute_s=(1.0, 3.0), edges=((0, 1, 1.0),), stages=2, balance_percent=0.0)
    assert optsched.solve(tight, "milp").status == "infeasible"
    assert optsched.solve(tight, "brute").status == "infeasible"


def test_greedy_balance_closes_stages_at_the_target():
    inst = DagPipelineInstance(compute_s=(1.0, 1.0, 1.0, 1.0, 4.0), edges=tuple((i, i + 1, 1.0) for i in range(4)),
                               stages=2, objective="bottleneck")
    r = optsched.solve(inst, "greedy-balance")
    assert r.solution["stages"] == [0, 0, 0, 0, 1]  # target 4 reached after four nodes
    assert close(r.objective, 4.0)


def test_invalid_inputs():
    with pytest.raises(InvalidInstanceError) as e:
        DagPipelineInstance(compute_s=(1.0, 1.0), edges=((0, 1, 1.0), (1, 0, 1.0)), stages=1)
    assert e.value.field == "edges"
    with pytest.raises(InvalidInstanceError) as e:
        DagPipelineInstance(compute_s=(1.0,), edges=(), stages=2)
    assert e.value.field == "stages"


def test_operator_graph_import():
    path = require_data("graphs/dnn-partitioning/throughput-inputs/LayerGraphs/bert24_training.json")
    from optsched.problems.dag_pipeline import from_operator_graph
    inst = from_operator_graph(path, stages=2, objective="bottleneck", balance_percent=None, bandwidth=1e10)
    assert inst.num_nodes == 32
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal"
    assert r.objective <= optsched.solve(inst, "order-dp").objective + REL


@pytest.mark.parametrize("objective", ["cut-bytes", "bottleneck", "sync-estimate"])
def test_pyomo_agrees_with_windows_that_decide_rows(objective):
    # with a budget the windows fix some precedence rows on their own; they are dropped (Pyomo
    # rejects empty rows), which must not change the optimum
    inst = generate(2, nodes=7, stages=3, objective=objective, balance_percent=30.0)
    ref = optsched.solve(inst, "brute")
    got = optsched.solve(inst, "milp", backend="pyomo")
    assert got.status == ref.status == "optimal" and close(got.objective, ref.objective)
