"""The clock inside pipeline-graph's loops: the lattice enumeration, the one-path walk, the chain
lattice, every level of the DP, the traceback, the probes and PipeDream's DP each poll the
caller's clock, and a stopped method returns ``time_limit`` with the best plan so far.

No wall time is involved: each loop gets a clock that counts its polls (and, for the methods, a
context whose budget is spent at its k-th read), so the checks are exact on any machine.
"""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.core.backends import SolverSettings
from optsched.core.registry import get_problem
from optsched.core.solving import TimeLimitReached
from optsched.pipeline import antichain
from optsched.pipeline.antichain import ChainLattice, DownsetLattice
from optsched.problems.pipeline_graph import baselines, dp
from optsched.problems.pipeline_graph.algorithms import one_path
from optsched.problems.pipeline_graph.dp import (Plan, Stopped, _Oracle, chain_lattice, full_lattice,
                                                 oracle_bytes, plan_value, solve_lattice)
from optsched.problems.pipeline_graph.generate import random_dag
from optsched.problems.pipeline_graph.instance import check

from ..clock_support import CountingContext, Polls

PROBLEM = get_problem("pipeline-graph")


@pytest.fixture(scope="module")
def inst():
    # 14 layers, 6 workers: a few hundred down-sets, several probes, a plan of several stages
    return random_dag(3, 14, 6)


def test_lattice_enumeration_polls_every_level_and_every_block_of_states(inst, monkeypatch):
    """n level polls plus one per POLL_STATES down-sets of the level being extended."""
    monkeypatch.setattr(antichain, "POLL_STATES", 3)
    plain = DownsetLattice(inst.dag, inst.work, inst.params, inst.act)
    polls = Polls()
    DownsetLattice(inst.dag, inst.work, inst.params, inst.act, poll=polls)
    sizes = [len(level) for level in plain.masks]
    assert len(sizes) == inst.num_layers + 1
    assert polls.calls == inst.num_layers + sum(s // 3 for s in sizes[:-1])
    # a poll that raises leaves the enumeration at once
    stop = Polls(stop_at=inst.num_layers + 2)
    with pytest.raises(TimeLimitReached):
        DownsetLattice(inst.dag, inst.work, inst.params, inst.act, poll=stop)
    assert stop.calls == inst.num_layers + 2


def test_chain_lattice_and_one_path_poll(inst):
    polls = Polls()
    path = one_path(random_dag(3, 14, 6), polls)  # a fresh instance: one_path caches on it
    # once per node in each of the three passes (predecessors, successors, open predecessors)
    # and once per step of the walk
    assert polls.calls == 3 * inst.num_layers + len(path) - 1
    fresh = random_dag(3, 14, 6)  # PipeDream's augmenting sets are cached on the DAG once computed
    polls = Polls()
    ChainLattice(fresh.dag, path, fresh.work, fresh.params, fresh.act, poll=polls)
    assert polls.calls == fresh.num_layers + len(path)  # the augmenting sets, then one per cut
    polls = Polls()
    ChainLattice(fresh.dag, path, fresh.work, fresh.params, fresh.act, poll=polls)
    assert polls.calls == len(path)
    with pytest.raises(TimeLimitReached):
        chain_lattice(inst, path, Polls(stop_at=2))


def test_dp_level_and_traceback_poll(inst):
    lat = full_lattice(inst)
    oracle = _Oracle(inst, lat)
    T = plan_value(inst, dp.single_stage_plan(inst))
    polls = Polls()
    assert oracle.run(T, expired=polls.expired)
    assert polls.calls == len(lat.masks) - 1  # one poll per level
    stop = Polls(stop_at=3)
    with pytest.raises(Stopped):
        oracle.run(T, expired=stop.expired)
    assert stop.calls == 3
    assert oracle.run(T)
    polls = Polls()
    plan = oracle.traceback(T, polls.expired)
    assert polls.calls == len(plan.cuts)  # one poll per stage
    with pytest.raises(Stopped):
        oracle.traceback(T, Polls(stop_at=1).expired)


@pytest.mark.parametrize("stop_at", [1, 2, 5, 9, 20, 40])
def test_search_stopped_inside_a_probe_keeps_its_best_plan(inst, stop_at):
    """A stop at any poll (before a probe, inside a level, in a traceback) ends the search with
    the best plan so far and a bound still below it."""
    lat = full_lattice(inst)
    full_plan, full_value, full_lower, full_stats = solve_lattice(inst, lat)
    total = Polls()
    solve_lattice(inst, lat, expired=total.expired)
    assert stop_at < total.calls, "the instance must poll more often than the stops tried"
    stop = Polls(stop_at)
    plan, value, lower, stats = solve_lattice(inst, lat, expired=stop.expired)
    assert stats.get("stopped") and stop.calls == stop_at
    assert stats["probes"] < full_stats["probes"]
    assert lower <= full_value * (1 + 1e-9) <= value * (1 + 1e-9)
    assert plan_value(inst, plan) == value


def _run(inst, method: str, expire_at: int | None):
    inst = random_dag(3, 14, 6)  # a fresh copy: the one-path walk is cached on the instance
    ctx = CountingContext(PROBLEM, PROBLEM.get_method(method), settings=SolverSettings(time_limit=3600.0),
                          expire_at=expire_at)
    try:
        out = PROBLEM.get_method(method).run(inst, ctx)
    except TimeLimitReached as exc:
        out = exc.incumbent
    return out, ctx.reads


@pytest.mark.parametrize("method", ["antichain-dp", "chain-dp", "pipedream"])
def test_methods_stopped_at_every_read_return_time_limit(inst, method):
    """The method's k-th clock read says "spent", for every k up to its total reads: the run
    ends at that read (one more at most, to raise) with time_limit and a valid plan, or (the
    baseline, which has no plan before its DP ends) no plan."""
    full, total = _run(inst, method, None)
    assert full.status in ("optimal", "feasible") and total > 3
    for k in sorted({1, 2, 3, total // 3, total // 2, total - 1, total}):
        out, reads = _run(inst, method, k)
        assert k <= reads <= k + 1, f"{method}: {reads} reads after the clock expired at read {k}"
        if out is None:
            assert method == "pipedream"
            continue
        assert out.status == "time_limit", f"{method}, stopped at read {k}: {out.status}"
        assert check(inst, out.solution).feasible
        assert out.bound is None or out.bound <= full.objective * (1 + 1e-9)


def test_pipedream_dp_polls_every_step(inst):
    states = baselines.pipedream_states(inst)
    polls = Polls()
    baselines.pipedream_plan(inst, states, poll=polls)
    assert polls.calls == (inst.workers - 1) * (len(states.masks) - 1)


def test_solve_with_a_spent_budget_answers_time_limit(inst):
    for method in ("antichain-dp", "chain-dp"):
        r = optsched.solve(inst, method, time_limit=1e-9)
        assert r.status == "time_limit" and r.solution is not None


def test_memory_estimate_refuses_the_lattice_dp(inst):
    """A lattice whose DP estimate exceeds the cap is refused before the DP allocates anything:
    antichain-dp answers chain-dp's plan as feasible (not proved optimal)."""
    lat = full_lattice(inst)
    need = oracle_bytes(inst, [len(m) for m in lat.masks])
    N, S, w = inst.workers, lat.num_states, max(len(m) for m in lat.masks)
    assert need == 16 * N * S + 48 * (N * (N - 1) // 2) * w  # bottleneck: Φ and the transfer filter
    full_lattice(inst, memory_cap=need)  # exactly at the cap: accepted
    with pytest.raises(MemoryError, match="memory cap"):
        full_lattice(inst, memory_cap=need - 1)
    # a cap below the per-down-set part stops the enumeration itself early
    with pytest.raises(MemoryError, match="memory cap"):
        full_lattice(inst, memory_cap=16 * N * 10)


def test_antichain_dp_past_the_memory_cap_returns_the_chain_plan(inst, monkeypatch):
    monkeypatch.setattr(dp, "MEMORY_CAP", 1000)
    r = optsched.solve(inst, "antichain-dp")
    assert r.status == "feasible" and "memory cap" in r.reason
    assert r.objective == pytest.approx(optsched.solve(inst, "chain-dp").objective, rel=1e-12)


def test_generator_ranges_match_the_instance():
    """The workers range is the instance's own (1..1024): the largest accepted value generates."""
    opt = PROBLEM.generator_options["workers"]
    assert opt.bounds.high == 1024
    assert optsched.generate("pipeline-graph", seed=0, workers=1024).workers == 1024


def test_chain_dp_applies_to_one_source_graphs_without_the_walk(monkeypatch):
    """The applicability test is not timed: with one source it does not run the quadratic walk."""
    from optsched.problems.pipeline_graph import algorithms

    def walk(*args, **kwargs):
        raise AssertionError("the walk ran")

    monkeypatch.setattr(algorithms, "antichain_chain", walk)
    ok, why = PROBLEM.get_method("chain-dp").applicable(random_dag(4, 30, 4))
    assert ok and "one source" in why


def test_pipedream_counts_its_states_under_the_clock(inst):
    """Above PIPEDREAM_PRECOUNT_LAYERS the states are counted inside the run (80 s at 10,000
    layers before): the augmenting sets poll once per layer and the enumeration once per state,
    and a count past the limit is the same refusal as the precount's."""
    from optsched.core.errors import NotApplicable, TimeLimitReached
    from optsched.problems.pipeline_graph import methods

    inst.dag.__dict__.pop("_extras", None)
    polls = Polls()
    states = baselines.pipedream_states(inst, poll=polls)
    assert polls.calls == inst.num_layers + len(states.masks)
    inst.dag.__dict__.pop("_extras", None)
    with pytest.raises(TimeLimitReached):
        baselines.pipedream_states(inst, poll=Polls(inst.num_layers // 2))
    with pytest.raises(TimeLimitReached):
        baselines.pipedream_states(inst, poll=Polls(inst.num_layers + 1))
    big = optsched.generate("pipeline-graph", seed=0, layers=methods.PIPEDREAM_PRECOUNT_LAYERS + 1)
    assert methods._pipedream_ok(big)[0]
    with pytest.raises(NotApplicable, match="more than 5000 PipeDream states"):
        optsched.solve(big, "pipedream", time_limit=3600)

