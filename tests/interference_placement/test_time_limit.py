"""interference-placement at the declared bound of 100,000 jobs: the greedy methods and the checker
did O(n^2) work over every job pair (rejected jobs included) and ran past 120 s on a 5 s limit,
and the MILP's O(n^2 S) pair rows were written until the machine ran out of memory.

No wall time: the work is counted (pair-cost and clash calls) and the budget is a counter
(:mod:`tests.clock_support`).
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.interference_placement import algorithms
from optsched.workloads import colocation

from ..clock_support import solve_with_counting_clock


@pytest.fixture(scope="module")
def crowded():
    # 400 jobs on 4 servers: most are rejected, a few dozen placed
    return optsched.generate("interference-placement", seed=0, jobs=400)


@pytest.mark.parametrize("method", ["pack", "spread", "least-interference"])
def test_pair_work_grows_with_the_placed_jobs_only(crowded, monkeypatch, method):
    calls = {"pair": 0, "clash": 0}
    pair_cost, clash = colocation.Snapshot.pair_cost, colocation.Snapshot.clash

    def counted_pair(self, j, k):
        calls["pair"] += 1
        return pair_cost(self, j, k)

    def counted_clash(self, a, b):
        calls["clash"] += 1
        return clash(self, a, b)

    seen = []
    candidates = colocation.candidates

    def recorded(snap, j, free, placed):
        seen.append(len(placed))
        return candidates(snap, j, free, placed)

    monkeypatch.setattr(colocation.Snapshot, "pair_cost", counted_pair)
    monkeypatch.setattr(colocation.Snapshot, "clash", counted_clash)
    monkeypatch.setattr(colocation, "candidates", recorded)
    r = optsched.solve(crowded, method)
    placed = sum(bool(entry["servers"]) for entry in r.solution["jobs"])
    n = crowded.num_jobs
    assert 0 < placed < n // 4
    # per job: a clash test against each placed job and each resident (candidates, blocked
    # servers, the checker); the checker and the cost: the placed pairs
    bound = 2 * n * (placed + len(crowded.residents) + 1) + 4 * placed * placed
    assert calls["pair"] + calls["clash"] <= bound < n * (n - 1) // 2
    # the greedy's placed set holds the placed jobs only (rejected ones made each step O(n))
    assert len(seen) == n and max(seen) <= placed


@pytest.mark.parametrize("method", ["pack", "least-interference", "milp"])
def test_the_clock_stops_the_greedy_and_the_model_writing(method):
    inst = optsched.generate("interference-placement", seed=1, jobs=30)
    full, clock = solve_with_counting_clock(inst, method)
    n = inst.num_jobs
    # a read per job; the model also one per job pair (allowed or clashing) while writing its rows
    assert full.status in ("optimal", "feasible") and clock.reads >= n + (n * (n - 1) // 2 if method == "milp" else 0)
    result, c = solve_with_counting_clock(inst, method, clock.reads // 2)
    assert result.status == "time_limit" and result.solution is None
    assert "subsolves" not in result.stats   # the model was never handed to a back-end


def test_the_milp_refuses_a_snapshot_whose_pair_rows_cannot_be_written():
    inst = optsched.generate("interference-placement", seed=0, jobs=1_001)
    assert algorithms.milp_pair_rows(inst) > algorithms.MILP_MAX_PAIR_ROWS
    ok, why = optsched.get_problem("interference-placement").methods["milp"].applicable(inst)
    assert not ok and "pair rows" in why   # decided from the counts: solve() refuses before building
