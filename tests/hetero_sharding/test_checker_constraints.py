"""The hetero-sharding checker's constraints (ratios on the simplex, option indices), each violated
alone by a minimal change of a valid solution of a hand-built instance and named in the message
(docs/checkers.md).
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make


def hetero(options=1):
    opt = {"name": "o", "segment": 0, "sharded_flops": 8.0, "replicated_flops": 0.0, "collectives": []}
    return make("hetero-sharding", {
        "device_flops": [1.0, 3.0], "bandwidth": {"all_gather": 1.0, "all_reduce": 1.0, "reduce_scatter": 1.0,
                                                  "all_to_all": 1.0},
        "segment_lengths": [4], "stages": [{"name": "s", "options": [opt] * options}], "bytes_per_element": 1.0,
        "device_names": [], "name": "", "provenance": ""})


def test_hetero_sharding_objective_by_hand():
    # compute time max(8 * 0.25 / 1, 8 * 0.75 / 3) = 2, no collectives
    assert assert_feasible("hetero-sharding", hetero(), {"program": [0], "ratios": [[0.25, 0.75]]}).objective == 2.0


@pytest.mark.parametrize("ratios,total", [([0.25, 0.65], "0.9"), ([0.5, 0.5 - 1e-3], "0.999"),
                                          ([0.25, 0.85], "1.1")])
def test_hetero_sharding_ratios_must_sum_to_one(ratios, total):
    assert_only("hetero-sharding", hetero(), {"program": [0], "ratios": [ratios]},
                rf"^ratios\[0\] sums to {total}, not 1$")


def test_hetero_sharding_ratios_nonnegative():
    assert_only("hetero-sharding", hetero(), {"program": [0], "ratios": [[1.25, -0.25]]},
                r"^ratios\[0\] has a negative or non-finite entry$")


def test_hetero_sharding_option_index():
    assert_feasible("hetero-sharding", hetero(options=2), {"program": [1], "ratios": [[0.25, 0.75]]})
    assert_only("hetero-sharding", hetero(options=2), {"program": [2], "ratios": [[0.25, 0.75]]},
                r"^stage 0: option 2 is not in 0\.\.1$")
