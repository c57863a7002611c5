"""Each constraint of the ps-locality checker, violated alone by a hand-built allocation.

Two machines with capacity gpu 2, cpu 10, mem 100. A worker takes (1 GPU, 1 CPU, 1 GB), a PS
(0, 4, 1). e_in = 0.1 + 2 x 10 / 1000 = 0.12 and e_ex = 0.1 + 2 x 10 / 100 = 0.3 slots per
mini-batch, so one worker for one slot (8.3 or 3.3 mini-batches) finishes a workload of 3.
Job 0 arrives in slot 1 (max 2 workers, fan 2), job 1 in slot 0 (max 1 worker, fan 2).
Rows: [job, machine, slot, x (co-located workers), p (co-located PSs), y (spread workers), q (spread PSs)].
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "ps-locality"


def job(name, arrival, max_workers):
    return {"name": name, "arrival": arrival, "workload": 3.0, "compute_slots": 0.1, "gradient_mb": 10.0,
            "worker_demand": [1.0, 1.0, 1.0], "ps_demand": [0.0, 4.0, 1.0], "max_workers": max_workers, "ps_fan": 2}


@pytest.fixture
def inst():
    return make(P, {"resources": ["gpu", "cpu", "mem_gb"],
                    "machines": [{"name": "m0", "capacity": [2.0, 10.0, 100.0]},
                                 {"name": "m1", "capacity": [2.0, 10.0, 100.0]}],
                    "jobs": [job("j0", 1, 2), job("j1", 0, 1)], "bandwidth_in": 1000.0, "bandwidth_ex": 100.0,
                    "horizon_slots": 4})


J1 = [1, 1, 3, 1, 1, 0, 0]     # job 1 co-located on machine 1 in slot 3


def sol(*rows):
    return {"allocations": [list(r) for r in rows]}


def test_feasible_with_hand_computed_objective(inst):
    assert inst.e_in[0] == pytest.approx(0.12) and inst.e_ex[0] == pytest.approx(0.3)
    # job 0: arrives 1, done in slot 1 -> 1; job 1: arrives 0, done in slot 3 -> 4; total 5
    assert assert_feasible(P, inst, sol([0, 0, 1, 1, 1, 0, 0], J1)).objective == 5.0
    # spread over two machines: a worker on m0, the PS on m1
    assert assert_feasible(P, inst, sol([0, 0, 2, 0, 0, 1, 0], [0, 1, 2, 0, 0, 0, 1], J1)).objective == 6.0


def test_before_arrival(inst):
    assert_only(P, inst, sol([0, 0, 0, 1, 1, 0, 0], J1), r"^job 0 has an allocation in slot 0 before its arrival slot 1$")


def test_entry_listed_twice(inst):
    # the checker counts co-located entries, so the repeated row also reads as a second machine
    assert_only(P, inst, sol([0, 0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 0, 0], J1),
                r"^\(job 0, machine 0, slot 1\) listed more than once$|co-located workers/PSs on 2 machines", count=2)
    # a repeated spread row is reported once
    assert_only(P, inst, sol([0, 0, 1, 0, 0, 1, 1], [0, 0, 1, 0, 0, 1, 1], J1),
                r"^\(job 0, machine 0, slot 1\) listed more than once$")


def test_colocated_on_one_machine_only(inst):
    assert_only(P, inst, sol([0, 0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0, 0], J1),
                r"^job 0 slot 1: co-located workers/PSs on 2 machines \(at most one\)$")


def test_not_both_colocated_and_spread(inst):
    assert_only(P, inst, sol([0, 0, 1, 1, 1, 0, 0], [0, 1, 1, 0, 0, 1, 1], J1), r"^job 0 slot 1: both co-located and spread$")


def test_max_workers(inst):
    assert_only(P, inst, sol([0, 0, 1, 1, 1, 0, 0], [1, 0, 2, 2, 1, 0, 0]),
                r"^job 1 slot 2: 2 workers exceed max_workers 1$")


def test_colocated_ps_fan(inst):
    assert_only(P, inst, sol([0, 0, 1, 2, 0, 0, 0], J1),
                r"^job 0 slot 1: 0 co-located PS\(s\) cannot serve 2 workers \(ps_fan 2\)$")


def test_spread_ps_fan(inst):
    assert_only(P, inst, sol([0, 0, 1, 0, 0, 2, 0], J1),
                r"^job 0 slot 1: 0 spread PS\(s\) cannot serve 2 workers \(ps_fan 2\)$")


def test_gpu_capacity(inst):
    # machine 0, slot 1: job 0's 2 co-located workers and job 1's spread worker: 3 GPUs, 7 CPUs
    assert_only(P, inst, sol([0, 0, 1, 2, 1, 0, 0], [1, 0, 1, 0, 0, 1, 0], [1, 1, 1, 0, 0, 0, 1]),
                r"^machine 0 slot 1: gpu load 3 exceeds capacity 2$")


def test_cpu_capacity_alone(inst):
    # machine 0, slot 1: 1 GPU but 1 + 2 x 4 + 4 = 13 CPUs (a non-GPU resource)
    assert_only(P, inst, sol([0, 0, 1, 1, 2, 0, 0], [1, 0, 1, 0, 0, 0, 1], [1, 1, 1, 0, 0, 1, 0]),
                r"^machine 0 slot 1: cpu load 13 exceeds capacity 10$")


def test_memory_capacity_alone():
    tight = make(P, {"resources": ["gpu", "cpu", "mem_gb"],
                     "machines": [{"name": "m0", "capacity": [2.0, 10.0, 1.5]}],
                     "jobs": [job("j0", 0, 1)], "bandwidth_in": 1000.0, "bandwidth_ex": 100.0, "horizon_slots": 2})
    assert_only(P, tight, sol([0, 0, 0, 1, 1, 0, 0]), r"^machine 0 slot 0: mem_gb load 2 exceeds capacity 1.5$")


def test_workload_within_horizon(inst):
    assert_only(P, inst, sol(J1), r"^job 0 reaches only 0 of 3 mini-batches within the horizon of 4 slots$")


def test_ranges(inst):
    assert_only(P, inst, sol([0, 2, 1, 1, 1, 0, 0], J1), r"^allocations\[0\]: machine 2 out of range 0..1$")
    assert_only(P, inst, sol([0, 0, 4, 1, 1, 0, 0], J1), r"^allocations\[0\]: slot 4 out of range 0..3$")
    assert_only(P, inst, sol([0, 0, 1, 1, -1, 0, 0], J1), r"^allocations\[0\]: negative count$")
