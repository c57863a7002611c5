"""Binding regions (regions grown where memory binds, re-optimized with the Lagrangian memory
prices as trade-offs) and the LNS's adaptive share of its rounds: each on an instance where the
step is what finds the better plan (without it the asserted result changes)."""

from __future__ import annotations

import numpy as np
import pytest

from optsched.problems.intra_op import check
from optsched.problems.intra_op.anytime import PRICE_LEVELS, _lns_round, _Mix
from optsched.problems.intra_op.instance import IntraOpInstance, plan_cost
from optsched.problems.intra_op.state import PlanState


def _trade() -> IntraOpInstance:
    """A path x - z1 - z2 - y (edges of cost 0), all four live at time 0, limit 10 bytes.
    x: strategy 0 costs 10 and uses 5 bytes, strategy 1 costs 0 and uses 8. y: strategy 0 costs 0
    and uses 5, strategy 1 costs 1 and uses 2. z1, z2: strategy 0 free, strategy 1 costs 1, no
    memory. From all 0 (cost 10, load 10 = the limit) the optimum (x = y = 1: cost 1, load 10)
    needs x and y to move together: x alone overflows, y alone only costs more, and no pair, group
    (a node and its neighbours) or path move sees a plan that fits and is cheaper, since the
    memory-free optimum of any set holding x (x = 1, y = 0) overflows and the restricted one
    cannot raise x's usage."""
    zero = [0.0] * 4
    return IntraOpInstance(num_strategies=[2, 2, 2, 2], cost=[10.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
                           usage=[5.0, 8.0, 0.0, 0.0, 0.0, 0.0, 5.0, 2.0], start=[0] * 4, end=[1] * 4,
                           edge_u=[0, 1, 2], edge_v=[1, 2, 3], edge_cost=zero * 3, usage_limit=10.0)


#: per node, a memory price within the range where the priced optimum is the trade: x prefers
#: strategy 1 when 8 p < 10 + 5 p (p < 10/3), y strategy 1 when 1 + 2 p < 5 p (p > 1/3)
PRICE = np.array([1.0, 1.0, 1.0, 1.0])


def test_small_and_unpriced_moves_cannot_trade_memory():
    inst = _trade()
    state = PlanState(inst, np.zeros(4, np.int64))
    assert state.fast_sweep() == 0.0 and state.neighbourhood_sweep() == 0.0
    assert state.chain_move([0, 1, 2, 3]) == 0.0
    assert state.region_move([0, 1, 2, 3]) == 0.0
    assert state.region_move([0, 1, 2, 3], price=PRICE, levels=()) == 0.0
    assert state.s.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("level", PRICE_LEVELS)
def test_priced_region_makes_the_trade(level):
    """Each default price level puts 1 * level inside (1/3, 10/3): the priced region finds the
    optimum, which fits, and the kept cost vectors equal freshly built ones."""
    inst = _trade()
    state = PlanState(inst, np.zeros(4, np.int64))
    gain = state.region_move([0, 1, 2, 3], price=PRICE, levels=(level,))
    assert gain == 9.0 and state.s.tolist() == [1, 0, 0, 1]
    assert check(inst, state.s.tolist()).feasible and plan_cost(inst, state.s)[0] == 1.0
    assert np.array_equal(PlanState(inst, state.s).flat, state.flat)


def test_priced_region_never_takes_a_plan_that_overflows():
    """A price too low for y to give way (x's trade alone overflows): nothing is taken."""
    inst = _trade()
    state = PlanState(inst, np.zeros(4, np.int64))
    assert state.region_move([0, 1, 2, 3], price=np.full(4, 0.1), levels=(1.0,)) == 0.0
    assert state.s.tolist() == [0, 0, 0, 0]


def test_binding_seed_only_where_memory_binds():
    inst = _trade()
    rng = np.random.default_rng(0)
    assert PlanState(inst, np.zeros(4, np.int64)).binding_seed(rng) in (0, 1, 2, 3)
    slack = PlanState(inst, np.array([0, 0, 0, 1]))  # load 7 of 10
    assert slack.binding_seed(rng) is None


@pytest.mark.parametrize("binding, priced", [(True, True), (False, True), (True, False)])
def test_lns_round_binding_regions_option(binding, priced):
    """One LNS round from all 0 with every other move on: only the binding regions with prices
    reach the optimum 1; without either the plan stays at 10."""
    inst = _trade()
    state = PlanState(inst, np.zeros(4, np.int64))
    opts = {"binding_regions": binding, "priced_regions": priced, "star_moves": True, "group_moves": True,
            "large_moves": True, "hub_regions": True}
    from optsched.core.clock import Deadline
    from optsched.problems.intra_op.state import chains

    _lns_round(state, np.random.default_rng(0), chains(inst), opts, Deadline.after(30.0), price=PRICE,
               mix=_Mix(("star", "group", "hub", "binding", "large")), length=0.05)
    assert plan_cost(inst, state.s)[0] == (1.0 if binding and priced else 10.0)
    assert check(inst, state.s.tolist()).feasible


def test_mix_shares_by_gain_rate_with_a_floor():
    mix = _Mix(("a", "b", "c"), floor=0.1)
    assert mix.slices(["a", "b", "c"], 3.0) == {"a": 1.0, "b": 1.0, "c": 1.0}  # nothing known yet
    mix.record("a", 100.0, 1.0, 0.5)
    mix.record("b", 25.0, 1.0, 0.5)
    mix.record("c", 0.0, 1.0, 0.5)
    # weights 1, 0.25 and the floor 0.1 of the best family's rate
    got = mix.slices(["a", "b", "c"], 1.35)
    assert got == pytest.approx({"a": 1.0, "b": 0.25, "c": 0.1})
    mix.record("c", 300.0, 1.0, 0.5)  # the average halves the weight of the older round: 150
    assert mix.rate["c"] == 150.0


def test_mix_runs_a_long_unit_with_probability_slice_over_unit():
    """A family whose last unit took 4x its slice runs in about a quarter of the rounds (4,000
    seeded draws: the binomial standard deviation is 0.007, the tolerance 0.03 is over four of
    them); one whose unit fits, or is not yet measured, runs every round."""
    mix = _Mix(("a", "b"))
    rng = np.random.default_rng(0)
    assert all(mix.runs("a", 0.1, rng) for _ in range(100))  # not measured yet
    mix.record("a", 1.0, 1.0, 0.4)
    mix.record("b", 1.0, 1.0, 0.05)
    share = sum(mix.runs("a", 0.1, rng) for _ in range(4000)) / 4000
    assert share == pytest.approx(0.25, abs=0.03)
    assert all(mix.runs("b", 0.1, rng) for _ in range(100))
