"""Each constraint of the mknap checker, violated alone by a hand-built solution."""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make

P = "mknap"


@pytest.fixture
def inst():
    # rows: 1 2 3 <= 4 and 3 2 1 <= 4
    return make(P, {"profits": [10.0, 20.0, 30.0], "weights": [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]],
                    "capacities": [4.0, 4.0]})


def test_feasible_at_capacity_with_hand_computed_profit(inst):
    assert assert_feasible(P, inst, {"selected": [0, 2]}).objective == 40.0   # loads exactly 4 and 4
    assert assert_feasible(P, inst, {"selected": []}).objective == 0.0


def test_capacity_of_one_row(inst):
    assert_only(P, inst, {"selected": [1, 2]}, r"^row 0: load 5 exceeds capacity 4$")   # row 1: 3 <= 4
    assert_only(P, inst, {"selected": [0, 1]}, r"^row 1: load 5 exceeds capacity 4$")   # row 0: 3 <= 4


def test_item_selected_twice(inst):
    assert_only(P, inst, {"selected": [1, 1]}, r"^an item is selected more than once$")


def test_item_index_range(inst):
    assert_only(P, inst, {"selected": [3]}, r"^item index 3 out of range 0..2$")
    assert_only(P, inst, {"selected": [-1]}, r"^item index -1 out of range 0..2$")


def test_shape(inst):
    assert_only(P, inst, {"selected": [0.0]}, r"integer item indices")
    assert_only(P, inst, {"chosen": [0]}, r"must be an object")
