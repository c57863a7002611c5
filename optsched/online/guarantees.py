"""Registered guarantees checked on every input an adversary search evaluates [ours].

:class:`GuaranteeWatch` wraps an :class:`~optsched.online.adversary.AdversaryAdapter`: every
``evaluate`` also checks the attacked method's registered guarantee (when it has one, its form is
multiplicative or additive, its reference is the adapter's reference, and ``applies(instance)``
holds) and records each violation with the instance. :func:`attack` runs several strategies
through one watch and reports the worst input and the guarantee check.

A probabilistic guarantee is not checked here (one run per input says nothing about a
probability); its check is the conformance suite's binomial test.

Example
-------
>>> from optsched.problems.online_knapsack.adversary import KnapsackAdversary
>>> a = KnapsackAdversary("threshold", lower=1.0, upper=4.0, eps=0.25, requests=6)
>>> report = attack(a, strategies=("random",), budget=20, seed=0)
>>> report["checked"], report["violations"]
(20, [])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .adversary import AdversaryResult, search

__all__ = ["GuaranteeWatch", "attack", "registered_guarantee"]


def registered_guarantee(problem: str, method: str):
    """The method's registered guarantee (None when it has none or is not a registered method)."""
    from optsched.core.registry import get_problem

    meth = get_problem(problem).methods.get(method)
    return None if meth is None else meth.guarantee


class GuaranteeWatch:
    """An adapter that checks the method's guarantee on every evaluated input."""

    def __init__(self, adapter, problem: str):
        self.adapter, self.problem = adapter, problem
        self.method, self.sense, self.reference = adapter.method, adapter.sense, adapter.reference
        self.guarantee = registered_guarantee(problem, adapter.method)
        self.checked = 0
        self.not_applicable = 0
        self.violations: list[dict] = []
        self.why_unchecked = self._why_unchecked()

    def _why_unchecked(self) -> str | None:
        g = self.guarantee
        if g is None:
            return "no registered guarantee"
        if g.form == "probabilistic":
            return "probabilistic guarantee (checked by the conformance binomial test)"
        if g.reference != self.adapter.reference:
            return f"the guarantee's reference is {g.reference}, the adapter's is {self.adapter.reference}"
        return None

    @property
    def bounds(self):
        return self.adapter.bounds

    def decode(self, x: np.ndarray) -> Any:
        return self.adapter.decode(x)

    def encode(self, instance: Any) -> np.ndarray:
        return self.adapter.encode(instance)

    def evaluate(self, instance: Any) -> tuple[float, float]:
        ref, alg = self.adapter.evaluate(instance)
        if self.why_unchecked is None:
            ok, _ = self.guarantee.applies(instance)
            if not ok:
                self.not_applicable += 1
            else:
                self.checked += 1
                if not self.guarantee.holds(instance, alg, ref):
                    self.violations.append({"reference": ref, "alg": alg,
                                            "threshold": self.guarantee.threshold(instance, ref),
                                            "instance": instance.to_json()})
        return ref, alg


def attack(adapter, *, strategies: Sequence[str] = ("random", "local", "de"), budget: int = 200, seed: int = 0,
           problem: str | None = None, starts: Sequence[Any] = ()) -> dict:
    """Run each strategy (``budget`` evaluations each, seeded) and check the guarantee throughout.

    Returns a JSON-able summary: per-strategy worst ratios, the overall worst input, the
    guarantee's statement and how many inputs it was checked on, and every violation found.
    """
    problem = problem or _problem_of(adapter)
    watch = GuaranteeWatch(adapter, problem)
    results: list[AdversaryResult] = [search(watch, strategy=s, budget=budget, seed=seed, starts=starts)
                                      for s in strategies]
    worst = max(results, key=lambda r: r.worst_ratio)
    g = watch.guarantee
    return {"problem": problem, "method": adapter.method, "reference": adapter.reference, "seed": seed,
            "budget": budget, "by_strategy": {r.strategy: r.worst_ratio for r in results},
            "worst_ratio": worst.worst_ratio, "worst_strategy": worst.strategy,
            "worst_reference": worst.worst_reference, "worst_alg": worst.worst_alg,
            "worst_instance": None if worst.worst_instance is None else worst.worst_instance.to_json(),
            "zero_alg": sum(r.zero_alg for r in results),
            "guarantee": None if g is None else g.statement,
            "guarantee_value_at_worst": _value_at(g, worst.worst_instance),
            "unchecked_because": watch.why_unchecked, "checked": watch.checked,
            "not_applicable": watch.not_applicable, "violations": watch.violations,
            "histories": {r.strategy: r.history for r in results}}


def _value_at(g, instance) -> float | None:
    if g is None or g.form == "probabilistic" or instance is None or not g.applies(instance)[0]:
        return None
    value = g.value(instance)
    return None if value is None else float(value)


def _problem_of(adapter) -> str:
    inst = adapter.decode(np.mean(np.asarray(adapter.bounds, float), axis=1))
    return inst.problem


def attack_summary(report: dict) -> dict:
    """The fields of :func:`attack`'s report that a table row keeps: the worst ratio found, whether
    the method earned nothing there, the guarantee check and its outcome, and the reference."""
    return dict(worst_ratio=report["worst_ratio"], zero_alg=report["zero_alg"], checked=report["checked"],
                violations=len(report["violations"]), guarantee=report["guarantee"],
                unchecked_because=report["unchecked_because"], guarantee_value=report["guarantee_value_at_worst"],
                reference=report["reference"], not_applicable=report["not_applicable"])
