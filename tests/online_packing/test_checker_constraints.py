"""The online-packing checker's constraints (every resource's capacity), each violated alone by a
minimal change of a valid solution of a hand-built instance and named in the message
(docs/checkers.md).
"""

import pytest

from tests.checker_helpers import assert_feasible, assert_only, make


def packing():
    """Three resources; requests 2i and 2i + 1 ask 0.6 of resource i and 0.1 of the others;
    request 6 asks 0.1 of each."""
    demands = [[0.6 if i == t // 2 else 0.1 for i in range(3)] for t in range(6)] + [[0.1, 0.1, 0.1]]
    return make("online-packing", {"resources": 3, "lower": 1.0, "upper": 4.0, "eps": 0.6, "demands": demands,
                                   "values": [1.0, 2.0, 3.0, 4.0, 1.0, 1.0, 1.0], "name": "", "provenance": ""})


def test_online_packing_welfare_by_hand():
    # requests 0 and 2 (resource loads 0.7, 0.7, 0.2): 1 * 0.8 + 3 * 0.8 = 3.2
    assert assert_feasible("online-packing", packing(), {"accepted": [0, 2]}).objective == pytest.approx(3.2, abs=1e-12)


@pytest.mark.parametrize("resource", [0, 1, 2])
def test_online_packing_capacity_of_each_resource(resource):
    # requests 2r and 2r + 1 load resource r to 1.2 and every other one to 0.2
    assert_only("online-packing", packing(), {"accepted": [2 * resource, 2 * resource + 1]},
                rf"^resource {resource}: load 1\.2\d* exceeds the capacity 1$")


def test_online_packing_request_taken_twice():
    assert_only("online-packing", packing(), {"accepted": [6, 6]}, r"^a request is accepted more than once$")
