"""Adversarial worst-case search for online methods [ours]; documented in this project's
``docs/online_machinery.md#adversary``.

Problem
-------
Given an online method and its input class (e.g. online knapsack streams with demands <= eps and
values in [L, U]), find an input that maximizes the method's empirical ratio against the
offline reference: ``OPT / ALG`` for a maximization problem, ``ALG / REF`` for a minimization
problem (REF is OPT or a proven lower bound, as the adapter says). The search is method-agnostic:
a problem supplies an :class:`AdversaryAdapter` that maps a real vector in a box onto a valid
instance of the input class (``decode``), and evaluates ``(reference, alg)`` on an instance.

Inputs on which ALG = 0 while the reference is positive (a maximization method that serves
nothing) have no finite ratio: they are counted apart (``zero_alg``, with one example kept) and
score 0 in the search, so they never stand for a "ratio multiple". (For minimization the
reference must be positive; a zero reference raises ``ValueError``.)

Strategies (all seeded, all deterministic for a seed):

* ``random``: ``budget`` uniform points of the box;
* ``local``: (1+1) evolution strategy from the best of ``budget // 10`` random points (or the
  given ``starts``): Gaussian steps, a step accepted when it does not lower the ratio, step size
  adapted by the 1/5 success rule;
* ``de``: :func:`scipy.optimize.differential_evolution` (``best1bin``, Latin hypercube start,
  no polishing), stopped after ``budget`` evaluations.

Guarantee: none -- a search returns a lower bound on the method's worst-case ratio *within the
adapter's encoding* (which may be a sub-family of the input class), never an upper bound.

Complexity: ``budget`` adapter evaluations plus O(budget * dimension) arithmetic.

Example
-------
>>> import optsched
>>> from optsched.problems.online_knapsack.adversary import KnapsackAdversary
>>> adapter = KnapsackAdversary("greedy", lower=1.0, upper=4.0, eps=0.5, requests=4)
>>> found = search(adapter, strategy="random", budget=30, seed=1)
>>> found.evaluations, found.worst_ratio >= 1.0
(30, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Sequence

import numpy as np

from optsched.core.rng import make_rng

__all__ = ["AdversaryAdapter", "AdversaryResult", "search", "STRATEGIES"]

STRATEGIES = ("random", "local", "de")


class AdversaryAdapter(Protocol):
    """How a problem exposes one online method's input class to the search."""

    #: the method under attack, e.g. ``"threshold"``
    method: str
    #: ``"max"``: ratio = REF / ALG; ``"min"``: ratio = ALG / REF
    sense: Literal["min", "max"]
    #: what REF is: ``"OPT"`` or the name of a proven bound (e.g. ``"lower bound"``)
    reference: str

    @property
    def bounds(self) -> Sequence[tuple[float, float]]:
        """The box of the encoding: one (low, high) pair per coordinate."""

    def decode(self, x: np.ndarray) -> Any:
        """A valid instance of the method's input class for a point of the box."""

    def encode(self, instance: Any) -> np.ndarray:
        """A point of the box that decodes to ``instance`` (or the nearest encodable one)."""

    def evaluate(self, instance: Any) -> tuple[float, float]:
        """``(REF, ALG)`` on ``instance``."""


@dataclass
class AdversaryResult:
    """The worst input found and its ratio; ALG = 0 inputs apart."""

    method: str
    strategy: str
    seed: int
    evaluations: int
    reference: str
    worst_ratio: float
    worst_instance: Any | None
    worst_reference: float | None
    worst_alg: float | None
    zero_alg: int = 0
    zero_alg_example: Any | None = None
    #: best ratio after each evaluation (for convergence plots)
    history: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        def inst(i):
            return None if i is None else i.to_json()
        return {"method": self.method, "strategy": self.strategy, "seed": self.seed,
                "evaluations": self.evaluations, "reference": self.reference, "worst_ratio": self.worst_ratio,
                "worst_reference": self.worst_reference, "worst_alg": self.worst_alg,
                "worst_instance": inst(self.worst_instance), "zero_alg": self.zero_alg,
                "zero_alg_example": inst(self.zero_alg_example)}


class _Tracker:
    """Evaluates points, keeps the worst input and the ALG = 0 inputs, counts the budget."""

    def __init__(self, adapter: AdversaryAdapter, budget: int):
        self.adapter, self.budget = adapter, budget
        self.count = 0
        self.best = (-math.inf, None, None, None)
        self.zero_alg, self.zero_example = 0, None
        self.history: list[float] = []

    def score(self, x: np.ndarray) -> float:
        instance = self.adapter.decode(np.asarray(x, float))
        ref, alg = self.adapter.evaluate(instance)
        self.count += 1
        if self.adapter.sense == "max":
            if alg <= 0 and ref > 0:
                ratio = None
            else:
                ratio = 1.0 if ref == alg else ref / alg
        else:
            if ref <= 0:
                raise ValueError(f"adversary: reference {ref!r} <= 0 for a minimization method: ALG / REF undefined")
            ratio = alg / ref
        if ratio is None:
            self.zero_alg += 1
            if self.zero_example is None:
                self.zero_example = instance
            value = 0.0
        else:
            value = ratio
            if ratio > self.best[0]:
                self.best = (ratio, instance, ref, alg)
        self.history.append(self.best[0])
        return value

    @property
    def exhausted(self) -> bool:
        return self.count >= self.budget


def search(adapter: AdversaryAdapter, *, strategy: str = "de", budget: int = 500, seed: int = 0,
           starts: Sequence[Any] = ()) -> AdversaryResult:
    """Search the adapter's box for the input with the largest ratio.

    Parameters
    ----------
    adapter : AdversaryAdapter
        The method under attack and its input class.
    strategy : {"random", "local", "de"}
    budget : int
        Number of evaluations (each one runs the method and the reference once).
    seed : int
        Seeds every random choice (``optsched.core.rng.make_rng(seed, "adversary", ...)``).
    starts : sequence of instances
        Inputs to evaluate first (they count in the budget); ``local`` starts from the best of them.

    Returns
    -------
    AdversaryResult
        ``worst_ratio`` is ``-inf`` only if every evaluated input had ALG = 0.
    """
    if strategy not in STRATEGIES:
        from optsched.core.errors import UnknownNameError

        raise UnknownNameError("adversary strategy", strategy, STRATEGIES)
    if budget < 1:
        from optsched.core.errors import InvalidOptionError

        raise InvalidOptionError("adversary", "budget", "must be >= 1", budget)
    box = np.asarray(adapter.bounds, float)
    low, high = box[:, 0], box[:, 1]
    rng = make_rng(seed, "adversary", adapter.method, strategy)
    tracker = _Tracker(adapter, budget)
    start_points = [np.clip(adapter.encode(s), low, high) for s in starts][:budget]
    start_scores = [tracker.score(p) for p in start_points]
    if strategy == "random":
        while not tracker.exhausted:
            tracker.score(rng.uniform(low, high))
    elif strategy == "local":
        _local(tracker, rng, low, high, start_points, start_scores)
    else:
        _differential_evolution(tracker, rng, box, start_points)
    ratio, instance, ref, alg = tracker.best
    return AdversaryResult(method=adapter.method, strategy=strategy, seed=seed, evaluations=tracker.count,
                           reference=adapter.reference, worst_ratio=ratio, worst_instance=instance,
                           worst_reference=ref, worst_alg=alg, zero_alg=tracker.zero_alg,
                           zero_alg_example=tracker.zero_example, history=tracker.history)


def _local(tracker: _Tracker, rng: np.random.Generator, low, high, points, scores) -> None:
    points, scores = list(points), list(scores)
    for _ in range(max(1, tracker.budget // 10) - len(points)):
        if tracker.exhausted:
            return
        points.append(rng.uniform(low, high))
        scores.append(tracker.score(points[-1]))
    if not points:
        return
    i = int(np.argmax(scores))
    x, fx = points[i], scores[i]
    sigma = 0.2
    while not tracker.exhausted:
        y = np.clip(x + sigma * (high - low) * rng.standard_normal(x.shape[0]), low, high)
        fy = tracker.score(y)
        if fy >= fx:
            x, fx = y, fy
            sigma = min(0.5, sigma * 1.5)
        else:
            sigma = max(1e-3, sigma * 1.5 ** -0.25)  # 1/5 success rule


class _Budget(Exception):
    pass


def _differential_evolution(tracker: _Tracker, rng: np.random.Generator, box: np.ndarray, starts) -> None:
    from scipy.optimize import differential_evolution

    dim = box.shape[0]
    popsize = max(5, min(20, tracker.budget // 10))  # absolute population size
    init = rng.uniform(box[:, 0], box[:, 1], size=(popsize, dim))
    for k, p in enumerate(starts[:popsize]):
        init[k] = p

    def objective(x):
        if tracker.exhausted:
            raise _Budget
        return -tracker.score(x)

    try:
        differential_evolution(objective, bounds=[tuple(b) for b in box], init=init, maxiter=10 ** 6,
                               tol=0, atol=0, polish=False, seed=int(rng.integers(2 ** 31)),
                               updating="immediate", workers=1)
    except _Budget:
        pass
