"""The learned pricing game: simulator agreement, the per-round rollouts, LP opt, seeded training,
the registered ``learned`` method and (slow) regeneration of the bundled weights."""

import json

import numpy as np
import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.online.learned import (PricingPolicy, TrainConfig, fractional_opt, level_grid, per_round_rollouts,
                                     simulate_prices, train_pricing)
from optsched.problems.online_knapsack.algorithms import post_prices
from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance

torch = pytest.importorskip("torch")

TINY = TrainConfig(upper=16.0, eps=0.25, horizon=6, levels=5, hidden=8, batch=4, archive=4, iterations=2, seed=3)


def _streams(seed, b=5, t=8, m=1, eps=0.25, upper=16.0):
    rng = np.random.default_rng(seed)
    return upper ** rng.random((b, t)), eps * rng.uniform(0.05, 1.0, (b, t, m))


def test_simulator_agrees_with_online_knapsack_posted_prices():
    values, demands = _streams(0)
    policy = PricingPolicy.fresh(TINY, seed=1)
    welfare, _ = simulate_prices(lambda z, t: policy.prices(z, t), values, demands)
    for k in range(values.shape[0]):
        inst = OnlineKnapsackInstance(lower=1.0, upper=16.0, eps=0.25, demands=demands[k, :, 0].tolist(),
                                      values=values[k].tolist())
        rounds = iter(range(100))
        out = post_prices(inst, lambda z: float(policy.prices(np.array([[z]]), next(rounds))[0, 0]))
        assert welfare[k] == pytest.approx(out.objective, rel=1e-12)


@pytest.mark.parametrize("m", [1, 2])
def test_fractional_opt_is_the_lp_relaxation(m):
    values, demands = _streams(1, m=m)
    ours = fractional_opt(values, demands)
    for k in range(values.shape[0]):
        if m == 1:
            inst = OnlineKnapsackInstance(lower=1.0, upper=16.0, eps=0.25, demands=demands[k, :, 0].tolist(),
                                          values=values[k].tolist())
        else:
            from optsched.problems.online_packing import OnlinePackingInstance

            inst = OnlinePackingInstance(resources=m, lower=1.0, upper=16.0, eps=0.25, demands=demands[k].tolist(),
                                         values=values[k].tolist())
        assert ours[k] == pytest.approx(optsched.solve(inst, "lp").objective, rel=1e-7)


def test_per_round_rollouts_match_direct_simulation():
    # every W[b, t, i, a] equals a full simulation with round t's price of resource i forced to level a
    cfg = TrainConfig(resources=2, upper=16.0, eps=0.25, horizon=5, levels=5, hidden=8)
    policy = PricingPolicy.fresh(cfg, seed=2)
    values, demands = _streams(2, b=3, t=5, m=2)
    grid = level_grid(cfg.levels)

    def level_fn(z, t_frac):
        lev = policy.levels_posted(z.numpy(), t_frac.numpy() * cfg.horizon)
        return torch.from_numpy(lev)

    base, zs, w = per_round_rollouts(level_fn, torch.from_numpy(values), torch.from_numpy(demands),
                                     torch.from_numpy(grid), cfg)
    direct_base, _ = simulate_prices(lambda z, t: policy.prices(z, t), values, demands)
    assert np.allclose(base.numpy(), direct_base, rtol=1e-12)
    for t in range(5):
        for i in range(2):
            for a in (0, 2, 4):
                def price(z, s, t=t, i=i, a=a):
                    p = policy.prices(z, s)
                    if s == t:
                        p[:, i] = 16.0 ** grid[a]
                    return p
                direct, _ = simulate_prices(price, values, demands)
                assert np.allclose(w[:, t, i, a].numpy(), direct, rtol=1e-12)


def test_training_is_seeded_and_changes_the_policy():
    a, log_a = train_pricing(TINY)
    b, _ = train_pricing(TINY)
    c, _ = train_pricing(TrainConfig(**{**TINY.__dict__, "seed": 4}))
    fresh = PricingPolicy.fresh(TINY, seed=TINY.seed)
    assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights))
    assert not all(np.array_equal(x, y) for x, y in zip(a.weights, c.weights))
    assert not all(np.array_equal(x, y) for x, y in zip(a.weights, fresh.weights))  # the update moved it
    assert len(log_a.worst_ratio) == TINY.iterations and min(log_a.worst_ratio) >= 1.0 - 1e-9


def test_policy_json_roundtrip(tmp_path):
    p = PricingPolicy.fresh(TINY, seed=0)
    p.save(tmp_path / "p.json")
    q = PricingPolicy.load(tmp_path / "p.json")
    z = np.linspace(0, 1, 7)[:, None]
    assert np.array_equal(p.prices(z, 2), q.prices(z, 2))


def test_learned_method_uses_bundled_policy_and_options(tmp_path):
    inst = optsched.generate("online-knapsack", seed=0, preset="small")
    r = optsched.solve(inst, "learned")
    assert r.status == "feasible" and r.stats["policy"] == "bundled U/L = 16"
    # a policy file given as an option is used (a different policy gives different prices)
    p = PricingPolicy.fresh(TrainConfig(upper=16.0), seed=5)
    p.save(tmp_path / "p.json")
    r2 = optsched.solve(inst, "learned", options={"weights": str(tmp_path / "p.json")})
    assert r2.stats["policy"] == str(tmp_path / "p.json")
    with pytest.raises(InvalidInstanceError, match="option weights"):
        optsched.solve(inst, "learned", options={"weights": str(tmp_path / "missing.json")})


@pytest.mark.slow
def test_bundled_weights_are_regenerated_by_the_script(tmp_path):
    from optsched.problems.online_knapsack import learned as kn
    from optsched.problems.online_packing import learned as pk

    kn.regenerate(directory=tmp_path)
    for ratio in kn.TRAINED_RATIOS:
        ours = json.loads((tmp_path / kn.weights_path(ratio).name).read_text())
        bundled = json.loads(kn.weights_path(ratio).read_text())
        assert ours["config"] == bundled["config"]
        for x, y in zip(ours["weights"], bundled["weights"]):
            assert np.allclose(x, y, rtol=0, atol=1e-9)
    pk.regenerate(path=tmp_path / "packing.json")
    ours = json.loads((tmp_path / "packing.json").read_text())
    bundled = json.loads(pk.WEIGHTS_PATH.read_text())
    for x, y in zip(ours["weights"], bundled["weights"]):
        assert np.allclose(x, y, rtol=0, atol=1e-9)


def test_adversary_network_can_stop_the_stream():
    cfg = TrainConfig(**{**TINY.__dict__, "adversary_stops": True, "iterations": 2})
    _, log = train_pricing(cfg)
    values, demands = log.worst_streams
    lengths = (demands[:, :, 0] > 0).sum(axis=1)
    # every stream keeps a non-empty prefix and nothing after its stop
    assert lengths.min() >= 1 and lengths.min() < cfg.horizon
    for d, n in zip(demands[:, :, 0], lengths):
        assert np.all(d[:n] > 0) and np.all(d[n:] == 0)
    _, plain = train_pricing(TINY)
    assert np.all(plain.worst_streams[1] > 0)   # without the option every request exists
