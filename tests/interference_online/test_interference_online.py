"""interference-online: checker by hand, policies' distinguishing steps, MILP fallback, MARL, data."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.problems.interference_online import OnlineInstance, OnlineJob, check, compress, generate

from tests.conftest import require_data

REL = 1e-9  # simulator and checker integrate the same piecewise-constant rates (see WORK_RTOL)


def _inst(jobs, servers=(2, 2), beta=((0.5, 2.0), (0.1, 0.0)), forbidden=((False, False), (False, False)),
          gamma=0.25, spg=1):
    return OnlineInstance(gpus_per_server=servers, servers_per_group=spg, job_types=("a", "b"), beta=beta,
                          forbidden=forbidden, spread_penalty=gamma, jobs=tuple(jobs))


def test_checker_integrates_interference_by_hand():
    # job 0 (a) alone 0..10 at 1 it/s, then job 1 (b) joins on server 0: job 0 at 1/(1+2) it/s,
    # job 1 at 1/(1+0.1); job 0 needs 20 iterations: 10 done alone, 10 more take 30 s -> ends at 40
    jobs = [OnlineJob(id=0, arrival=0.0, type=0, gpus=1, iterations=20.0, step_time=1.0),
            OnlineJob(id=1, arrival=10.0, type=1, gpus=1, iterations=1000.0, step_time=1.0)]
    inst = _inst(jobs)
    # job 1: 30 s at 1/1.1 (27.27 it), then alone at 1 it/s: ends at 40 + 1000 - 30/1.1
    end1 = 40 + 1000 - 30 / 1.1
    sol = {"jobs": [{"id": 0, "start": 0.0, "end": 40.0, "servers": [[0, 1]]},
                    {"id": 1, "start": 10.0, "end": end1, "servers": [[0, 1]]}]}
    rep = check(inst, sol)
    assert rep.feasible, rep.violations
    assert rep.objective == pytest.approx((40 + end1 - 10) / 2)
    early = {"jobs": [dict(sol["jobs"][0], end=39.0), sol["jobs"][1]]}
    assert not check(inst, early).feasible
    over = {"jobs": [dict(sol["jobs"][0], servers=[[0, 3]]), sol["jobs"][1]]}
    assert not check(inst, over).feasible


def test_simulated_schedules_pass_the_checker_and_lb():
    inst = generate(3, jobs=25, servers=4, gpus_per_server=4)
    lb = optsched.solve(inst, "lb").objective
    for m in ("fifo-pack", "least-interference", "marl", "milp-per-event", "tiresias-las", "gandiva-pack",
              "sjf-least-interference"):
        r = optsched.solve(inst, m)
        assert r.status == "feasible", r.reason
        assert check(inst, r.solution).feasible
        assert r.objective >= lb


def test_least_interference_beats_fifo_pack_on_a_bad_pair():
    # two 1-GPU jobs of type a and b arrive together; pack puts both on server 0 (best fit),
    # where a suffers beta 2.0; least-interference separates them
    jobs = [OnlineJob(id=0, arrival=0.0, type=0, gpus=1, iterations=100.0, step_time=1.0),
            OnlineJob(id=1, arrival=0.0, type=1, gpus=1, iterations=100.0, step_time=1.0)]
    inst = _inst(jobs, servers=(2, 2))
    pack = optsched.solve(inst, "fifo-pack")
    li = optsched.solve(inst, "least-interference")
    assert li.objective < pack.objective
    assert li.objective == pytest.approx(100.0)


def test_fifo_backfill_option_changes_the_result():
    jobs = [OnlineJob(id=0, arrival=0.0, type=1, gpus=2, iterations=100.0, step_time=1.0),
            OnlineJob(id=1, arrival=1.0, type=1, gpus=4, iterations=10.0, step_time=1.0),
            OnlineJob(id=2, arrival=2.0, type=1, gpus=1, iterations=10.0, step_time=1.0)]
    inst = _inst(jobs, servers=(2, 2), beta=((0.0, 0.0), (0.0, 0.0)))
    strict = optsched.solve(inst, "fifo-pack")
    bf = optsched.solve(inst, "fifo-pack", options={"backfill": True})
    assert bf.objective < strict.objective


def test_milp_per_event_falls_back_with_a_logged_reason():
    inst = generate(4, jobs=20, servers=4, gpus_per_server=4)
    r = optsched.solve(inst, "milp-per-event", options={"time_budget": 1e-9})
    assert r.status == "feasible" and check(inst, r.solution).feasible
    assert r.stats["fallbacks"] > 0 and "time budget exhausted" in r.stats["fallback_reasons"]
    li = optsched.solve(inst, "least-interference")
    # with no budget at all, every decision is least-interference's
    assert r.objective == pytest.approx(li.objective, rel=REL)


def test_milp_per_event_decides_differently_from_greedy():
    vals = {}
    for seed in range(3):
        inst = generate(seed, jobs=20, servers=4, gpus_per_server=4)
        vals[seed] = (optsched.solve(inst, "milp-per-event").objective, optsched.solve(inst, "least-interference").objective)
    assert any(abs(a - b) > 1e-6 * b for a, b in vals.values())


def test_invalid_inputs():
    job = OnlineJob(id=0, arrival=0.0, type=0, gpus=9, iterations=1.0, step_time=1.0)
    with pytest.raises(InvalidInstanceError) as e:
        _inst([job])
    assert e.value.field == "jobs[0].gpus"
    with pytest.raises(InvalidInstanceError) as e:
        OnlineJob(id=0, arrival=-1.0, type=0, gpus=1, iterations=1.0, step_time=1.0)
        _inst([OnlineJob(id=0, arrival=-1.0, type=0, gpus=1, iterations=1.0, step_time=1.0)])
    assert e.value.field == "jobs[0].arrival"


def test_gavel_trace_import_and_compression():
    path = require_data("traces/gavel_philly/e13805.trace")
    load = optsched.get_problem("interference-online").importers["gavel-online"]
    inst = load(path, max_jobs=40)
    assert inst.num_jobs == 40 and inst.jobs[0].arrival == 0.0
    loaded = compress(inst, 4.0)
    assert loaded.jobs[5].arrival == pytest.approx(inst.jobs[5].arrival / 4)
    r = optsched.solve(loaded, "least-interference")
    assert check(loaded, r.solution).feasible
