"""The learned pricing policies' training simulator posts each price from the past only.

``optsched.online.learned.simulate_prices`` is what the policies are trained and scored on: before
request t it posts ``price_fn(z, t)`` with z the utilization of the requests served *before* t.
A price that saw request t's own demand would be a different (clairvoyant) policy. The trained-vs-
untrained check of the one-resource policy is
``test_learned.py::test_training_beats_the_untrained_policy_on_a_fixed_input`` (this folder); the
multi-resource policy's is its own problem's ``test_learned_learns.py``.
"""

from __future__ import annotations

import numpy as np

from optsched.online.learned import simulate_prices
from optsched.problems.online_knapsack.algorithms import post_prices
from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance


def _step_price(z, t):
    # price 1 while less than half the capacity is used, 3 from then on
    return np.where(np.asarray(z) < 0.5, 1.0, 3.0)


def test_prices_see_the_utilization_before_the_request():
    values = np.array([[2.0, 2.0, 2.0]])
    demands = np.array([[[0.3], [0.3], [0.3]]])
    welfare, served = simulate_prices(_step_price, values, demands)
    # z = 0 -> price 1, served; z = 0.3 -> price 1, served; z = 0.6 -> price 3 > 2, refused.
    # (a price that saw the request, z + d = 0.6 at the second request, would refuse it)
    assert served.tolist() == [[True, True, False]]
    assert welfare[0] == 2.0 * 0.3 + 2.0 * 0.3


def test_the_simulator_agrees_with_the_methods_posted_prices_on_a_utilization_dependent_price():
    rng = np.random.default_rng(5)
    for _ in range(20):
        values = 16.0 ** rng.random(12)
        demands = rng.uniform(0.02, 0.25, 12)

        def price(z, t):
            return 1.0 + 15.0 * np.asarray(z) ** 2   # rises with the utilization so far

        _, served = simulate_prices(price, values[None], demands[None, :, None])
        inst = OnlineKnapsackInstance(lower=1.0, upper=16.0, eps=0.25, demands=demands.tolist(),
                                      values=values.tolist())
        out = post_prices(inst, lambda z: float(price(z, 0)))
        assert np.flatnonzero(served[0]).tolist() == out.solution["accepted"]
