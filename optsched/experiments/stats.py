"""Aggregates over seeds for the repro tables: the mean with a 95% confidence interval.

Every table that aggregates seeds (or instances) reports the number of values and the mean with
a two-sided 95% Student-t interval, ``mean +- t_{0.975, n-1} * s / sqrt(n)`` with ``s`` the sample
standard deviation. The interval assumes independent draws; with few seeds it is wide, which is the
honest answer.
"""

from __future__ import annotations

import math
import numbers
from typing import Iterable, NamedTuple

__all__ = ["MeanCI", "mean_ci95", "ci_cell", "ci_summary"]


class MeanCI(NamedTuple):
    """A mean and the half-width of its 95% confidence interval over ``n`` values."""

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def format(self, digits: int = 4) -> str:
        """``'0.9512 ± 0.0123 (n=5)'``; the half-width is ``nan`` (shown as such) when n = 1."""
        return f"{self.mean:.{digits}g} ± {self.half_width:.{digits}g} (n={self.n})"


def mean_ci95(values: Iterable[float]) -> MeanCI:
    """Mean of ``values`` with the half-width of its two-sided 95% t-interval.

    Parameters
    ----------
    values : iterable of float
        Independent observations (one per seed or instance). ``None`` and NaN are errors: drop
        unusable cells explicitly (and say so in the table) before aggregating.

    Returns
    -------
    MeanCI
        ``(mean, half_width, n)``; ``half_width`` is ``t_{0.975, n-1} * s / sqrt(n)`` with the
        sample standard deviation ``s`` (``ddof = 1``), and ``nan`` when ``n = 1`` (no interval
        from one value).

    Raises
    ------
    ValueError
        If ``values`` is empty or holds a value that is not a finite number.

    Examples
    --------
    >>> ci = mean_ci95([1.0, 2.0, 3.0])
    >>> ci.mean, round(ci.half_width, 4), ci.n        # t_{0.975,2} = 4.3027, s = 1
    (2.0, 2.4841, 3)
    >>> mean_ci95([5.0, 5.0]).half_width
    0.0
    """
    from scipy.stats import t

    data = list(values)
    if not data:
        raise ValueError("mean_ci95: no values")
    for v in data:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise ValueError(f"mean_ci95: every value must be a finite number, got {v!r}")
    data = [float(v) for v in data]
    n = len(data)
    mean = math.fsum(data) / n
    if n == 1:
        return MeanCI(mean, math.nan, 1)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in data) / (n - 1))
    return MeanCI(mean, float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n), n)


def table_number(x, nd: int = 4):
    """A value for a table cell: ``-`` for none, ``inf`` for an infinite ratio, else rounded to
    ``nd`` decimals."""
    if x is None or x == "-":
        return "-"
    if x == "inf" or (isinstance(x, float) and math.isinf(x)):
        return "inf"
    return round(x, nd)


def ci_cell(values, digits: int = 4) -> str:
    """A table cell for ``values``: ``'mean ± half-width (n=...)'`` (:meth:`MeanCI.format`), or
    ``-`` when there are none."""
    return mean_ci95(values).format(digits) if values else "-"


def ci_summary(values) -> dict:
    """``n``, ``mean``, ``ci95_half_width`` and ``max`` of the values that are not None (all
    None when none is left), for a table's columns."""
    values = [v for v in values if v is not None]
    if not values:
        return {"n": 0, "mean": None, "ci95_half_width": None, "max": None}
    ci = mean_ci95(values)
    return {"n": ci.n, "mean": ci.mean, "ci95_half_width": ci.half_width, "max": max(values)}
