"""Each structural constraint of the rar-makespan checker, violated alone by a hand-built plan."""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "rar-makespan"


def job(gpus, iterations):
    return {"gpus": gpus, "iterations": iterations, "model_bytes": 1e8, "compute_s": 10.0,
            "estimate_slots": 3.0, "job_type": "x"}


@pytest.fixture
def inst():
    return make(P, {"servers": [2, 2], "jobs": [job(2, 20), job(1, 10)], "slot_s": 60.0,
                    "intra_bandwidth": 1e11, "inter_bandwidth": 1.25e10, "reduction_speed": 5e10,
                    "contention_scale": 50.0, "server_overhead_s": 0.5, "penalty_slope": 0.5,
                    "estimate_lower": 0.1, "estimate_upper": 10.0, "horizon": 100})


GOOD = {"order": [0, 1], "gpus": [[[0, 0], [0, 1]], [[1, 0]]]}


def test_feasible(inst):
    assert assert_feasible(P, inst, GOOD).objective >= 1


def test_order_is_a_permutation(inst):
    assert_only(P, inst, {**GOOD, "order": [0, 0]}, r"^order must be a permutation of 0..1$")
    assert_only(P, inst, {**GOOD, "order": [0, 1, 1]}, r"^order must be a permutation of 0..1$")


def test_gpu_count(inst):
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 1]], [[1, 0], [1, 1]]]},
                r"^job 1: 2 GPUs assigned, needs exactly 1$")
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0]], [[1, 0]]]}, r"^job 0: 1 GPUs assigned, needs exactly 2$")


def test_gpu_assigned_twice(inst):
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 0]], [[1, 0]]]}, r"^job 0: a GPU is assigned twice$")


def test_gpu_exists(inst):
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 1]], [[1, 2]]]}, r"^job 1: GPU \[1, 2\] does not exist$")
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 1]], [[2, 0]]]}, r"^job 1: GPU \[2, 0\] does not exist$")


def test_shape(inst):
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 1]]]}, r"^gpus must list the GPUs of each of the 2 jobs$")
    assert_only(P, inst, {**GOOD, "gpus": [[[0, 0], [0, 1]], [[1, True]]]}, r"integer pairs")


def test_shared_gpus_serialize(inst):
    """Two jobs on one GPU run one after the other: the makespan is larger than either alone."""
    apart = assert_feasible(P, inst, GOOD).objective
    shared = assert_feasible(P, inst, {"order": [0, 1], "gpus": [[[0, 0], [0, 1]], [[0, 0]]]}).objective
    assert shared > apart
