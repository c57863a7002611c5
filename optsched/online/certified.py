"""A certified adversary for deterministic online pricing on one resource [ours, on a classical theorem].

Setting: one resource of capacity 1; request t has demand ``d_t`` and a value per unit
``v_t in [L, U]``; a deterministic online algorithm decides on request t knowing only requests
0..t. Nothing below assumes the algorithm posts prices: it is used only through
``run(values, demands) -> accepted`` (one run on a whole stream; by online-ness its decisions on a
prefix are the decisions of the whole run) and, for :func:`tracking_attack`, through
``probe(values, demands, accepted, demand) -> price``, the least value at which it would accept the
next request (a bisection over ``run`` when the algorithm does not say, :func:`bisection_probe`).

Attacks (all deterministic; no random search):

* :func:`staircase_attack` [ours, after the lower-bound family of Zhou, Chakrabarty & Lukose, WINE
  2008]: the values climb a geometric grid ``v_1 < ... < v_K`` from L to U; each value is offered as
  ``N`` copies of demand ``delta = 1 / N`` (enough to fill the resource); the algorithm is run once;
  the stream is stopped after the step ``j`` that maximizes ``OPT_j / W_j``, with ``W_j`` the
  algorithm's welfare on the first ``j`` steps and ``OPT_j = v_j`` (``N`` copies of ``v_j`` fill
  the capacity exactly).
* :func:`tracking_attack` [ours]: the stream follows the algorithm's acceptance threshold (each
  request's value is the least value it would accept, clipped to [L, U], demand ``delta``), so the
  algorithm earns only its own price curve; after every request the adversary may stop, or (when the
  algorithm is full or its price exceeds U) it sends ``N`` copies at U. This is the continuous
  version of the staircase: on threshold pricing it reaches ``1 + ln(U / L)`` up to the ``delta``
  discretization, above the grid LP.

**Certificate (theorem, [ours]; the continuous statement is Zhou, Chakrabarty & Lukose's lower
bound).** For every deterministic online algorithm and every ``K >= 2``, ``N >= 1``, the staircase
attack finds a prefix with ``OPT / ALG >= rho_K := 1 + (K - 1)(1 - q^{-1})``, ``q = (U / L)^{1 / (K
- 1)}`` (``ALG = 0`` counting as an infinite ratio), and ``rho_K`` is exactly the optimal value of
the minimax LP on the same grid (:func:`grid_lp_ratio`).

*Proof.* Let ``x_i`` be the capacity the algorithm sells during step i (``sum_i x_i <= 1``) and
``W_j = sum_{i <= j} v_i x_i``. Abel summation with ``1 / v_{K+1} := 0``:
``sum_i x_i = sum_i (W_i - W_{i-1}) / v_i = sum_{i=1}^{K} W_i (1 / v_i - 1 / v_{i+1})``, every
coefficient positive. If ``W_j > r v_j`` for every j, then ``1 >= sum_i x_i > r sum_i v_i (1 / v_i -
1 / v_{i+1}) = r (1 + (K - 1)(1 - 1 / q))``, so ``r < 1 / rho_K``. Hence some j has ``W_j <= v_j /
rho_K``, i.e. ``OPT_j / W_j >= rho_K`` (``OPT_j = v_j``: the ``N`` copies of ``v_j`` fill the
capacity, and no request is worth more per unit). The same identity shows that the allocation
``W_i = r v_i`` with ``r = 1 / rho_K`` is feasible for the LP (it uses capacity exactly 1), so
``rho_K`` is the LP's optimal ratio. As ``K -> infinity``, ``rho_K -> 1 + ln(U / L)``. ∎

So the staircase's found ratio is, for every algorithm, at least the LP value of its grid: the
gap ``found / rho_K - 1 >= 0`` is what the algorithm concedes beyond the best possible, and a ratio
below ``rho_K`` can only be a bug (``certified`` is checked on every result).

OPT of a stream of equal demands ``delta = 1 / N`` is ``delta`` times the sum of its ``N`` largest
values (an exchange argument; the problem modules cross-check it with the exact MILP).

Complexity: staircase O(K N) plus one run of the algorithm; tracking O(n) probes for a stream of
n <= ``max_requests`` requests (a bisection probe costs O(log(1 / tol)) runs).

Example
-------
>>> run = lambda values, demands: np.arange(len(values)) < 4     # greedy: the first 4 fill the resource
>>> r = staircase_attack(run, 1.0, 16.0, grid=9, copies=4)
>>> round(r.ratio, 6), r.stop_step, r.certified
(16.0, 9, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["exact_recheck", "grid_values", "grid_lp_ratio", "equal_demand_opt", "CertifiedResult", "staircase_attack",
           "tracking_attack", "bisection_probe", "certified_attack"]

Run = Callable[[np.ndarray, np.ndarray], np.ndarray]
Probe = Callable[[np.ndarray, np.ndarray, np.ndarray, float], float]


def grid_values(lower: float, upper: float, grid: int) -> np.ndarray:
    """``grid`` values geometric from L to U (both exact), computed with Python's scalar pow."""
    k = int(grid)
    if k < 2:
        raise ValueError("grid must be >= 2")
    span = upper / lower
    vals = [lower * span ** (i / (k - 1)) for i in range(k)]
    vals[0], vals[-1] = float(lower), float(upper)
    return np.asarray(vals, float)


def grid_lp_ratio(lower: float, upper: float, grid: int) -> float:
    """``rho_K = 1 + (K - 1)(1 - (L / U)^{1 / (K - 1)})``: the minimax LP's optimal ratio on the grid
    (closed form; see the module docstring).

    >>> round(grid_lp_ratio(1.0, 4.0, 2), 12)   # K = 2: 1 / r* = (2U - L) / U
    1.75
    """
    k = int(grid)
    return 1.0 + (k - 1) * (1.0 - (lower / upper) ** (1.0 / (k - 1)))


def equal_demand_opt(values: np.ndarray, copies: int) -> float:
    """OPT of a stream whose requests all have demand ``1 / copies``: the best ``copies`` values."""
    v = np.sort(np.asarray(values, float))[::-1][:copies]
    return math.fsum(v.tolist()) / copies


@dataclass
class CertifiedResult:
    """The worst prefix found; ``ratio = inf`` when the algorithm earns 0 on it while OPT > 0."""

    attack: str
    lower: float
    upper: float
    copies: int
    ratio: float
    opt: float
    alg: float
    values: np.ndarray
    demands: np.ndarray
    #: the LP's optimal ratio on the staircase grid (None for tracking)
    lp_ratio: float | None = None
    grid: int | None = None
    stop_step: int | None = None
    #: per step (staircase) or per request (tracking): OPT / ALG of the prefix
    profile: list[float] = field(default_factory=list)

    @property
    def zero_alg(self) -> bool:
        return self.alg <= 0 < self.opt

    @property
    def certified(self) -> bool | None:
        """``ratio >= rho_K`` (up to 1e-9 relative: float sums of at most K N terms); None for tracking."""
        if self.lp_ratio is None:
            return None
        return self.ratio >= self.lp_ratio * (1 - 1e-9)

    def to_json(self) -> dict:
        return {"attack": self.attack, "lower": self.lower, "upper": self.upper, "copies": self.copies,
                "ratio": self.ratio if math.isfinite(self.ratio) else "inf", "opt": self.opt, "alg": self.alg,
                "lp_ratio": self.lp_ratio, "grid": self.grid, "stop_step": self.stop_step,
                "requests": int(len(self.values)), "zero_alg": self.zero_alg, "certified": self.certified}


def exact_recheck(inst, method: str, res: "CertifiedResult", options=None, milp_max: int = 300) -> dict:
    """Re-evaluate an attack's stream ``inst`` through the problem's own solve: ALG by ``method``,
    OPT by the exact ``milp`` (up to ``milp_max`` requests) or, beyond, the closed form of an
    equal-demand stream (:func:`equal_demand_opt`)."""
    from optsched.core.solving import solve

    alg = solve(inst, method, options=options or {}).objective
    if inst.num_requests <= milp_max:
        r = solve(inst, "milp")
        if r.status != "optimal":
            raise RuntimeError(f"certified adversary: the hindsight milp returned {r.status} ({r.reason})")
        opt, how = r.objective, "milp"
    else:
        opt, how = equal_demand_opt(res.values, res.copies), "closed form (equal demands)"
    ratio = math.inf if (alg <= 0 < opt) else (1.0 if opt == alg else opt / alg)
    return {"opt": opt, "alg": alg, "ratio": ratio, "opt_by": how, "requests": inst.num_requests}


def _ratio(opt: float, alg: float) -> float:
    if alg <= 0:
        return math.inf if opt > 0 else 1.0
    return opt / alg


def staircase_attack(run: Run, lower: float, upper: float, *, grid: int = 200, copies: int = 16,
                     values: np.ndarray | None = None) -> CertifiedResult:
    """The certified staircase: values up the K-point grid, ``copies`` requests of demand
    ``1 / copies`` per value, stopped after the worst step (see the module docstring).

    ``copies`` should be a power of 2, so that ``copies`` demands sum to 1 exactly in floats.
    ``values`` (increasing, in [L, U]) replaces the geometric grid; the result then carries no LP
    value (the certificate is for the geometric grid).
    """
    geometric = values is None
    v = grid_values(lower, upper, grid) if geometric else np.asarray(values, float)
    n = int(copies)
    delta = 1.0 / n
    values = np.repeat(v, n)
    demands = np.full(values.shape[0], delta)
    accepted = np.asarray(run(values, demands), bool)
    if accepted.shape != values.shape:
        raise ValueError(f"run returned {accepted.shape} decisions for {values.shape[0]} requests")
    earned = np.where(accepted, values * delta, 0.0).reshape(len(v), n)
    welfare = np.cumsum([math.fsum(row.tolist()) for row in earned])
    ratios = [_ratio(float(v[j]), float(welfare[j])) for j in range(len(v))]
    j = int(np.argmax(ratios))
    stop = (j + 1) * n
    return CertifiedResult(attack="staircase", lower=float(lower), upper=float(upper), copies=n, ratio=ratios[j],
                           opt=float(v[j]), alg=float(welfare[j]), values=values[:stop], demands=demands[:stop],
                           lp_ratio=grid_lp_ratio(lower, upper, grid) if geometric else None,
                           grid=int(grid) if geometric else len(v), stop_step=j + 1,
                           profile=ratios)


def bisection_probe(run: Run, lower: float, upper: float, *, steps: int = 24) -> Probe:
    """A probe from ``run`` alone: the least value (log-scale bisection, ``steps`` halvings) at which
    the algorithm accepts one more request after the given prefix; ``inf`` if it rejects U, and also
    ``inf`` if the request cannot fit (the algorithm is full)."""
    log_span = math.log(upper / lower)

    def probe(values, demands, accepted, demand):
        def accepts(value):
            out = run(np.append(values, value), np.append(demands, demand))
            return bool(out[-1])

        if not accepts(upper):
            return math.inf
        if accepts(lower):
            return float(lower)
        lo, hi = 0.0, 1.0
        for _ in range(steps):
            mid = (lo + hi) / 2
            if accepts(lower * math.exp(mid * log_span)):
                hi = mid
            else:
                lo = mid
        return min(float(upper), lower * math.exp(hi * log_span))

    return probe


def tracking_attack(probe: Probe, run: Run, lower: float, upper: float, *, copies: int = 16,
                    max_requests: int | None = None) -> CertifiedResult:
    """Follow the algorithm's acceptance threshold (see the module docstring).

    Every request has demand ``1 / copies`` and value ``min(U, max(L, probe(...)))``; the stream ends
    when the threshold exceeds U or the algorithm is full (then ``copies`` requests at U follow, which
    it cannot or will not take), or after ``max_requests`` (default ``4 copies``). The run of the
    whole stream (``run``) is what is scored; the probe only chooses the values.
    """
    n = int(copies)
    delta = 1.0 / n
    limit = int(max_requests or 4 * n)
    values: list[float] = []
    accepted: list[bool] = []
    z = 0.0
    finale = False
    while len(values) < limit:
        p = probe(np.asarray(values, float), np.full(len(values), delta), np.asarray(accepted, bool), delta)
        if not p <= upper or z + delta > 1.0:
            finale = True
            break
        values.append(min(float(upper), max(float(lower), float(p))))
        accepted.append(True)  # assumed; the final run below decides
        z += delta
    if finale or len(values) >= limit:
        values.extend([float(upper)] * n)
    vals = np.asarray(values, float)
    dem = np.full(vals.shape[0], delta)
    acc = np.asarray(run(vals, dem), bool)
    earned = np.cumsum(np.where(acc, vals * delta, 0.0))
    best, best_k, profile = -1.0, 0, []
    top: list[float] = []
    for k in range(vals.shape[0]):
        top.append(float(vals[k]))
        if len(top) > n:
            top.sort(reverse=True)
            del top[n:]
        opt = math.fsum(top) / n
        r = _ratio(opt, float(earned[k]))
        profile.append(r)
        if r > best:
            best, best_k = r, k
    stop = best_k + 1
    return CertifiedResult(attack="tracking", lower=float(lower), upper=float(upper), copies=n, ratio=best,
                           opt=equal_demand_opt(vals[:stop], n), alg=float(earned[best_k]), values=vals[:stop],
                           demands=dem[:stop], profile=profile)


def certified_attack(run: Run, lower: float, upper: float, *, grids=(200,), copies=(16,), probe: Probe | None = None,
                     tracking: bool = True) -> dict:
    """Every staircase (each grid x copies) and, with ``tracking``, the tracking attack per ``copies``;
    returns ``{"worst": CertifiedResult, "results": [...], "lp_ratio": max rho_K, "certified": bool}``.

    ``certified`` is True when every staircase reached its grid's LP ratio (it always should: the
    theorem); ``worst`` is the largest ratio over all attacks.
    """
    results = [staircase_attack(run, lower, upper, grid=k, copies=n) for k in grids for n in copies]
    if tracking:
        pr = probe or bisection_probe(run, lower, upper)
        results += [tracking_attack(pr, run, lower, upper, copies=n) for n in copies]
    worst = max(results, key=lambda r: r.ratio)
    return {"worst": worst, "results": results, "lp_ratio": max(grid_lp_ratio(lower, upper, k) for k in grids),
            "certified": all(r.certified for r in results if r.certified is not None)}
