"""interference-online: the learned scheduler's training signals point the right way.

The end-to-end check (a trained policy beats its untrained start on a fixed stream) is
``tests/interference_online/test_marl.py::test_trained_policy_beats_an_untrained_one``, a strict
expected failure whose reason says why it is not reliable on one stream. These tests check the
two training steps directly, on one recorded decision state, so a flipped sign cannot hide behind
the noise of whole-stream job completion times:

* actor-critic: the same state recorded twice with two different chosen candidates, returns +1
  and -1; one small gradient step on the loss must raise the score of the +1 candidate relative
  to the -1 one (after standardization the two advantages are +1 and -1, the critic sees one
  state, so the step's first-order effect on the score difference is positive);
* imitation: a few steps of cross-entropy towards the teacher's candidate raise its probability;
* the placement features the agents read (interference suffered and caused, co-runners, free GPUs)
  equal values computed by hand on a two-job state.
"""

from __future__ import annotations

import numpy as np
import pytest

from optsched.problems.interference_online.generate import PRESETS, generate
from optsched.problems.interference_online.marl import H, MarlPolicy, encode, init_params, scores
from optsched.problems.interference_online.policies import simulate


def _state():
    cfg = dict(PRESETS["train-rack"])
    cfg.pop("load")
    inst = generate(7, load=1.0, **cfg)
    pol = MarlPolicy(inst, init_params(2), sample=True, rng=np.random.default_rng(0))
    simulate(inst, pol)
    # a decision whose first two candidates (and the teacher's and the first) differ in their
    # features: on an empty cluster all single-server candidates of one job look alike
    def distinct(d, a, b):
        rows = np.hstack([d["jobf"], d["placef"]])
        return not np.allclose(rows[a], rows[b])

    return next(d for d in pol.trace if len(d["jobf"]) >= 3 and distinct(d, 0, 1) and d["teacher"] != 0
                and distinct(d, 0, d["teacher"])), cfg["servers_per_group"]


def _scores(P, d, spr):
    P = {k: np.asarray(v, float) for k, v in P.items()}
    hs, hr, hc = encode(P, d["gpu_x"], d["gpu_m"], d["srv_x"], spr)
    hsel = np.array([hs[list(m)].mean(0) for m in d["members"]])
    return scores(P, d["jobf"], d["placef"], hsel, hr[d["racks"]], np.broadcast_to(hc, (len(hsel), H)))


def _step(P, grads, rate):
    return {k: np.asarray(P[k]) - rate * np.asarray(grads[k]) for k in P}


def test_actor_critic_step_favours_the_candidate_with_the_higher_return():
    pytest.importorskip("jax", reason="the learn extra (jax) is not installed")
    import jax.numpy as jnp

    from optsched.problems.interference_online.marl_train import _loss_builder, collate

    d, spr = _state()
    good, bad = 0, 1
    batch = collate([dict(d, chosen=good), dict(d, chosen=bad)], np.array([1.0, -1.0]))
    step, _ = _loss_builder(spr, 0.0, 0.5)
    P = {k: jnp.asarray(v, jnp.float32) for k, v in init_params(2).items()}
    _, grads = step(P, {k: jnp.asarray(v) for k, v in batch.items()})
    before = _scores(P, d, spr)
    after = _scores(_step(P, grads, 1e-3), d, spr)
    # a small step (1e-3 on weights of order 0.1-1): the change is first order in the step; its
    # sign, not its size, is what is checked
    assert (after[good] - after[bad]) > (before[good] - before[bad])


def test_imitation_steps_raise_the_teachers_probability():
    pytest.importorskip("jax", reason="the learn extra (jax) is not installed")
    import jax.numpy as jnp

    from optsched.problems.interference_online.marl_train import _loss_builder, collate

    d, spr = _state()
    teacher = d["teacher"]
    batch = {k: jnp.asarray(v) for k, v in collate([dict(d, chosen=teacher)], np.zeros(1)).items()}
    _, imitate = _loss_builder(spr, 0.0, 0.5)
    P = {k: jnp.asarray(v, jnp.float32) for k, v in init_params(2).items()}

    def prob(P):
        sc = _scores(P, d, spr)
        e = np.exp(sc - sc.max())
        return float(e[teacher] / e.sum())

    start = prob(P)
    for _ in range(5):
        _, grads = imitate(P, batch)
        P = {k: jnp.asarray(v, jnp.float32) for k, v in _step(P, grads, 1e-2).items()}
    # five plain gradient steps of 1e-2 on the cross-entropy of one state: the teacher's
    # probability must rise (a flipped sign would lower it)
    assert prob(P) > start


def test_placement_features_equal_hand_computed_values():
    # two 8-GPU servers in one rack; job 0 (type a, 4 GPUs, 100 s alone) arrives at 0, job 1
    # (type b, 4 GPUs, 50 s alone) at 1. beta[b][a] = 3 (b next to a runs 4x slower), beta[a][b] = 0.5.
    # At job 1's decision, job 0 has 99 s of isolated work left. On job 0's server job 1 would
    # suffer 3, cause 99 x 0.5 / 50 = 0.99 (relative to its own 50 s), li cost log(1 + 3 + 0.99),
    # share it with 1 co-runner and leave 0 GPUs free; on the empty server all of these are 0 and
    # 4 GPUs (0.5 of 8) stay free. A sign flip or an inverted feature changes these numbers.
    import math

    from optsched.problems.interference_online import OnlineInstance, OnlineJob
    from optsched.problems.interference_online.marl import FEATURE_NAMES

    jobs = (OnlineJob(id=0, arrival=0.0, type=0, gpus=4, iterations=100.0, step_time=1.0),
            OnlineJob(id=1, arrival=1.0, type=1, gpus=4, iterations=50.0, step_time=1.0))
    inst = OnlineInstance(gpus_per_server=(8, 8), servers_per_group=2, job_types=("a", "b"),
                          beta=((0.0, 0.5), (3.0, 0.0)), forbidden=((False, False), (False, False)),
                          spread_penalty=0.2, jobs=jobs)
    pol = MarlPolicy(inst, init_params(0), record=True)
    simulate(inst, pol)
    first, second = pol.trace[0], pol.trace[1]
    (home,) = first["members"][first["chosen"]]           # job 0's server
    names = FEATURE_NAMES["place"]
    by_server = {next(iter(m)): row for m, row in zip(second["members"], second["placef"])}
    shared, empty = by_server[home], by_server[1 - home]
    want_shared = {"suffer": 3.0, "log(1+cause/w)": math.log1p(0.99), "servers-1": 0.0, "racks-1": 0.0,
                   "leftover free": 0.0, "co-runners": 0.25, "li cost": math.log1p(3.0 + 0.99)}
    for name, value in want_shared.items():
        assert shared[names.index(name)] == pytest.approx(value, rel=1e-9, abs=1e-12), name
    for name in ("suffer", "log(1+cause/w)", "co-runners", "li cost"):
        assert empty[names.index(name)] == 0.0, name
    assert empty[names.index("leftover free")] == pytest.approx(0.5)
    # job features of job 1: log(1 + 50 s) rescaled as the policy does, demand 4 / 32
    assert second["jobf"][0][0] == pytest.approx((math.log1p(50.0) - 9.0) / 2.0)
    assert second["jobf"][0][1] == pytest.approx(4 / 32)
