"""The priority rule of each srpt policy on a hand-built two-job stream (one server, one GPU): a
long job arrives first, a short one while it runs. Each rule decides who finishes first."""

import pytest

import optsched
from tests.checker_helpers import make


def job(jid, arrival, iterations):
    return {"id": jid, "arrival": arrival, "gpus": 1, "plan": "data", "graph": "ring", "edges": [],
            "compute_s": 1.0, "iterations": iterations, "predicted_iterations": float(iterations)}


@pytest.fixture
def inst():
    return make("srpt", {"gpus_per_server": [1], "intra_bandwidth": 1e10, "inter_bandwidth": 1e9,
                         "restart_overhead": 1.0, "jobs": [job(0, 0.0, 1000), job(1, 100.0, 10)]})


def completion(result, jid):
    entry = next(e for e in result.solution["jobs"] if e["id"] == jid)
    return entry["segments"][-1]["end"]


def test_tiresias_las_preempts_the_job_with_more_attained_service(inst):
    # at t = 100 job 0 has 100 GPU-seconds (queue 1 with threshold 50), job 1 none (queue 0)
    r = optsched.solve(inst, "tiresias-las", options={"queue_thresholds": "50", "tick_s": 10.0})
    assert r.status == "feasible"
    assert completion(r, 1) == pytest.approx(110.0)
    assert completion(r, 0) == pytest.approx(1011.0)    # 1000 s of work + 1 s restart overhead


def test_fifo_never_preempts(inst):
    r = optsched.solve(inst, "fifo")
    assert completion(r, 0) == pytest.approx(1000.0)
    assert completion(r, 1) == pytest.approx(1010.0)


def test_a_srpt_preempts_for_the_shorter_remaining_job(inst):
    r = optsched.solve(inst, "a-srpt")
    assert completion(r, 1) < completion(r, 0)
