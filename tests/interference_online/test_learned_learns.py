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
* imitation: a few steps of cross-entropy towards the teacher's candidate raise its probability.
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
