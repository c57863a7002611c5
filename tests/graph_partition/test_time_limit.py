"""The clock inside graph-partition's loops (bgl's trials, V-cycles and levels; bgl-1level's and
metis-fm's trials; auto's runs) and the declared ranges of their counts.

No wall time: the budget is a counter that reads as spent from a chosen look on
(``tests/clock_support.py``). Each stop must end the run at once (no unit of work after the clock
read as spent), as ``time_limit``, with the best valid partition so far when there is one.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.graphs import kernels
from optsched.problems.graph_partition import algorithms, lean

from ..clock_support import solve_with_counting_clock, stops

# the units of work of a bgl run: a whole multilevel run, a coarsening level, an FM refinement,
# a further initial assignment
BGL_WORK = [(algorithms, "bgl_multilevel"), (algorithms, "bfs_blocks_csr"), (kernels, "fm_refine_csr"),
            (kernels, "stream_assign"), (algorithms, "bgl_lean"), (lean, "cluster_level"), (lean, "lp_refine")]


def _instance(nodes: int):
    return optsched.generate("graph-partition", seed=3, nodes=nodes, parts=2)


def _assert_stopped(inst, result, clock, k):
    assert result.status == "time_limit", f"read {k}: {result.status} although the budget was spent"
    assert clock.late == [], f"read {k}: work after the budget was spent: {clock.late}"
    assert clock.reads == k + 1, f"read {k}: the clock was read {clock.reads} times"
    if result.solution is not None:  # the incumbent is a valid partition, checked by the core
        assert result.objective == pytest.approx(inst.graph.cut_weight(result.solution["parts"]))


@pytest.mark.parametrize("options", [{"vcycles": 2, "trials": 2}, {"vcycles": 2, "refine": False},
                                     {"vcycles": 2, "trials": 2, "coarsening": "blocks"},
                                     {"vcycles": 2, "refine": False, "coarsening": "blocks"}])
def test_bgl_stops_at_every_look_at_the_clock(options):
    # 400 nodes, K = 2: several coarsening levels above the 32 coarsest nodes
    inst = _instance(400)
    full, clock = solve_with_counting_clock(inst, "bgl", work=BGL_WORK, options=options)
    assert full.status == "feasible" and clock.reads > 10
    with_incumbent = 0
    for k in stops(clock.reads):
        result, c = solve_with_counting_clock(inst, "bgl", k, work=BGL_WORK, options=options)
        _assert_stopped(inst, result, c, k)
        with_incumbent += result.solution is not None
    assert with_incumbent > 0  # stops after the first run keep its partition


@pytest.mark.parametrize("coarsening", ["lp", "blocks"])
def test_bgl_stops_within_one_unit_of_work(coarsening):
    """The budget runs out during a unit of work (a level, an FM refinement, an assignment, a
    V-cycle); the run must stop at its next look at the clock, starting at most one more unit
    (the coarsest level's refinement follows its assignment without a look between)."""
    inst = _instance(400)
    options = {"vcycles": 2, "trials": 2, "coarsening": coarsening}
    full, clock = solve_with_counting_clock(inst, "bgl", work=BGL_WORK, options=options)
    assert clock.work > 20
    # (spent during the last unit, the run has nothing left to do: it ends as it would have)
    for k in stops(clock.work - 1, count=16, first=1):
        result, c = solve_with_counting_clock(inst, "bgl", expire_after_work=k, work=BGL_WORK, options=options)
        assert result.status == "time_limit", f"unit {k}: {result.status}"
        assert len(c.late) <= 1, f"unit {k}: {len(c.late)} units of work after the budget was spent: {c.late}"


@pytest.mark.parametrize("coarsening", ["lp", "blocks"])
def test_bgl_vcycles_poll_even_without_levels(coarsening):
    # 20 nodes, K = 2: the graph is already at the coarsest size, so a V-cycle has no level to
    # poll at; 1000 V-cycles (the declared most) still stop at the clock
    # (the first run reads the clock before its trial, its assignment and its 15 further initial
    # assignments; read 40 falls in the V-cycles)
    inst = _instance(20)
    result, clock = solve_with_counting_clock(inst, "bgl", 40, work=BGL_WORK,
                                              options={"vcycles": 1000, "coarsening": coarsening})
    _assert_stopped(inst, result, clock, 40)
    assert result.solution is not None


def test_trials_stop_with_the_best_so_far():
    inst = _instance(300)
    full, clock = solve_with_counting_clock(inst, "metis-fm", None, options={"trials": 3})
    assert clock.reads == 3
    for k in range(3):
        result, c = solve_with_counting_clock(inst, "metis-fm", k, options={"trials": 3})
        assert result.status == "time_limit" and c.reads == k + 1
        assert (result.solution is None) == (k == 0)


def test_bgl_1level_stops_inside_its_refinement_with_a_partition():
    """Its FM passes ask the clock too (10^6 nodes ran 92 s on a 5 s limit): spent inside the first
    trial's refinement, the run ends there with that trial's partition so far."""
    inst = _instance(300)
    full, clock = solve_with_counting_clock(inst, "bgl-1level", None, options={"trials": 3})
    assert clock.reads > 3   # a read per trial, and the refinements' reads
    none, _ = solve_with_counting_clock(inst, "bgl-1level", 0, options={"trials": 3})
    assert none.status == "time_limit" and none.solution is None   # spent before the first trial
    early, c = solve_with_counting_clock(inst, "bgl-1level", 1, options={"trials": 3})
    assert early.status == "time_limit" and early.solution is not None
    # after the spent read: the block-level and node-level FM each stop at their first pass, and
    # the next trial's look ends the run
    assert c.reads <= 1 + 3


def test_auto_keeps_the_earlier_run_when_stopped():
    inst = _instance(300)
    full, clock = solve_with_counting_clock(inst, "auto", None)
    # metis-fm's trials read the clock first; the read before bgl is the first one after them
    trials = len(optsched.solve(inst, "metis-fm").stats["trials"])
    result, c = solve_with_counting_clock(inst, "auto", 1 + trials)  # auto's look before bgl
    assert c.reads == 2 + trials
    assert result.status == "time_limit" and result.solution is not None
    assert result.stats["chosen"] == "metis-fm"


@pytest.mark.parametrize("method,option,value", [
    ("bgl", "vcycles", 10 ** 400), ("bgl", "trials", 10 ** 400), ("bgl", "vcycles", -1),
    ("bgl", "block_size", 0), ("bgl-1level", "trials", 10 ** 400), ("metis-fm", "trials", 10 ** 400),
    ("metis-fm", "passes", 10 ** 400), ("kl", "rounds", 10 ** 400)])
def test_counts_outside_their_range_are_refused(method, option, value):
    inst = _instance(20)
    # (a budget spent at the first look: a count that were not refused ends the run at once)
    with pytest.raises(InvalidOptionError, match=f"option {option}"):
        solve_with_counting_clock(inst, method, 0, options={option: value})


def test_the_python_methods_refuse_graphs_they_cannot_stop_on():
    from optsched.problems.graph_partition import methods

    big = optsched.generate("graph-partition", seed=0, nodes=methods.KL_MAX_NODES + 1)
    ok, why = optsched.get_problem("graph-partition").methods["kl"].applicable(big)
    assert not ok and "nodes" in why
    small = optsched.generate("graph-partition", seed=0, nodes=methods.KL_MAX_NODES)
    assert optsched.get_problem("graph-partition").methods["kl"].applicable(small)[0]


def _edges_only(n_nodes, n_edges):
    """A graph of ``n_nodes`` nodes and exactly ``n_edges`` edges (a ring, then chords), so that
    only the edge limit can refuse it."""
    from optsched.problems.graph_partition.instance import GraphPartitionInstance

    edges, step = [], 1
    while len(edges) < n_edges:
        edges += [(v, (v + step) % n_nodes) for v in range(min(n_nodes, n_edges - len(edges)))]
        step += 1
    return GraphPartitionInstance(num_nodes=n_nodes, edges=tuple(tuple(sorted(e)) for e in edges),
                                  train_nodes=tuple(range(0, n_nodes, 5)), num_parts=2, eps_train=0.1,
                                  eps_nodes=0.1)


@pytest.mark.parametrize("method,nodes_attr,edges_attr",
                         [("kl", "KL_MAX_NODES", "KL_MAX_EDGES"),
                          ("bgl-1level", "BGL_1LEVEL_MAX_NODES", "BGL_1LEVEL_MAX_EDGES")])
def test_kl_and_bgl_1level_refuse_by_nodes_and_by_edges(method, nodes_attr, edges_attr):
    """The measured graphs had about 2 edges per node: a denser graph of as many nodes is refused
    by its edges, a larger one by its nodes (the message names which)."""
    from optsched.problems.graph_partition import methods

    applies = optsched.get_problem("graph-partition").methods[method].applicable
    max_nodes, max_edges = getattr(methods, nodes_attr), getattr(methods, edges_attr)
    n = 1_000
    ok, why = applies(_edges_only(n, max_edges + 1))
    assert not ok and "edges" in why
    ok, why = applies(_edges_only(n, max_edges))
    assert ok, why
    ok, why = applies(_edges_only(max_nodes + 1, max_nodes + 1))
    assert not ok and "nodes" in why


def test_the_generator_refuses_more_edges_than_measured():
    from optsched.problems.graph_partition.generate import MAX_EXPECTED_EDGES

    with pytest.raises(InvalidOptionError, match="mean_degree"):
        optsched.generate("graph-partition", seed=0, nodes=500_000, mean_degree=4.01)
    assert 500_000 * 4.0 / 2 == MAX_EXPECTED_EDGES   # the declared nodes bound at the default degree
