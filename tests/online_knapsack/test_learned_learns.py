"""The learned pricing policies' training simulator posts each price from the past only.

``optsched.online.learned.simulate_prices`` is what the policies are trained and scored on: before
request t it posts ``price_fn(z, t)`` with z the utilization of the requests served *before* t.
A price that saw request t's own demand would be a different (clairvoyant) policy. The trained-vs-
untrained check of the one-resource policy with jax is
``test_learned.py::test_training_beats_the_untrained_policy_on_a_fixed_input`` (this folder; it
skips without the ``learn`` extra); :func:`test_training_beats_the_untrained_start_without_jax`
below runs the same training loop on numpy (``tests/numpy_grad.py``), so the training signal is
checked in every environment. The multi-resource policy's check is its own problem's
``test_learned_learns.py``.
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


def test_training_beats_the_untrained_start_without_jax(monkeypatch):
    """A small training run of :func:`optsched.online.learned.train_pricing` (30 per-round updates,
    seed 1, no LP fit, the certified streams on) with numpy finite-difference gradients in place of
    jax (``tests/numpy_grad.py``; about 15 s), judged on an input it never trains on: the 8 prefixes
    of a staircase of values 16^(k/8), k = 1..8, 8 requests of demand 1/8 each.

    * The untrained start posts about 3.1 (level 0.41) at every utilization: it serves none of the
      first three values and earns nothing on those prefixes (ratio inf).
    * Trained, its price at an empty resource falls to L (level 0.01) and rises with the
      utilization: it earns on every prefix, and its worst ratio, 10.76 (measured), is below
      greedy's 16^(7/8) = 11.31 (greedy fills up at the first value).
    * With the advantage's sign flipped the same run moves every price up (level 0.67 at an empty
      resource): it serves nothing below 6.7 and its ratio stays inf.

    Margin: the assertion is ``before = inf`` and ``after < greedy``; a policy that learned nothing,
    or learned the opposite, stays at inf (both measured), far from either side."""
    import pytest

    import optsched.online.learned as learned
    from optsched.online.certified import staircase_attack
    from optsched.online.learned import PricingPolicy, TrainConfig
    from tests.numpy_grad import jax as numpy_jax

    monkeypatch.setattr(learned, "_jax", lambda: numpy_jax)
    cfg = TrainConfig(upper=16.0, eps=0.125, horizon=6, levels=7, hidden=6, batch=4, archive=4, iterations=30,
                      noise_dim=1, adversary_steps=1, seed=1, round_feature=False, certified=True, certified_grid=3,
                      certified_copies=4)
    trained, log = learned.train_pricing(cfg)
    untrained = PricingPolicy.fresh(cfg, seed=cfg.seed)
    values = 16.0 ** (np.arange(1, 9) / 8)

    def worst(prices):
        def run(v, d):
            return simulate_prices(prices, np.asarray(v)[None], np.asarray(d)[None, :, None])[1][0]
        return staircase_attack(run, 1.0, 16.0, copies=8, values=values).ratio

    greedy = worst(lambda z, t: np.ones_like(z))
    assert greedy == pytest.approx(16.0 / values[0], rel=1e-12)
    before, after = worst(untrained.prices), worst(trained.prices)
    assert before == np.inf and after < greedy, (before, after)
    assert len(log.iteration) == cfg.iterations
