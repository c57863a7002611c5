"""Each constraint of the pipeline-partition checker, violated alone by a hand-built plan.

Four layers, three devices of 16 GB on a uniform 10 GB/s network (the ``tiny`` shape).
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "pipeline-partition"

BASE = {"objective": "bottleneck", "microbatches": 4, "profile_batch": 1.0, "microbatch_size": 0.25,
        "layer_names": ["l0", "l1", "l2", "l3"], "forward_s": [0.01, 0.01, 0.01, 0.005],
        "backward_s": [0.02, 0.02, 0.02, 0.01], "parameter_bytes": [2e7, 1e7, 1e7, 3e7],
        "activation_bytes": [3e7, 6e7, 6e7, 7e7], "stash_bytes": [3e7, 6e7, 6e7, 7e7],
        "device_speed": [1.0, 1.0, 1.0], "device_memory_bytes": [16e9, 16e9, 16e9],
        "links": [[0, 1, 1e10], [0, 2, 1e10], [1, 2, 1e10]], "stages": None, "max_replicas": 2,
        "optimizer_factor": 4.0, "schedule": "1f1b", "group_size": 1}


def inst(**over):
    return make(P, {**BASE, **over})


GOOD = {"cuts": [2], "replicas": [1, 1], "devices": [[0], [1]]}


def test_feasible():
    assert_feasible(P, inst(), GOOD)
    assert_feasible(P, inst(), {"cuts": [2], "replicas": [2, 1], "devices": [[0, 2], [1]]})
    assert_feasible(P, inst(), {"cuts": [], "devices": [[1]]})


# stage 1 = layers 0-1: parameters 3e7 x optimizer_factor 4 = 1.2e8 bytes, plus 2 microbatches in
# flight (1F1B, K - k = 2) x stash (3e7 + 6e7) x microbatch 0.25 = 4.5e7: 1.65e8 bytes per device;
# with 2 replicas the stash splits: 1.2e8 + 2 x 2.25e7 / 2 = 1.425e8
NEED, NEED_REPLICATED = 165e6, 142.5e6


def test_memory_of_one_stage_at_its_boundary():
    assert_feasible(P, inst(device_memory_bytes=[NEED, 16e9, 16e9]), GOOD)
    assert_only(P, inst(device_memory_bytes=[NEED - 1, 16e9, 16e9]), GOOD,
                r"^stage 1 needs 1.65e\+08 bytes per device, its devices hold 1.65e\+08$")
    small = inst(device_memory_bytes=[1e6, 16e9, 16e9])
    assert_only(P, small, GOOD, r"^stage 1 needs 1.65e\+08 bytes per device, its devices hold 1e\+06$")
    assert_feasible(P, small, {"cuts": [2], "replicas": [1, 1], "devices": [[2], [1]]})


def test_memory_counts_replicas_by_their_smallest_device():
    plan = {"cuts": [2], "replicas": [2, 1], "devices": [[0, 2], [1]]}
    assert_feasible(P, inst(device_memory_bytes=[16e9, 16e9, NEED_REPLICATED]), plan)
    assert_only(P, inst(device_memory_bytes=[16e9, 16e9, NEED_REPLICATED - 1]), plan,
                r"^stage 1 needs 1.425e\+08 bytes per device, its devices hold 1.425e\+08$")


def test_mapping_is_injective():
    assert_only(P, inst(), {"cuts": [2], "devices": [[0], [0]]}, r"^a device serves two stages or twice in one stage")
    assert_only(P, inst(), {"cuts": [2], "devices": [[0, 0], [1]]}, r"^a device serves two stages or twice in one stage")


def test_device_range():
    assert_only(P, inst(), {"cuts": [2], "devices": [[0], [3]]}, r"^device ids must be in 0..2$")


def test_replica_limit():
    assert_only(P, inst(max_replicas=1), {"cuts": [2], "devices": [[0, 2], [1]]},
                r"^a stage has more than max_replicas = 1 replicas$")


def test_fixed_stage_count():
    assert_only(P, inst(stages=2), {"cuts": [1, 2], "devices": [[0], [1], [2]]},
                r"^the instance fixes 2 stages, the solution has 3$")


def test_cuts_and_groups():
    assert_only(P, inst(), {"cuts": [3, 1], "devices": [[0], [1], [2]]}, r"^cuts must be strictly increasing in 1..3")
    assert_only(P, inst(), {"cuts": [4], "devices": [[0], [1]]}, r"^cuts must be strictly increasing in 1..3")
    assert_only(P, inst(), {"cuts": [2], "devices": [[0]]}, r"^1 cuts need 2 device groups, got 1$")
    assert_only(P, inst(), {"cuts": [2], "replicas": [2, 1], "devices": [[0], [1]]},
                r"^replicas \[2, 1\] disagree with the device groups' sizes \[1, 1\]$")


def test_bottleneck_objective_by_hand():
    """One stage on one device: no communication, the bottleneck is the stage's microbatch compute."""
    report = assert_feasible(P, inst(), {"cuts": [], "devices": [[1]]})
    # (F + B) x microbatch_size / profile_batch = (0.035 + 0.07) x 0.25
    assert report.objective == pytest.approx(0.25 * (0.035 + 0.07), rel=1e-12)
    # two stages: max(0.25 x 0.06, 0.25 x 0.045, transfer 0.25 x 6e7 / 1e10) = 0.015
    assert assert_feasible(P, inst(), GOOD).objective == pytest.approx(0.015, rel=1e-12)
