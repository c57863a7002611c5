"""Each constraint of the smd checker, violated alone by a hand-built solution.

Two jobs, resources gpu (capacity 2) and cpu (capacity 100); a worker takes 1 GPU and 1 CPU, a
parameter server 1 CPU; job 1 may not be deferred.
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "smd"


def job(name, deferrable, defer_cost=None):
    return {"name": name, "weight": 2.0, "forward_s": [0.001, 0.002], "backward_s": [0.002, 0.004],
            "parameter_bytes": [1e6, 2e6], "epochs": 1, "dataset_samples": 1000, "minibatch": 10,
            "max_workers": 2, "max_parameter_servers": 1, "worker_demand": [1.0, 1.0], "ps_demand": [0.0, 1.0],
            "defer_cost": defer_cost, "deferrable": deferrable}


@pytest.fixture
def inst():
    return make(P, {"resources": ["gpu", "cpu"], "capacities": [2.0, 100.0], "worker_bandwidth": 1e9,
                    "ps_bandwidth": 1e9, "round_length": 3600.0,
                    "jobs": [job("a", True, 500.0), job("b", False)]})


def sol(workers, servers):
    return {"workers": workers, "parameter_servers": servers}


def test_feasible(inst):
    assert_feasible(P, inst, sol([1, 1], [1, 1]))            # 2 GPUs of 2: at capacity


def test_deferral_costs_weight_times_defer_cost():
    both = make(P, {"resources": ["gpu", "cpu"], "capacities": [2.0, 100.0], "worker_bandwidth": 1e9,
                    "ps_bandwidth": 1e9, "round_length": 3600.0,
                    "jobs": [job("a", True, 500.0), job("b", True, 300.0)]})
    report = assert_feasible(P, both, sol([0, 0], [0, 0]))
    assert report.objective == 2.0 * 500.0 + 2.0 * 300.0
    assert report.details["deferred"] == 2


def test_capacity_of_one_resource(inst):
    assert_only(P, inst, sol([2, 1], [1, 1]), r"^resource 'gpu': load 3 exceeds capacity 2$")


def test_non_deferrable_job_deferred(inst):
    assert_only(P, inst, sol([1, 0], [1, 0]), r"^job 1 \('b'\) is deferred but not deferrable$")


def test_configuration_range(inst):
    assert_only(P, inst, sol([1, 1], [2, 1]), r"^job 0: \(workers, parameter_servers\) = \(1, 2\) outside 1..2 x 1..1")
    assert_only(P, inst, sol([3, 1], [1, 1]), r"^job 0: \(workers, parameter_servers\) = \(3, 1\) outside")
    # half-deferred: a worker without a parameter server
    assert_only(P, inst, sol([1, 1], [0, 1]), r"^job 0: \(workers, parameter_servers\) = \(1, 0\) outside")


def test_shape(inst):
    assert_only(P, inst, sol([1], [1]), r"must be lists of 2 integers")
    assert_only(P, inst, {"workers": [1, 1]}, r"must be an object")
