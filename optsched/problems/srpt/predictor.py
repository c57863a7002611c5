"""Iteration-count prediction for recurring jobs: a scikit-learn random forest [paper: "most jobs
recur, so a random forest predicts each job's number of iterations"; features and settings ours].

Features per job: model, batch size, GPU count, parallel plan and recurrence id (categorical
values as ordinal codes over the sorted vocabulary; trees split on them). The forest regresses
``log(iterations)`` (iteration counts span orders of magnitude; the log keeps one long job from
dominating the fit) with 100 trees, ``min_samples_leaf = 2``, one thread, ``random_state`` derived
from the seed. Errors are measured on held-out jobs that were not in the training history: MAE (in
iterations) and MAPE (mean of ``|pred - true| / true``).

>>> hist = [{"model": "A", "batch_size": 8, "gpus": 1, "plan": "data", "recurrence": "a", "iterations": 100}] * 30
>>> hist += [{"model": "B", "batch_size": 8, "gpus": 2, "plan": "data", "recurrence": "b", "iterations": 1000}] * 30
>>> forest = IterationPredictor(seed=0).fit(hist)
>>> [round(p) for p in forest.predict([hist[0], hist[-1]])]
[100, 1000]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from optsched.core import portable
from optsched.core.rng import derive_seed

__all__ = ["IterationPredictor", "prediction_errors", "log_normal_iterations", "FEATURES"]

FEATURES = ("model", "batch_size", "gpus", "plan", "recurrence")
_CATEGORICAL = ("model", "plan", "recurrence")


class IterationPredictor:
    """Random forest on recurring jobs' history (``fit(records)``, ``predict(records)``)."""

    def __init__(self, seed: int = 0, trees: int = 100):
        self.seed, self.trees = seed, trees
        self._vocab: dict[str, dict[str, int]] = {}
        self._forest = None

    def _matrix(self, records: Sequence[dict]) -> np.ndarray:
        rows = []
        for r in records:
            row = []
            for f in FEATURES:
                if f in _CATEGORICAL:
                    row.append(self._vocab[f].get(str(r[f]), -1))  # unseen category: its own code
                else:
                    row.append(float(r[f]))
            rows.append(row)
        return np.asarray(rows, float)

    def fit(self, records: Sequence[dict]) -> "IterationPredictor":
        from sklearn.ensemble import RandomForestRegressor

        if not records:
            raise ValueError("the predictor needs at least one historical run")
        self._vocab = {f: {v: k for k, v in enumerate(sorted({str(r[f]) for r in records}))} for f in _CATEGORICAL}
        target = portable.log(np.asarray([float(r["iterations"]) for r in records]))
        state = derive_seed(self.seed, "iteration-predictor") % 2 ** 32  # scikit-learn takes 32-bit seeds
        self._forest = RandomForestRegressor(n_estimators=self.trees, min_samples_leaf=2, random_state=state,
                                             n_jobs=1).fit(self._matrix(records), target)
        return self

    def predict(self, records: Sequence[dict]) -> np.ndarray:
        if self._forest is None:
            raise RuntimeError("fit the predictor first")
        return portable.exp(self._forest.predict(self._matrix(records)))


def prediction_errors(true: Sequence[float], predicted: Sequence[float]) -> dict:
    """``{"mae": ..., "mape": ..., "n": ...}`` of predictions against true iteration counts.

    >>> prediction_errors([100, 200], [110, 180])
    {'mae': 15.0, 'mape': 0.1, 'n': 2}
    """
    t, p = np.asarray(true, float), np.asarray(predicted, float)
    return {"mae": float(np.mean(np.abs(p - t))), "mape": float(np.mean(np.abs(p - t) / t)), "n": int(t.size)}


def log_normal_iterations(rng: np.random.Generator, base: float, noise: float, size: int) -> np.ndarray:
    """``max(1, round(base * exp(noise * N(0, 1))))``: a recurring job's run lengths [ours]."""
    return np.maximum(1, np.round(base * portable.exp(noise * portable.standard_normal(rng, size)))).astype(int)

