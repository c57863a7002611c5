"""Each constraint of the srpt checker, violated alone by a hand-built schedule.

Three servers of 2 GPUs; jobs without communication edges, so an iteration takes ``compute_s``
= 1 s wherever the job runs; restart overhead 1 s.
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "srpt"


def job(jid, arrival, gpus, iterations):
    return {"id": jid, "arrival": arrival, "gpus": gpus, "plan": "data", "graph": "ring", "edges": [],
            "compute_s": 1.0, "iterations": iterations, "predicted_iterations": float(iterations)}


@pytest.fixture
def inst():
    return make(P, {"gpus_per_server": [2, 2, 2], "intra_bandwidth": 1e10, "inter_bandwidth": 1e9,
                    "restart_overhead": 1.0, "jobs": [job(0, 0.0, 2, 10), job(1, 5.0, 1, 5)]})


def seg(start, end, servers):
    return {"start": start, "end": end, "servers": servers}


def sched(j0, j1):
    out = []
    if j0 is not None:
        out.append({"id": 0, "segments": j0})
    if j1 is not None:
        out.append({"id": 1, "segments": j1})
    return {"jobs": out}


BASE0 = [seg(0.0, 10.0, [0, 0])]
BASE1 = [seg(5.0, 10.0, [2])]


def test_feasible_with_hand_computed_flow(inst):
    assert inst.iteration_time(inst.jobs[0], [0, 0]) == 1.0
    # flows: job 0 ends at 10 (arrived 0), job 1 ends at 10 (arrived 5)
    assert assert_feasible(P, inst, sched(BASE0, BASE1)).objective == 15.0
    # preempted and resumed: 4 + (7 - 1 restart) = 10 iterations
    assert assert_feasible(P, inst, sched([seg(0.0, 4.0, [0, 0]), seg(4.0, 11.0, [1, 1])], BASE1)).objective == 16.0


def test_start_before_arrival(inst):
    assert_only(P, inst, sched(BASE0, [seg(4.0, 9.0, [2])]), r"^job 1 segment 0: starts at 4.0, before its arrival \(5.0\)$")


def test_segments_overlap_in_time(inst):
    # second segment starts before the first ends; enough work and no GPU over-use (other servers)
    assert_only(P, inst, sched([seg(0.0, 6.0, [0, 0]), seg(5.0, 11.0, [1, 1])], BASE1),
                r"^job 0 segment 1: starts at 5.0, before the previous segment ends \(6.0\)$")


def test_server_capacity(inst):
    assert_only(P, inst, sched(BASE0, [seg(5.0, 10.0, [0])]), r"^server 0: 3 GPUs in use at t = 5.0, it has 2$")


def test_capacity_is_per_server_not_pooled(inst):
    # 4 GPUs of job 0 and job 1's one fit in the 6 GPUs of the cluster, but not on server 0
    assert_only(P, inst, sched([seg(0.0, 10.0, [0, 0])], [seg(5.0, 10.0, [0])]), r"^server 0: 3 GPUs")


def test_back_to_back_reuse_is_allowed(inst):
    assert_feasible(P, inst, sched([seg(0.0, 10.0, [2, 2])], [seg(10.0, 15.0, [2])]))


def test_not_enough_work(inst):
    assert_only(P, inst, sched([seg(0.0, 9.0, [0, 0])], BASE1), r"^job 0: its segments do 9 iterations, it needs 10$")


def test_restart_overhead_is_charged(inst):
    # 5 + (5 - 1) = 9 < 10 iterations: only with the restart overhead subtracted
    assert_only(P, inst, sched([seg(0.0, 5.0, [0, 0]), seg(5.0, 10.0, [0, 0])], BASE1),
                r"^job 0: its segments do 9 iterations, it needs 10$")


def test_gang_size_and_server_range(inst):
    # the malformed segment is skipped, so job 0 also does no work: both are reported
    assert_only(P, inst, sched([seg(0.0, 10.0, [0])], BASE1),
                r"^job 0 segment 0: servers must list 2 server indices|^job 0: its segments do 0 iterations", count=2)
    assert_only(P, inst, sched(BASE0, [seg(5.0, 10.0, [3])]),
                r"^job 1 segment 0: servers must list 1 server indices|^job 1: its segments do 0 iterations", count=2)


def test_start_after_end(inst):
    assert_only(P, inst, sched(BASE0, BASE1 + [seg(12.0, 11.0, [2])]), r"^job 1 segment 1: needs finite start <= end")


def test_missing_unknown_duplicate_and_empty(inst):
    assert_only(P, inst, sched(BASE0, None), r"^1 job\(s\) missing from the schedule, e.g. \[1\]$")
    dup = sched(BASE0, BASE1)
    dup["jobs"].append({"id": 0, "segments": BASE0})
    assert_only(P, inst, dup, r"^job id 0 unknown or listed twice$")
    unknown = sched(BASE0, BASE1)
    unknown["jobs"].append({"id": 7, "segments": BASE0})
    assert_only(P, inst, unknown, r"^job id 7 unknown or listed twice$")
    assert_only(P, inst, sched(BASE0, []), r"^job 1: no run segment$")
