"""Each constraint of the online-knapsack checker, violated alone by a hand-built solution."""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "online-knapsack"


@pytest.fixture
def inst():
    return make(P, {"lower": 1.0, "upper": 4.0, "eps": 0.5, "demands": [0.5, 0.375, 0.25],
                    "values": [2.0, 3.0, 4.0]})


def test_feasible_with_hand_computed_welfare(inst):
    # 0.5 * 2 + 0.375 * 3 = 2.125 (exact in binary floating point)
    assert assert_feasible(P, inst, {"accepted": [0, 1]}).objective == 2.125


def test_capacity(inst):
    assert_only(P, inst, {"accepted": [0, 1, 2]}, r"^load 1.125 exceeds the capacity 1$")


def test_request_accepted_twice(inst):
    assert_only(P, inst, {"accepted": [1, 1]}, r"^a request is accepted more than once$")   # load 0.75


def test_request_index_range(inst):
    assert_only(P, inst, {"accepted": [3]}, r"^request index 3 out of range 0..2$")
    assert_only(P, inst, {"accepted": [True]}, r"integer request indices")
