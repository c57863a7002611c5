"""Adversary adapters of every online method, and the guarantee watch."""

import numpy as np
import pytest

from optsched.online.adversary import search
from optsched.online.guarantees import GuaranteeWatch, attack
from optsched.problems.online_knapsack.adversary import KnapsackAdversary
from optsched.problems.online_packing.adversary import PackingAdversary
from optsched.problems.pipeline_adaptive.adversary import AdaGrouperAdversary
from optsched.problems.ps_locality.adversary import PsLocalityAdversary
from optsched.problems.rar_online.adversary import THEOREM_G_TEMPLATE, RarOnlineAdversary


class _Sabotaged(KnapsackAdversary):
    """Reports ALG 10x smaller than it is: the watch must flag the threshold guarantee."""

    def evaluate(self, instance):
        ref, alg = super().evaluate(instance)
        return ref, alg / 10


def test_watch_flags_a_violated_guarantee_and_passes_a_true_one():
    kw = dict(lower=1.0, upper=4.0, eps=0.05, requests=30, family="increasing")
    honest = attack(KnapsackAdversary("threshold", **kw), strategies=("random",), budget=15, seed=0)
    assert honest["checked"] == 15 and honest["violations"] == []
    bad = attack(_Sabotaged("threshold", **kw), strategies=("random",), budget=15, seed=0)
    assert bad["checked"] == 15 and len(bad["violations"]) > 0


def test_watch_explains_unchecked_methods():
    assert GuaranteeWatch(KnapsackAdversary("greedy", lower=1, upper=4, eps=0.5, requests=3),
                          "online-knapsack").why_unchecked == "no registered guarantee"
    assert GuaranteeWatch(AdaGrouperAdversary(periods=2, iterations=5), "pipeline-schedule").guarantee is None


@pytest.mark.parametrize("adapter", [
    PackingAdversary("threshold", resources=3, requests=6),
    PsLocalityAdversary("online-rr"),
    RarOnlineAdversary("gadget"),
])
def test_decoded_inputs_are_valid_and_encode_round_trips(adapter):
    rng = np.random.default_rng(0)
    for _ in range(3):
        inst = adapter.decode(rng.random(len(adapter.bounds)))
        again = adapter.decode(adapter.encode(inst))
        # the same input up to float rounding of the encoding (logs and powers: ~1e-15 relative)
        assert np.allclose(adapter.encode(again), adapter.encode(inst), rtol=0, atol=1e-9)
        assert type(again) is type(inst)


def test_packing_adapter_finds_a_bad_input_for_greedy():
    # greedy fills with cheap requests: even a short search finds OPT / ALG > 2 with U/L = 16
    # (30 requests of up to 0.1: enough supply to exceed the capacities)
    found = search(PackingAdversary("greedy", resources=2, requests=30, family="increasing"),
                   strategy="local", budget=60, seed=0)
    assert found.worst_ratio > 2.0


def test_ada_grouper_constant_trace_ratio_one():
    # constant full bandwidth: the adaptive policy picks the best fixed group size and keeps it
    a = AdaGrouperAdversary(periods=3, iterations=20)
    ref, alg = a.evaluate(a.decode(np.ones(len(a.bounds))))
    assert alg == pytest.approx(ref, rel=1e-12)


def test_gadget_exact_theorem_checked_on_the_theorem_template():
    report = attack(RarOnlineAdversary("gadget-exact", preset=THEOREM_G_TEMPLATE), strategies=("random",),
                    budget=3, seed=0)
    assert report["unchecked_because"] is None
    assert report["checked"] == 3 and report["violations"] == []


def test_learned_policy_is_attackable():
    found = search(KnapsackAdversary("learned", lower=1.0, upper=16.0, eps=0.1, requests=10, family="staircase"),
                   strategy="random", budget=10, seed=0)
    assert found.evaluations == 10 and found.worst_ratio >= 1.0
