"""Aggregates over seeds for the repro tables: :mod:`optsched.experiments.stats`, re-exported here."""

from optsched.experiments.stats import MeanCI, mean_ci95

__all__ = ["MeanCI", "mean_ci95"]
