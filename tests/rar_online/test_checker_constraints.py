"""Each constraint of the rar-online checker, violated alone by hand-built allocations.

Two servers of 2 GPUs with 10 GB/s uplinks; each job reserves 6 GB/s on every uplink it spans
when spread; job 0 arrives in slot 1.
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "rar-online"


def job(arrival, max_workers):
    return {"arrival": arrival, "iterations": 100, "max_workers": max_workers, "model_bytes": 1e7,
            "compute_s": 0.01, "reserved_bandwidth": 6e9,
            "utility": {"kind": "step", "value": 1.0, "deadline": 4.0, "slope": 0.0, "midpoint": 0.0,
                        "steepness": 1.0}, "job_type": "x"}


@pytest.fixture
def inst():
    return make(P, {"servers": [2, 2], "uplinks": [1e10, 1e10], "jobs": [job(1, 2), job(0, 2)],
                    "slot_s": 60.0, "horizon": 4, "intra_bandwidth": 1e11, "reduction_speed": 5e10})


def test_feasible(inst):
    report = assert_feasible(P, inst, {"allocations": [[0, 1, [[0, 2]]], [1, 0, [[1, 2]]]]})
    assert report.details["gpu_slots"] == 4.0


def test_before_arrival(inst):
    assert_only(P, inst, {"allocations": [[0, 0, [[0, 2]]], [1, 0, [[1, 2]]]]}, r"^job 0 slot 0: before its arrival slot 1$")


def test_one_allocation_per_job_and_slot(inst):
    assert_only(P, inst, {"allocations": [[1, 2, [[0, 1]]], [1, 2, [[1, 1]]]]}, r"^job 1 slot 2: more than one allocation$")


def test_worker_cap(inst):
    assert_only(P, inst, {"allocations": [[1, 0, [[0, 2], [1, 1]]]]}, r"^job 1 slot 0: 3 workers > max_workers 2$")


def test_server_gpus(inst):
    assert_only(P, inst, {"allocations": [[0, 1, [[0, 2]]], [1, 1, [[0, 1]]]]}, r"^server 0 slot 1: 3 GPUs used > 2$")


def test_uplink_capacity(inst):
    # both spread over the two servers in slot 2: 12 GB/s reserved on each 10 GB/s uplink; GPUs fit
    report = assert_only(P, inst, {"allocations": [[0, 2, [[0, 1], [1, 1]]], [1, 2, [[0, 1], [1, 1]]]]},
                         r"slot 2: 1.2e\+10 bytes/s reserved > 1e\+10$", count=2)
    # one spread job alone fits
    assert_feasible(P, inst, {"allocations": [[0, 2, [[0, 1], [1, 1]]]]})
    assert report


def test_malformed_parts(inst):
    assert_only(P, inst, {"allocations": [[1, 0, []]]}, r"^job 1 slot 0: no workers$")
    assert_only(P, inst, {"allocations": [[1, 0, [[5, 1]]]]}, r"^job 1 slot 0: bad part \[5, 1\]$|no workers", count=2)
    assert_only(P, inst, {"allocations": [[1, 7, [[0, 1]]]]}, r"^allocation \(1, 7\): job or slot out of range$")
