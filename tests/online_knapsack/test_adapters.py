"""The adversary adapter of online-knapsack, and the guarantee watch on it."""

import pytest

from optsched.online.adversary import search
from optsched.online.guarantees import GuaranteeWatch, attack
from optsched.problems.online_knapsack.adversary import KnapsackAdversary


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


def test_learned_policy_is_attackable():
    found = search(KnapsackAdversary("learned", lower=1.0, upper=16.0, eps=0.1, requests=10, family="staircase"),
                   strategy="random", budget=10, seed=0)
    assert found.evaluations == 10 and found.worst_ratio >= 1.0
