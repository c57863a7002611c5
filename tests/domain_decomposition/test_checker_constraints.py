"""The domain-decomposition checker's constraints (contiguity at every cell), each violated alone by a
minimal change of a valid solution of a hand-built instance and named in the message
(docs/checkers.md).
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make


def domain(contiguous=True):
    return make("domain-decomposition", {"level": 1, "cells": list(range(8)), "weights": [1.0] * 7 + [3.0],
                                         "particles": [1] * 8, "speeds": [2.0, 1.0], "contiguous": contiguous,
                                         "name": "", "provenance": ""})


def test_domain_decomposition_objective_by_hand():
    # rank 0 (speed 2): cells 0..5 = 6 -> 3 s; rank 1: cells 6, 7 = 1 + 3 = 4 -> 4 s
    assert assert_feasible("domain-decomposition", domain(), {"owner": [0] * 6 + [1] * 2}).objective == 4.0


@pytest.mark.parametrize("k", range(1, 8))
def test_domain_decomposition_contiguity_checked_at_every_cell(k):
    # rank 1 on cells 0..k-1, rank 0 after: the order breaks exactly at cell k
    owner = [1] * k + [0] * (8 - k)
    assert_only("domain-decomposition", domain(), {"owner": owner}, rf"^cell {k}: rank 0 after rank 1: ")
    assert_feasible("domain-decomposition", domain(contiguous=False), {"owner": owner})


def test_domain_decomposition_rank_range():
    assert_only("domain-decomposition", domain(), {"owner": [0] * 7 + [2]}, r"^every owner must be an int rank in 0\.\.1$")
