"""commit-rate: ADSP's interval rule by hand, curve fit and reward, schemes, search rule, errors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.problems.commit_rate import check, generate, simulate, tiny_instances
from optsched.problems.commit_rate.algorithms import fit_loss_curve, reward
from optsched.problems.commit_rate.simulate import adsp_interval, local_steps


def test_adsp_interval_rule_by_hand():
    inst = replace(tiny_instances(0), step_times=(0.5, 2.0, 3.0), commit_overheads=(1.5, 0.5, 2.0))
    # max(10, 60/4 - 1.5) = 13.5 s -> 27 steps of 0.5 s; max(10, 60/6 - 0.5) = 10 s -> 5 steps of 2 s
    assert adsp_interval(inst, 0, 4) == 13.5 and local_steps(inst, 0, 4) == 27
    assert adsp_interval(inst, 1, 6) == 10.0 and local_steps(inst, 1, 6) == 5
    # a worker slower than its interval still takes one step
    slow = replace(inst, step_times=(0.5, 2.0, 30.0))
    assert local_steps(slow, 2, 4) == 1


def test_curve_fit_recovers_a_known_curve_and_reward_formula():
    t = np.linspace(0, 30, 40)
    a, b, c = 0.3, 2.0, 0.25
    y = 1 / (a * a * t + b) + c
    fit = fit_loss_curve(t, y)
    assert fit is not None
    assert abs(fit[0]) == pytest.approx(a, rel=1e-4) and fit[1] == pytest.approx(b, rel=1e-4)
    assert fit[2] == pytest.approx(c, rel=1e-4)
    # time to l* = 0.3: 1/(a^2 t + b) = 0.05 -> t = (20 - 2) / 0.09 = 200 s
    assert reward((a, b, c), 0.3, t, y) == pytest.approx(1 / 200)
    assert reward((a, b, c), 0.2, t, y) == 0.0  # the curve never gets below c


def test_simulation_is_deterministic_and_checker_agrees():
    inst = tiny_instances(1)
    sol = {"scheme": "adsp", "commits": [2]}
    a, b = simulate(inst, sol), simulate(inst, sol)
    assert a.objective == b.objective and a.updates == b.updates
    assert check(inst, sol).objective == a.objective


def test_exhaustive_is_the_minimum_over_constant_c():
    inst = tiny_instances(2)
    values = [simulate(inst, {"scheme": "adsp", "commits": [c]}).objective for c in range(1, inst.max_commits + 1)]
    r = optsched.solve(inst, "exhaustive")
    assert r.objective == min(values)
    assert r.solution["commits"] == [int(np.argmin(values)) + 1]


def test_search_follows_the_hill_climbing_rule():
    for seed in range(4):
        inst = tiny_instances(seed)
        r = optsched.solve(inst, "adsp-search")
        hist = r.stats["search"]
        rewards = [h["reward"] for h in hist]
        # it kept climbing while the reward rose; a stop by a fall returns to the previous C
        assert all(rewards[i + 1] > rewards[i] for i in range(len(rewards) - 2))
        cs = r.solution["commits"]
        if len(rewards) >= 2 and not rewards[-1] > rewards[-2]:
            assert cs[-1] == cs[-2] - 1


def test_schemes_differ_and_staleness_matters():
    inst = generate(0, workers=4, heterogeneity=5.0, horizon=900.0)
    s0 = optsched.solve(inst, "ssp", options={"staleness": 0})
    s9 = optsched.solve(inst, "ssp", options={"staleness": 50})
    assert s0.stats["updates"] != s9.stats["updates"]
    # BSP: a round lasts the slowest step + commit; the number of updates is n per round
    bsp = simulate(inst, {"scheme": "bsp"})
    rnd = max(t + o for t, o in zip(inst.step_times, inst.commit_overheads))
    assert bsp.updates <= inst.num_workers * int(inst.horizon // rnd)
    f1 = optsched.solve(inst, "fixed", options={"local_steps": 1})
    f20 = optsched.solve(inst, "fixed", options={"local_steps": 20})
    assert f1.objective != f20.objective


def test_censored_objective_when_target_unreachable():
    inst = replace(tiny_instances(0), target_loss=0.0, horizon=120.0)
    run = simulate(inst, {"scheme": "adsp", "commits": [2]})
    assert not run.reached and inst.horizon < run.objective <= 10 * inst.horizon


def test_mlp_model_trains():
    inst = generate(1, workers=3, heterogeneity=2.0, model="mlp", horizon=600.0)
    run = simulate(inst, {"scheme": "adsp", "commits": [3]})
    assert run.final_loss < run.initial_loss


def test_invalid_inputs_and_solutions():
    inst = tiny_instances(0)
    with pytest.raises(InvalidInstanceError) as e:
        replace(inst, commit_overheads=(1.0,))
    assert e.value.field == "commit_overheads"
    with pytest.raises(InvalidInstanceError) as e:
        replace(inst, step_times=(0.0, 1.0, 1.0))
    assert e.value.field == "step_times[0]"
    assert not check(inst, {"scheme": "adsp", "commits": [inst.max_commits + 1]}).feasible
    assert not check(inst, {"scheme": "ssp"}).feasible
    assert not check(inst, {"scheme": "gossip"}).feasible


def test_exhaustive_tries_max_commits():
    """On this instance the best constant is C = max_commits = 3 (620.2 s against 620.9 s for C = 2,
    measured): the exhaustive search must try it. The reference values are the simulations
    themselves, computed here."""
    inst = generate(0, workers=3, heterogeneity=3.0, horizon=600.0, max_commits=3, samples=120)
    values = [simulate(inst, {"scheme": "adsp", "commits": [c]}).objective for c in range(1, 4)]
    assert int(np.argmin(values)) == 2
    r = optsched.solve(inst, "exhaustive")
    assert r.solution["commits"] == [3] and r.objective == min(values)


def test_search_stops_at_the_first_fall_of_the_reward(monkeypatch):
    """The climb moves to C + 1 while the reward rises and, at the first fall, returns to the C
    before it. The rewards are scripted (1, 3, 2, 5, 6, 7): a climb that kept going while the
    reward fell (comparing with an older reward, or not at all) would try C = 4 and beyond."""
    from optsched.problems.commit_rate import algorithms

    script = iter([1.0, 3.0, 2.0, 5.0, 6.0, 7.0])
    monkeypatch.setattr(algorithms, "reward", lambda *args: next(script))
    inst = replace(tiny_instances(0), target_loss=0.0, max_commits=6, horizon=600.0)
    r = optsched.solve(inst, "adsp-search")
    assert [h["reward"] for h in r.stats["search"]] == [1.0, 3.0, 2.0]
    assert r.solution["commits"] == [1, 2, 3, 2] and r.stats["chosen_commits"] == 2


@pytest.mark.parametrize("staleness", [0, 1, 2])
def test_ssp_lets_a_worker_lead_by_its_staleness(staleness):
    """One fast worker (1 s per step) and two slow ones (10 s), no commit overhead: before the slow
    workers' first commits at t = 10 the fast one may start a step while it leads by at most
    ``staleness`` commits, so it commits at t = 1, ..., staleness + 1 and then waits; after each
    pair of slow commits it is one commit behind its bound again and commits once more."""
    inst = replace(tiny_instances(0), step_times=(1.0, 10.0, 10.0), commit_overheads=(0.0, 0.0, 0.0),
                   target_loss=0.0, horizon=25.0)
    run = simulate(inst, {"scheme": "ssp", "staleness": staleness}, record=True)
    fast = [float(t) for t in range(1, staleness + 2)]
    assert run.times == [0.0, *fast, 10.0, 10.0, 11.0, 20.0, 20.0, 21.0]
