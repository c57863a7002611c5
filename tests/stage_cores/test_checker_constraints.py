"""The stage-cores checker's constraints (min_cores per stage, the core budget), each violated alone
by a minimal change of a valid allocation of a hand-built instance (docs/checkers.md)."""

from tests.checker_helpers import assert_feasible, assert_only, make


def inst():
    return make("stage-cores", {"stages": ["a", "b"], "rate_per_core": [1.0, 2.0], "cores": 4, "min_cores": 1,
                                "name": "", "provenance": ""})


def test_throughput_by_hand():
    # min(1 x 2, 2 x 2) = 2
    assert assert_feasible("stage-cores", inst(), {"cores": [2, 2]}).objective == 2.0


def test_min_cores_of_each_stage():
    assert_only("stage-cores", inst(), {"cores": [0, 3]}, r"^stage a: 0 cores < min_cores 1$")
    assert_only("stage-cores", inst(), {"cores": [3, 0]}, r"^stage b: 0 cores < min_cores 1$")


def test_core_budget():
    assert_only("stage-cores", inst(), {"cores": [3, 2]}, r"^5 cores used > 4 available$")
