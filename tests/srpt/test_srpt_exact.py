"""srpt: the rank lower bound ``lb-rank`` and the exact method's proofs (bound, cutoff, MILP)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.gaps import objective_tolerance
from optsched.problems.srpt import SrptInstance, SrptJob, generate
from optsched.problems.srpt.bounds import rank_bound, srpt_completions, subset_rank_bounds
from optsched.problems.srpt.generate import PRESETS
from optsched.problems.srpt.graphs import make_job_edges
from optsched.problems.srpt.incumbent import priority_search

METHODS = ("a-srpt", "fifo", "sjf-oracle", "tiresias-las")


def _stream(seed, jobs):
    # oracle predictions: no forest to train (the bounds and OPT do not read predictions)
    return generate(seed, **{**PRESETS["tiny"], "jobs": jobs}, predictor="oracle")


def _job(jid, arrival, gpus, iterations):
    return SrptJob(id=jid, arrival=arrival, gpus=gpus, plan="data", graph="ring",
                   edges=make_job_edges("ring", gpus, 0.0), compute_s=1.0, iterations=iterations,
                   predicted_iterations=iterations)


def _wait_or_preempt(overhead):
    # one server of 2 GPUs, 1 s per iteration: A (2 GPUs, 10 it.) at 0, B (2 GPUs, 1 it.) at 1;
    # OPT = min(20, 13, 12 + o) (test_srpt_milp.py's hand example)
    return SrptInstance(gpus_per_server=(2,), intra_bandwidth=1e11, inter_bandwidth=1e9, restart_overhead=overhead,
                        jobs=(_job(0, 0.0, 2, 10), _job(1, 1.0, 2, 1)))


def test_srpt_completions_and_rank_bound_by_hand():
    # SRPT on [0, 1] arrivals, sizes 4 and 1: job 1 runs 1..2, job 0 ends at 5
    assert srpt_completions([0.0, 1.0], [4.0, 1.0]) == [5.0, 2.0]
    # F = (2, 5), e = a + isolated = (0 + 6, 1 + 1) sorted (2, 6): max per rank (2, 6), minus arrivals 1
    assert rank_bound([0.0, 1.0], [4.0, 1.0], [6.0, 1.0]) == pytest.approx(7.0, abs=0)
    # a case above lb: F = (1, 2), e = (0.5, 3): ranks max(0.5, 1) + max(3, 2) = 4 > max(SRPT 3, isolated 3.5)
    assert rank_bound([0.0, 0.0], [1.0, 1.0], [3.0, 0.5]) == pytest.approx(4.0, abs=0)


def test_rank_bound_strictly_above_lb_somewhere():
    # seeds 0-9 of 6-job tiny streams: never below lb, strictly above it on at least one (seed 4: 1039.9 > 912.1)
    above = 0
    for seed in range(10):
        inst = _stream(seed, 6)
        lb, rank = optsched.solve(inst, "lb").objective, optsched.solve(inst, "lb-rank").objective
        assert rank >= lb - objective_tolerance(lb)
        above += rank > lb * (1 + 1e-6)
    assert above >= 1


@pytest.mark.parametrize("seeds,jobs", [(range(50), 2), pytest.param(range(50), 3, marks=pytest.mark.slow)])
def test_bounds_never_exceed_proven_opt(seeds, jobs):
    # the property of README#rank-bound: lb <= lb-rank <= OPT, and every subset row holds on OPT's schedule
    proven = 0
    for seed in seeds:
        inst = _stream(seed, jobs)
        opt = optsched.solve(inst, "milp", node_limit=20000)   # a work limit: the 2-job MILPs prove in < 100 nodes
        if opt.status != "optimal":
            continue
        proven += 1
        tol = objective_tolerance(opt.objective)
        lb, rank = optsched.solve(inst, "lb").objective, optsched.solve(inst, "lb-rank").objective
        assert lb <= rank + tol and rank <= opt.objective + tol, (seed, lb, rank, opt.objective)
        assert opt.bound <= opt.objective + tol
        ends = {e["id"]: e["segments"][-1]["end"] for e in opt.solution["jobs"]}
        for subset, value in subset_rank_bounds(inst):
            flow = sum(ends[inst.jobs[j].id] - inst.jobs[j].arrival for j in subset)
            assert value <= flow + tol, (seed, subset)
        for method in METHODS:
            assert opt.objective <= optsched.solve(inst, method).objective + tol, (seed, method)
    assert proven >= 45 if jobs == 2 else proven >= 30


def test_exact_proof_by_bound():
    # seed 0 of the 6-job tiny streams: the best priority order meets the rank bound
    r = optsched.solve(_stream(0, 6), "milp")
    assert r.status == "optimal" and r.stats["proof"] == "bound"
    assert r.bound == pytest.approx(r.objective, rel=1e-6)


def test_exact_milp_beats_every_priority_order():
    # o = 3: OPT waits (flow 13), which no non-idling priority order does (best 12 + 3 = 15): the MILP
    # must find it below the cutoff; the horizon and big-M shrunk by the cutoff must keep it
    inst = _wait_or_preempt(3.0)
    value, _, _ = priority_search(inst)
    assert value == pytest.approx(15.0, rel=1e-9)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.stats["proof"] == "milp"
    assert r.objective == pytest.approx(13.0, rel=1e-6)


def test_exact_proof_by_cutoff():
    # o = 0.5: the preemptive priority order (B first) reaches 12.5 = OPT, above the rank bound, so the
    # MILP with the cutoff flow <= (1 - 1e-6) * 12.5 must be infeasible
    inst = _wait_or_preempt(0.5)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.stats["proof"] == "cutoff", r.stats
    assert r.objective == pytest.approx(12.5, rel=1e-9)
    assert r.stats["rank_bound"] < 12.5 * (1 - 1e-3)


def test_priority_search_local_moves_improve_on_the_start_orders():
    # seed 8 of the 4-job tiny streams: insertion moves improve on the four start orders
    inst = _stream(8, 4)
    start, _, _ = priority_search(inst, budget=8)
    best, solution, stats = priority_search(inst)
    assert best < start * (1 - 1e-6), (best, start)
    report = optsched.get_problem("srpt").check(inst, solution)
    assert report.feasible and report.objective == pytest.approx(best, rel=1e-12)   # the checker's flow time


def test_exact_without_limits_skips_the_milp_on_large_streams():
    # 8 jobs, no time or node limit: bound + incumbent only (the MILP could run for hours)
    r = optsched.solve(_stream(1, 8), "milp")
    assert r.stats.get("proof") == "bound" or r.stats.get("milp_skipped")
    assert r.bound <= r.objective + objective_tolerance(r.objective)
    assert r.status in ("optimal", "feasible")


def test_a_rank_bound_above_a_schedule_is_an_error_not_optimal(monkeypatch):
    """The proof by the bound needs lower <= upper: a (broken) bound above a checked schedule's flow
    time must not be read as "the gap is closed"."""
    from optsched.problems.srpt import bounds

    inst = generate(1, **{**PRESETS["tiny"], "jobs": 4})
    monkeypatch.setattr(bounds, "rank_bound", lambda *a, **k: 1e12)   # the method imports it at each call
    r = optsched.solve(inst, "milp")
    assert r.status == "error" and "rank bound" in r.reason
