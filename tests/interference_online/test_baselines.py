"""interference-online: the practitioners' baselines' distinguishing steps, and the held-out trace windows."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.problems.interference_online import OnlineInstance, OnlineJob, check, load_gavel_window

from tests.conftest import require_data


def _inst(jobs, servers=(2, 2), beta=((0.0, 0.0), (0.0, 0.0)), gamma=0.25):
    return OnlineInstance(gpus_per_server=servers, servers_per_group=1, job_types=("a", "b"), beta=beta,
                          forbidden=((False, False), (False, False)), spread_penalty=gamma, jobs=tuple(jobs))


def _starts(inst, method):
    r = optsched.solve(inst, method)
    assert r.status == "feasible" and check(inst, r.solution).feasible
    return {e["id"]: e["start"] for e in r.solution["jobs"]}, r.objective


def test_tiresias_las_starts_the_smallest_gang_first():
    # one 4-GPU server busy until 10 with job 0; at 10, job 1 (4 GPUs, arrived first) and job 2 (1 GPU)
    # wait: FIFO starts job 1, the LAS adaptation starts job 2 (smaller GPU demand) first
    jobs = [OnlineJob(id=0, arrival=0.0, type=0, gpus=4, iterations=10.0, step_time=1.0),
            OnlineJob(id=1, arrival=1.0, type=0, gpus=4, iterations=100.0, step_time=1.0),
            OnlineJob(id=2, arrival=2.0, type=0, gpus=1, iterations=5.0, step_time=1.0)]
    inst = _inst(jobs, servers=(4,))
    las, las_jct = _starts(inst, "tiresias-las")
    fifo, fifo_jct = _starts(inst, "fifo-pack")
    assert las[2] == 10.0 and las[1] == 15.0
    assert fifo[1] == 10.0 and fifo[2] == 110.0
    assert las_jct < fifo_jct


def test_gandiva_packs_only_where_the_pair_is_profitable():
    # server 0 runs a type-0 job on 1 of 2 GPUs; server 1 runs a type-1 job on 1 of 2 GPUs.
    # A new type-0 job: with type 0, beta 0.1 both ways (progress 2/1.1 > 1: profitable); with
    # type 1, beta 3 (progress 2/4 < 1). Gandiva packs it next to type 0 (server 0).
    beta = ((0.1, 3.0), (3.0, 0.0))
    jobs = [OnlineJob(id=0, arrival=0.0, type=0, gpus=1, iterations=1000.0, step_time=1.0),
            OnlineJob(id=1, arrival=0.0, type=1, gpus=1, iterations=1000.0, step_time=1.0),
            OnlineJob(id=2, arrival=1.0, type=0, gpus=1, iterations=100.0, step_time=1.0)]
    inst = _inst(jobs, servers=(2, 2), beta=beta)
    r = optsched.solve(inst, "gandiva-pack")
    where = {e["id"]: e["servers"] for e in r.solution["jobs"]}
    assert where[2][0][0] == where[0][0][0] != where[1][0][0]
    # flipped table: type 0 next to type 1 is profitable, type 0 next to type 0 is not, so job 1
    # packs next to job 0 (same demand: affinity) and job 2 takes the empty server
    beta_flip = ((3.0, 0.1), (0.1, 0.0))
    inst2 = _inst(jobs, servers=(2, 2), beta=beta_flip)
    where2 = {e["id"]: e["servers"] for e in optsched.solve(inst2, "gandiva-pack").solution["jobs"]}
    assert where2[1][0][0] == where2[0][0][0] != where2[2][0][0]


def test_sjf_least_interference_orders_by_isolated_time():
    jobs = [OnlineJob(id=0, arrival=0.0, type=0, gpus=4, iterations=10.0, step_time=1.0),
            OnlineJob(id=1, arrival=1.0, type=0, gpus=4, iterations=100.0, step_time=1.0),
            OnlineJob(id=2, arrival=2.0, type=0, gpus=4, iterations=5.0, step_time=1.0)]
    inst = _inst(jobs, servers=(4,))
    sjf, _ = _starts(inst, "sjf-least-interference")
    li, _ = _starts(inst, "least-interference")
    assert sjf[2] == 10.0 and sjf[1] == 15.0
    assert li[1] == 10.0


def test_gavel_window_scales_to_the_offered_load():
    path = require_data("traces/gavel_philly/e13805.trace")
    for gpus, load in ((64, 0.9), (1024, 0.5)):
        inst = load_gavel_window(path, 1, 2, servers=gpus // 8, gpus_per_server=8, load=load)
        span = inst.jobs[-1].arrival - inst.jobs[0].arrival
        offered = sum(j.gpus * j.isolated_time for j in inst.jobs) / (span * gpus)
        assert inst.jobs[0].arrival == 0.0
        assert offered == pytest.approx(load, rel=1e-12)  # a product and a quotient of floats
    a = load_gavel_window(path, 0, 2, servers=8)
    b = load_gavel_window(path, 1, 2, servers=8)
    assert a.num_jobs + b.num_jobs == 607  # e13805 holds 607 jobs; the windows split them
    for kwargs, field in (({"part": 2, "parts": 2}, "part"), ({"parts": 0}, "parts"), ({"load": 0.0}, "load")):
        with pytest.raises(InvalidOptionError) as e:
            load_gavel_window(path, **kwargs)
        assert e.value.field == field
