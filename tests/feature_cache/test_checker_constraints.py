"""The feature-cache checker's constraints (no eviction on a hit, an eviction when full, only cached
nodes evicted), each violated alone by a minimal change of a valid eviction sequence of a hand-built
instance (docs/checkers.md)."""

from tests.checker_helpers import assert_feasible, assert_only, make


def inst(accesses=(0, 1, 2, 0), capacity=1):
    return make("feature-cache", {"num_nodes": 3, "accesses": list(accesses), "capacity": capacity,
                                  "priority": [1.0, 1.0, 1.0], "name": "", "provenance": ""})


def test_misses_by_hand():
    # capacity 1: every read of 0, 1, 2, 0 misses and evicts the one cached node
    assert assert_feasible("feature-cache", inst(), {"evict": [-1, 0, 1, 2]}).objective == 4.0
    # capacity 2 keeping 0: the last read hits
    assert assert_feasible("feature-cache", inst(capacity=2), {"evict": [-1, -1, 1, -1]}).objective == 3.0


def test_no_eviction_on_a_hit():
    assert_only("feature-cache", inst(accesses=(0, 0)), {"evict": [-1, 0]}, r"^read 1: node 0 is a hit")


def test_an_eviction_when_full():
    assert_only("feature-cache", inst(), {"evict": [-1, -1, 1, 2]}, r"^read 1: the cache is full")


def test_only_cached_nodes_are_evicted():
    assert_only("feature-cache", inst(accesses=(0, 1), capacity=2), {"evict": [-1, 2]}, r"^read 1: node 2 is not cached$")
