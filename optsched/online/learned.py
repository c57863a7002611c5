"""Learned posted-price policies trained against adversaries [reconstruction; robust variant ours].

After the abstract of B. Du, Z. Huang, C. Wu, "Adversarial Deep Learning for Online Resource
Allocation" (ACM TOMPECS 2022, arXiv 2111.10285): an algorithm network and an adversary network
play a zero-sum game whose payoff is the algorithm's welfare relative to the offline optimum; the
algorithm is trained with a *per-round update* that evaluates every action of a round instead of a
sampled one. No code is public; everything below is optsched's reconstruction (``docs/online_machinery.md``).

Setting (shared by the online knapsack, m = 1, and online packing, m >= 1): m resources of
capacity 1; request t has demands ``d_t in [0, eps]^m`` and a value density ``v_t in [L, U]``
(welfare ``v_t * sum_i d_ti`` if served). The policy posts one price per resource before seeing
the request; the request is served iff ``v_t sum_i d_ti >= sum_i p_i d_ti`` and it fits.

Algorithm network (policy): a shared MLP maps the state of one resource, the features
``(z_i, min(t / horizon, 1), mean_k z_k)`` (the round feature is 0 when ``round_feature`` is off),
to a distribution over ``A`` price levels (``A - 1`` evenly on [0, 1] and one just below 0,
:func:`level_grid`), the price being ``L (U / L)^u``. The deployed (deterministic) policy posts the
expected level ``u = sum_a pi(a | s) u_a`` clipped to [0, 1] (the level below 0 lets it post
exactly L); ``horizon`` is the training stream length.

Per-round update: for a batch of streams, the deployed policy's trajectory is simulated; then for
every round t, every resource i and every level a, the stream is rolled out with round t's price of
resource i forced to ``u_a`` and every other price (before and after t) posted by the current
deployed policy, giving the welfare ``W_t,i(a)``. The policy ascends
``sum_b w_b sum_t sum_i sum_a pi(a | s_t,i) (W_t,i(a) - W_b) / OPT_b`` (the full expectation over
actions; no sampled action), where ``W_b`` is the deployed welfare on stream b and the streams are
weighted by ``w = softmax(kappa ln(OPT_b / W_b))``, a soft maximum: the game's payoff is the worst
ratio, and a plain mean over streams would let easy streams outvote hard ones (observed: the
policy collapsed to greedy pricing). A small entropy bonus keeps the level distribution from
saturating early. (Dividing the gain by ``W_b`` instead of ``OPT_b`` was tried: on streams where
the deployed policy earns almost nothing the gains explode and the policy collapses to greedy.)
All rollouts of a batch run as one vectorized numpy simulation; the gradient of that objective
with respect to the network is taken by ``jax.grad``.

Adversary network [reconstruction]: an MLP maps Gaussian noise to the logits of a stream (values
and demands); samples are the logits plus Gaussian noise of scale ``adv_sigma``, decoded by
sigmoids into ``v in [L, U]`` (log scale) and ``d in [0.02 eps, eps]``, and (``adversary_stops``)
one more logit into the stream length ``1 + floor(sigmoid T)`` (requests after it get demand 0,
i.e. do not exist). Since the welfare is a step function of the inputs, the adversary is trained
by REINFORCE (score function, normalized advantage) to *minimize* ``ALG / OPT``. The algorithm
trains on the adversary's samples plus an archive of the worst streams the adversary has produced
(the ``archive`` hardest seen so far, re-scored each step).

Robust variant [ours] (``init="lp"``, ``certified=True``, ``round_feature=False``, ``select="best"``;
the bundled one-resource policies): (1) the network is first fitted (least squares on its
expected level) to the price curve of the minimax LP's optimal allocation (the minimax
LP, in its closed form :func:`optsched.online.certified.grid_lp_ratio`:
the allocation that keeps every prefix of the staircase exactly at the optimal fraction); (2) every
batch of the per-round update also holds the certified adversary's streams
(:mod:`optsched.online.certified`: a staircase on a fresh random increasing set of 3 to
``certified_grid`` values from L to U, and the tracking stream, ``certified_copies`` requests per
value, both built against the *current* policy and stopped at their worst moment; a fixed grid was
tried first and the policy learned to exploit its few values, its ratio on finer grids rising); (3) the round feature is off: a price that depends on the round
index relative to a training horizon is exploitable by the stream's length, which the adversary
chooses (measured with the earlier policies: ALG = 0 on short streams of values just above L);
(4) the iterate kept is the one whose certified training streams had the smallest worst ratio. The
training streams use ``certified_grid`` and ``certified_copies``, evaluations use other grids and
copies (table T15, ``optsched repro --only T15``), so nothing is tuned on the inputs it is judged on.

OPT in training is the LP relaxation of the hindsight problem (fractional knapsack for m = 1, a
HiGHS LP for m > 1): an upper bound on OPT, so the training payoff is conservative.

Everything is seeded: initial weights and all noise come from numpy generators
(:func:`optsched.core.rng.make_rng`), the optimizer is a plain numpy Adam, and jax (CPU, float64
inside ``jax.enable_x64``) only computes gradients; set ``XLA_FLAGS`` to one thread before jax is
first imported for bit-reproducible runs (:func:`train_pricing` sets it when jax is not yet loaded).
Only training imports jax; deployment (:class:`PricingPolicy`) is numpy on stored weights.

Guarantee: none (empirical; :mod:`optsched.online.certified` and :mod:`optsched.online.adversary`
measure it).

Complexity per iteration: O(T^2 m A B) simulation steps (vectorized) plus B LPs (m > 1).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["TrainConfig", "PricingPolicy", "train_pricing", "simulate_prices", "fractional_opt", "TrainLog",
           "per_round_rollouts", "level_grid", "lp_levels", "mlp_forward", "init_weights", "fit_lp_curve"]


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (with ``seed``)."""

    resources: int = 1
    lower: float = 1.0
    upper: float = 16.0
    eps: float = 0.05
    horizon: int = 24          # T, requests per training stream of the adversary network
    levels: int = 17           # A, price levels on [0, 1] (log scale between L and U)
    hidden: int = 32
    batch: int = 16            # adversary samples per iteration
    archive: int = 16          # hardest streams kept
    iterations: int = 300
    policy_lr: float = 0.01
    adversary_lr: float = 0.03
    adversary_steps: int = 2   # adversary updates per policy update
    adv_sigma: float = 0.7
    noise_dim: int = 8
    adversary_stops: bool = False  # the adversary network also chooses where the stream stops
    worst_weight: float = 3.0  # kappa: streams weighted by softmax(kappa * ln(OPT / ALG))
    entropy: float = 0.01      # entropy bonus of the policy's level distribution
    seed: int = 0
    round_feature: bool = True     # the policy sees min(t / horizon, 1); off: the feature is 0
    init: str = "random"           # "random" or "lp" (fitted to the minimax LP's price curve first)
    init_steps: int = 1500         # Adam steps of the "lp" fit
    init_shift: float = 0.0        # the fitted curve's zero moved right by this much (see lp_levels)
    certified: bool = False        # add the certified adversary's streams to every batch
    certified_grid: int = 8        # K of the training staircase
    certified_copies: int = 16     # requests per value (demand 1 / copies) of the training streams
    select: str = "last"           # "last" iterate, or "best" (smallest certified training ratio)
    top_level: bool = False        # one price level above 1 (the expected level can reach U)
    select_grid: int = 50          # K of the staircase that scores iterates for select="best"
    select_copies: int = 32        # requests per value of the scoring streams


@dataclass
class TrainLog:
    """Per-iteration payoff: the adversary batch's worst and mean ``OPT / ALG`` (OPT = LP)."""

    iteration: list[int] = field(default_factory=list)
    worst_ratio: list[float] = field(default_factory=list)
    mean_ratio: list[float] = field(default_factory=list)
    archive_worst: list[float] = field(default_factory=list)
    #: the certified training streams' worst OPT / ALG per iteration (``certified=True``)
    certified_worst: list[float] = field(default_factory=list)
    #: the selection score (``select="best"``) of the policy before each update, and after the last
    select_score: list[float] = field(default_factory=list)
    #: the iteration whose policy was kept (``select="best"``), else the last
    selected: int = -1
    seconds: float = 0.0
    #: the archive at the end: (values (k, T), demands (k, T, m)), hardest first
    worst_streams: tuple | None = None


def level_grid(levels: int, top_level: bool = False) -> np.ndarray:
    """``levels`` price levels: ``levels - 1`` evenly on [0, 1] and one at ``-1 / (levels - 2)`` below 0,
    so that the expected level can reach 0 (price exactly L) with a finite network output; with
    ``top_level``, ``levels - 2`` evenly on [0, 1], one below 0 and one above 1 (so that it can also
    reach 1, price exactly U)."""
    if top_level:
        mid = np.linspace(0.0, 1.0, levels - 2)
        return np.concatenate([[-mid[1]], mid, [1.0 + mid[1]]])
    top = np.linspace(0.0, 1.0, levels - 1)
    return np.concatenate([[-top[1]], top])


def lp_levels(z: np.ndarray, lower: float, upper: float, grid: int = 256, shift: float = 0.0,
              floor: float = 0.0) -> np.ndarray:
    """The price level ``u(z)`` of the minimax LP's optimal allocation on a ``grid``-point geometric
    value grid [ours], continued linearly below level 0 (down to ``floor``).

    The LP keeps every prefix of the staircase at the optimal fraction ``r = 1 / rho_K``: it sells
    ``r`` at L and ``r (1 - 1/q)`` at each further grid value (``q`` the grid's ratio), so the
    (K-1)-th part of the level is reached after ``r (1 + j (1 - 1/q))`` of the capacity; this is the
    line ``u = (z / r - 1) / ((K - 1)(1 - 1/q))`` sampled on the grid. We return the line itself,
    clipped to ``[floor, 1]``, with its zero moved right by ``shift`` (the curve then sells a little
    more at L: a fitted network that crosses 0 slightly early would otherwise refuse value L one
    request too soon).

    >>> lp_levels(np.array([0.0, 0.2, 1.0]), 1.0, 16.0).round(3).tolist()
    [0.0, 0.0, 1.0]
    """
    from .certified import grid_lp_ratio

    k = int(grid)
    r = 1.0 / grid_lp_ratio(lower, upper, k)
    q = (upper / lower) ** (1.0 / (k - 1))
    line = ((np.asarray(z, float) - shift) / r - 1.0) / ((k - 1) * (1.0 - 1.0 / q))
    return np.clip(line, floor, 1.0)


def init_weights(config: TrainConfig, seed: int, purpose: str = "policy", sizes=None) -> list[np.ndarray]:
    """Uniform(+-1 / sqrt(fan_in)) weights and biases (numpy, seeded), layers ``(out, in)``."""
    from optsched.core.rng import make_rng

    sizes = sizes or [3, config.hidden, config.hidden, config.levels]
    rng = make_rng(seed, "learned-pricing", purpose)
    ws = []
    for k in range(len(sizes) - 1):
        bound = 1.0 / np.sqrt(sizes[k])
        ws.append(rng.uniform(-bound, bound, (sizes[k + 1], sizes[k])))
        ws.append(rng.uniform(-bound, bound, sizes[k + 1]))
    return ws


def mlp_forward(ws, h, xp=np):
    """The tanh MLP (``xp`` = numpy or jax.numpy)."""
    for k in range(0, len(ws), 2):
        h = h @ ws[k].T + ws[k + 1]
        if k < len(ws) - 2:
            h = xp.tanh(h)
    return h


class PricingPolicy:
    """A trained (or fresh) pricing network with a numpy forward pass for deployment.

    >>> p = PricingPolicy.fresh(TrainConfig(), seed=0)
    >>> price = p.prices(np.zeros((1, 1)), 0)
    >>> price.shape, bool(1.0 <= price[0, 0] <= 16.0)
    ((1, 1), True)
    """

    def __init__(self, config: TrainConfig, weights: list[np.ndarray]):
        self.config = config
        self.weights = [np.asarray(w, float) for w in weights]
        self.grid = level_grid(config.levels, config.top_level)

    @classmethod
    def fresh(cls, config: TrainConfig, seed: int = 0) -> "PricingPolicy":
        """An untrained network (seeded numpy initialization; no jax needed)."""
        return cls(config, init_weights(config, seed))

    # -- deployment (numpy) -------------------------------------------------------------------
    def features(self, z: np.ndarray, t) -> np.ndarray:
        """``(N, m)`` utilizations at round ``t`` (scalar or ``(N,)``) -> ``(N, m, 3)`` features."""
        return _features(self.config, np.asarray(z, float), t)

    def probabilities(self, z: np.ndarray, t) -> np.ndarray:
        h = mlp_forward(self.weights, self.features(z, t))
        h = h - h.max(axis=-1, keepdims=True)
        e = np.exp(h)
        return e / e.sum(axis=-1, keepdims=True)

    def levels_posted(self, z: np.ndarray, t) -> np.ndarray:
        """The deployed level ``u in [0, 1]`` per resource: the expected grid level, clipped."""
        return np.clip(self.probabilities(z, t) @ self.grid, 0.0, 1.0)

    def prices(self, z: np.ndarray, t) -> np.ndarray:
        c = self.config
        return c.lower * (c.upper / c.lower) ** self.levels_posted(z, t)

    def price_for(self, lower: float, upper: float, z: np.ndarray, t) -> np.ndarray:
        """Prices for an instance with its own [L, U]: the trained level applied on its log scale."""
        return lower * (upper / lower) ** self.levels_posted(z, t)

    # -- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"config": asdict(self.config), "weights": [w.tolist() for w in self.weights]}

    @classmethod
    def from_json(cls, data: dict) -> "PricingPolicy":
        return cls(TrainConfig(**data["config"]), [np.asarray(w, float) for w in data["weights"]])

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        data = self.to_json()
        if extra:
            data["training"] = extra
        Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "PricingPolicy":
        return cls.from_json(json.loads(Path(path).read_text()))


def _features(c: TrainConfig, z: np.ndarray, t, xp=np):
    n, m = z.shape
    if c.round_feature:
        tau = xp.minimum(xp.broadcast_to(xp.asarray(t, float), (n,)) / c.horizon, 1.0)
    else:
        tau = xp.zeros(n)
    return xp.stack([z, xp.broadcast_to(tau[:, None], (n, m)),
                     xp.broadcast_to(z.mean(axis=1, keepdims=True), (n, m))], axis=-1)


def simulate_prices(price_fn, values: np.ndarray, demands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Run a posted-price policy on a batch of streams.

    ``values`` (B, T) value densities, ``demands`` (B, T, m); ``price_fn(z, t)`` maps (B, m)
    utilizations and the round to (B, m) prices. Returns ``(welfare (B,), served (B, T) bool)``.
    A request is served iff ``v sum(d) >= p . d`` and ``z + d <= 1`` on every resource (up to
    1e-12 of rounding).
    """
    b, t_len, m = demands.shape
    z = np.zeros((b, m))
    welfare = np.zeros(b)
    served = np.zeros((b, t_len), bool)
    for t in range(t_len):
        p = price_fn(z, t)
        d = demands[:, t, :]
        worth = values[:, t] * d.sum(axis=1)
        ok = (worth >= (p * d).sum(axis=1)) & np.all(z + d <= 1.0 + 1e-12, axis=1)
        z = z + ok[:, None] * d
        welfare += ok * worth
        served[:, t] = ok
    return welfare, served


def fractional_opt(values: np.ndarray, demands: np.ndarray) -> np.ndarray:
    """The LP relaxation of the hindsight problem per stream (an upper bound on OPT).

    m = 1: the fractional knapsack (sort by value density); m > 1: HiGHS through
    :func:`scipy.optimize.linprog` (training only; the methods' references are the exact MILPs).
    """
    b, t_len, m = demands.shape
    out = np.zeros(b)
    if m == 1:
        for k in range(b):
            order = np.argsort(-values[k], kind="stable")
            d = demands[k, order, 0]
            cum = np.cumsum(d)
            take = np.clip(1.0 - (cum - d), 0.0, d)
            out[k] = float(np.dot(take, values[k, order]))
        return out
    from scipy.optimize import linprog

    for k in range(b):
        w = values[k] * demands[k].sum(axis=1)
        res = linprog(-w, A_ub=demands[k].T, b_ub=np.ones(m), bounds=(0, 1), method="highs")
        out[k] = -res.fun
    return out


def per_round_rollouts(level_fn, values: np.ndarray, demands: np.ndarray, grid: np.ndarray, c: TrainConfig,
                       lengths: np.ndarray | None = None):
    """The per-round update's rollouts, all in one vectorized numpy simulation.

    ``level_fn(z (N, m), t (int)) -> (N, m)`` posted levels of the current policy; ``values``
    (B, T) and ``demands`` (B, T, m); ``grid`` the (A,) levels; ``lengths`` (B,) the real length of
    each stream (rounds after it have demand 0; default T). Returns the deployed welfare (B,), the
    deployed utilizations before every round (B, T, m), and ``W[b, t, i, a]``: the welfare of stream b
    when round t's price of resource i is forced to level a and every other price is the policy's
    (history before t is the deployed one, since the policy is deterministic; a rollout starts at
    its forced round from the deployed state). Rounds at or after a stream's length get the
    deployed welfare (forcing a price there changes nothing).
    """
    b, t_len, m = demands.shape
    a_len = grid.shape[0]
    span = c.upper / c.lower
    lengths = np.full(b, t_len) if lengths is None else np.asarray(lengths, int)
    # deployed trajectory
    z = np.zeros((b, m))
    w = np.zeros(b)
    zs_base = np.zeros((b, t_len, m))
    w_before = np.zeros((b, t_len))
    for t in range(t_len):
        zs_base[:, t], w_before[:, t] = z, w
        price = c.lower * span ** level_fn(z, t)
        d = demands[:, t]
        worth = values[:, t] * d.sum(axis=1)
        ok = (worth >= (price * d).sum(axis=1)) & np.all(z + d <= 1.0 + 1e-12, axis=1)
        z = z + ok[:, None] * d
        w = w + ok * worth
    base_w = w
    # forced rollouts, rows ordered by their forced round (the active rows are a prefix)
    bb, tt, ii, aa = (x.reshape(-1) for x in np.meshgrid(np.arange(b), np.arange(t_len), np.arange(m),
                                                         np.arange(a_len), indexing="ij"))
    keep = tt < lengths[bb]
    order = np.argsort(tt[keep], kind="stable")
    bb, tt, ii, aa = bb[keep][order], tt[keep][order], ii[keep][order], aa[keep][order]
    n = bb.shape[0]
    starts = np.searchsorted(tt, np.arange(t_len + 1), side="left")
    rz = np.zeros((n, m))
    rw = np.zeros(n)
    end = int(lengths.max()) if b else 0
    for t in range(end):
        lo, hi = starts[t], starts[t + 1]
        rz[lo:hi] = zs_base[bb[lo:hi], t]
        rw[lo:hi] = w_before[bb[lo:hi], t]
        if hi == 0:
            continue
        lev = level_fn(rz[:hi], t)
        lev[np.arange(lo, hi), ii[lo:hi]] = grid[aa[lo:hi]]
        price = c.lower * span ** lev
        d = demands[bb[:hi], t]
        worth = values[bb[:hi], t] * d.sum(axis=1)
        ok = (worth >= (price * d).sum(axis=1)) & np.all(rz[:hi] + d <= 1.0 + 1e-12, axis=1)
        rz[:hi] = rz[:hi] + ok[:, None] * d
        rw[:hi] = rw[:hi] + ok * worth
    w_all = np.repeat(base_w[:, None, None, None], t_len * m * a_len, axis=1).reshape(b, t_len, m, a_len)
    w_all[bb, tt, ii, aa] = rw
    return base_w, zs_base, w_all


class _Adam:
    """Adam on a list of numpy arrays (beta 0.9 / 0.999, eps 1e-8, as PyTorch's default)."""

    def __init__(self, params, lr: float):
        self.lr, self.k = lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, params, grads):
        self.k += 1
        out = []
        for j, (p, g) in enumerate(zip(params, grads)):
            g = np.asarray(g, float)
            self.m[j] = 0.9 * self.m[j] + 0.1 * g
            self.v[j] = 0.999 * self.v[j] + 0.001 * g * g
            mh = self.m[j] / (1 - 0.9 ** self.k)
            vh = self.v[j] / (1 - 0.999 ** self.k)
            out.append(p - self.lr * mh / (np.sqrt(vh) + 1e-8))
        return out


def _jax():
    if "jax" not in __import__("sys").modules:
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    import jax

    return jax


def fit_lp_curve(config: TrainConfig, weights: list[np.ndarray], steps: int | None = None) -> list[np.ndarray]:
    """Fit the network's expected level to :func:`lp_levels` (least squares on 129 utilizations,
    and rounds 0, T/2, T when the round feature is on; Adam, lr 0.01) [ours]."""
    jax = _jax()
    jnp = jax.numpy
    c = config
    zs = np.linspace(0.0, 1.0, 129)
    target = lp_levels(zs, c.lower, c.upper, shift=c.init_shift, floor=level_grid(c.levels, c.top_level)[0])
    rounds = (0, c.horizon // 2, c.horizon) if c.round_feature else (0,)
    feats = np.concatenate([_features(c, zs[:, None], t) for t in rounds])[:, 0, :]    # (N, 3)
    if c.resources > 1:
        # the price of resource i should follow z_i whatever the other resources hold: the mean
        # utilization feature spans its range, (z_i + 0 (m-1)) / m .. (z_i + (m-1)) / m
        shares = np.linspace(0.0, 1.0, 5)
        feats = np.concatenate([np.stack([feats[:, 0], feats[:, 1], (feats[:, 0] + (c.resources - 1) * w)
                                          / c.resources], axis=1) for w in shares])
        target = np.tile(target, len(shares))
    target = np.tile(target, len(feats) // len(target))
    grid = level_grid(c.levels, c.top_level)

    def loss(ws):
        h = mlp_forward(ws, jnp.asarray(feats), jnp)
        u = jax.nn.softmax(h, axis=-1) @ jnp.asarray(grid)
        return jnp.mean((u - jnp.asarray(target)) ** 2)

    with jax.enable_x64(True):
        grad = jax.jit(jax.grad(loss))
        opt = _Adam(weights, 0.01)
        for _ in range(c.init_steps if steps is None else steps):
            weights = opt.step(weights, [np.asarray(g) for g in grad([jnp.asarray(w) for w in weights])])
    return weights


def train_pricing(config: TrainConfig, *, log_every: int = 0, progress=None,
                  frozen: PricingPolicy | None = None) -> tuple[PricingPolicy, TrainLog]:
    """Train the pricing policy (seeded, deterministic on one CPU thread; needs jax).

    Returns the deployed policy and the training log (payoff per iteration). With ``frozen`` (a
    trained policy), only the adversary network trains, against that fixed policy: the log's
    ``archive_worst`` is then the worst ratio its own adversary network finds, and
    ``log.worst_streams`` holds the hardest streams (values, demands) for an exact re-evaluation.
    """
    jax = _jax()
    with jax.enable_x64(True):
        return _train(jax, config, log_every, progress, frozen)


def _certified_streams(c: TrainConfig, level_np, rng=None):
    """The certified adversary's training streams against the current deployed policy (resource 0
    carries the demand; the others none): the staircase and the tracking stream, each stopped at its
    worst moment. Returns (values list, demands list, worst ratio by the attacks' own accounting)."""
    from .certified import staircase_attack, tracking_attack

    m = c.resources
    span = c.upper / c.lower

    def run(values, demands):
        d = np.zeros((1, len(values), m))
        d[0, :, 0] = demands
        _, served = simulate_prices(lambda z, t: c.lower * span ** level_np(z, t), np.asarray(values)[None], d)
        return served[0]

    def probe(values, demands, accepted, demand):
        z = np.zeros((1, m))
        z[0, 0] = float(np.sum(np.asarray(demands)[np.asarray(accepted, bool)])) if len(values) else 0.0
        return float(c.lower * span ** level_np(z, len(values))[0, 0])

    if rng is None:
        stair = staircase_attack(run, c.lower, c.upper, grid=c.certified_grid, copies=c.certified_copies)
    else:
        # training: a fresh random staircase each iteration (3..certified_grid values, L and U
        # included, the rest log-uniform), so the policy cannot fit a fixed set of values
        k = int(rng.integers(3, c.certified_grid + 1))
        levels = np.concatenate([[0.0], np.sort(rng.random(k - 2)), [1.0]])
        stair = staircase_attack(run, c.lower, c.upper, copies=c.certified_copies,
                                 values=c.lower * (c.upper / c.lower) ** levels)
    out = [stair, tracking_attack(probe, run, c.lower, c.upper, copies=c.certified_copies)]
    vs, ds = [], []
    for r in out:
        d = np.zeros((len(r.values), m))
        d[:, 0] = r.demands
        vs.append(np.asarray(r.values, float))
        ds.append(d)
    return vs, ds, max(r.ratio for r in out)


def _certified_score(c: TrainConfig, level_np) -> float:
    """The worst ratio of the certified attacks on the selection grid (``select_grid``,
    ``select_copies``): scores an iterate for ``select="best"``; these streams are not trained on."""
    cc = TrainConfig(**{**asdict(c), "certified_grid": c.select_grid, "certified_copies": c.select_copies})
    return _certified_streams(cc, level_np)[2]


def _pad(values: list, demands: list, length: int, m: int):
    b = len(values)
    v = np.full((b, length), 1.0)
    d = np.zeros((b, length, m))
    for k, (x, y) in enumerate(zip(values, demands)):
        v[k, :len(x)] = x
        d[k, :len(x)] = y
    return v, d


def _train(jax, c: TrainConfig, log_every, progress, frozen=None):
    from optsched.core.rng import make_rng

    jnp = jax.numpy
    start = time.perf_counter()
    if c.init not in ("random", "lp") or c.select not in ("last", "best"):
        raise ValueError(f"TrainConfig: init must be random or lp, select last or best (got {c.init!r}, {c.select!r})")
    m, t_len, a_len = c.resources, c.horizon, c.levels
    if frozen is not None:
        pol = [w.copy() for w in frozen.weights]
    else:
        pol = init_weights(c, c.seed)
        if c.init == "lp":
            pol = fit_lp_curve(c, pol)
    adv_out = t_len * (1 + m) + (1 if c.adversary_stops else 0)
    adv = init_weights(c, c.seed, "adversary", sizes=[c.noise_dim, 64, adv_out])
    rng = make_rng(c.seed, "learned-pricing", "noise")
    opt_pol, opt_adv = _Adam(pol, c.policy_lr), _Adam(adv, c.adversary_lr)
    grid = level_grid(a_len, c.top_level)
    span = c.upper / c.lower
    log = TrainLog()
    archive_v = np.zeros((0, t_len))
    archive_d = np.zeros((0, t_len, m))

    def level_np(z, t):
        h = mlp_forward(pol, _features(c, np.asarray(z, float), t))
        h = h - h.max(axis=-1, keepdims=True)
        e = np.exp(h)
        return np.clip((e / e.sum(axis=-1, keepdims=True)) @ grid, 0.0, 1.0)

    def deployed(values, demands):
        w, _ = simulate_prices(lambda z, t: c.lower * span ** level_np(z, t), values, demands)
        return w

    def decode(logits):
        lv = logits[:, :t_len]
        ld = logits[:, t_len:t_len * (1 + m)].reshape(-1, t_len, m)
        values = c.lower * span ** (1.0 / (1.0 + np.exp(-lv)))
        demands = c.eps * (0.02 + 0.98 / (1.0 + np.exp(-ld)))
        if c.adversary_stops:
            length = np.minimum(1 + np.floor(t_len / (1.0 + np.exp(-logits[:, -1]))), t_len)
            demands = demands * (np.arange(t_len)[None, :] < length[:, None])[:, :, None]
        return values, demands

    def adv_loss(ws, noise, sample, advantage):
        mean = mlp_forward(ws, noise, jnp)
        logp = -((sample - mean) ** 2).sum(axis=1) / (2 * c.adv_sigma ** 2)
        return (advantage * logp).mean()

    def pol_objective(ws, feats, weight, advantage):
        logits = mlp_forward(ws, feats, jnp)
        probs = jax.nn.softmax(logits, axis=-1).reshape(advantage.shape)
        per_stream = (probs * advantage).sum(axis=-1).sum(axis=(1, 2))
        entropy = -(probs * jnp.log(probs + 1e-12)).sum(axis=-1).mean()
        return -((weight * per_stream).sum() + c.entropy * entropy)

    adv_grad = jax.jit(jax.grad(adv_loss))
    pol_grad = jax.jit(jax.grad(pol_objective))
    # one padded length for every batch (fixed shapes: the gradient compiles once)
    t_all = max(t_len, c.certified_grid * c.certified_copies, 5 * c.certified_copies) if c.certified else t_len
    best = (np.inf, -1, pol)
    for it in range(c.iterations):
        # ---- adversary step(s): REINFORCE on ALG / OPT against the current deployed policy
        for _ in range(c.adversary_steps):
            noise = rng.standard_normal((c.batch, c.noise_dim))
            mean = mlp_forward(adv, noise)
            sample = mean + c.adv_sigma * rng.standard_normal(mean.shape)
            values, demands = decode(sample)
            alg = deployed(values, demands)
            opt = fractional_opt(values, demands)
            payoff = alg / opt
            advantage = (payoff - payoff.mean()) / (payoff.std(ddof=1) + 1e-9)
            g = adv_grad([jnp.asarray(w) for w in adv], jnp.asarray(noise), jnp.asarray(sample), jnp.asarray(advantage))
            adv = opt_adv.step(adv, [np.asarray(x) for x in g])
        # ---- archive of the hardest streams seen (re-scored against the current policy)
        archive_v = np.concatenate([archive_v, values])
        archive_d = np.concatenate([archive_d, demands])
        a_pay = deployed(archive_v, archive_d) / fractional_opt(archive_v, archive_d)
        keep = np.argsort(a_pay, kind="stable")[:c.archive]
        archive_v, archive_d = archive_v[keep], archive_d[keep]
        ratios = opt / np.maximum(alg, 1e-12)
        log.iteration.append(it)
        log.worst_ratio.append(float(ratios.max()))
        log.mean_ratio.append(float(ratios.mean()))
        log.archive_worst.append(float(1.0 / max(a_pay[keep].min(), 1e-12)))
        if frozen is not None:
            continue
        # ---- the certified adversary's streams against the current policy
        vs = [*values, *archive_v]
        ds = [*demands, *archive_d]
        lengths = [t_len] * len(vs)
        if c.certified:
            cv, cd, cworst = _certified_streams(c, level_np, rng)
            log.certified_worst.append(float(cworst))
            if c.select == "best":
                score = _certified_score(c, level_np)
                log.select_score.append(float(score))
                if score < best[0]:
                    best = (score, it, [w.copy() for w in pol])
            vs += cv
            ds += cd
            lengths += [len(x) for x in cv]
        bv, bd = _pad(vs, ds, t_all, m)
        b_opt = fractional_opt(bv, bd)
        base_w, zs_base, w_all = per_round_rollouts(level_np, bv, bd, grid, c, lengths=np.asarray(lengths))
        b, tb = bv.shape
        feats = np.concatenate([_features(c, zs_base[:, t], t)[:, None] for t in range(tb)], axis=1)
        base_safe = np.maximum(base_w, 1e-2 * b_opt)  # ratios above 100 weigh as 100
        lw = c.worst_weight * np.log(b_opt / base_safe)
        weight = np.exp(lw - lw.max())
        weight = weight / weight.sum()
        adv_pr = (w_all - base_w[:, None, None, None]) / b_opt[:, None, None, None]
        g = pol_grad([jnp.asarray(w) for w in pol], jnp.asarray(feats.reshape(b * tb, m, 3)), jnp.asarray(weight),
                     jnp.asarray(adv_pr))
        pol = opt_pol.step(pol, [np.asarray(x) for x in g])
        if log_every and it % log_every == 0 and progress:
            extra = f", certified {log.certified_worst[-1]:.3f}" if c.certified else ""
            progress(f"iteration {it}: adversary batch worst OPT/ALG {ratios.max():.3f}, "
                     f"archive worst {log.archive_worst[-1]:.3f}{extra}", it / c.iterations)
    log.selected = c.iterations - 1
    if frozen is None and c.certified and c.select == "best":
        score = _certified_score(c, level_np)      # the last update's result competes too
        log.select_score.append(float(score))
        if score < best[0]:
            best = (score, c.iterations, pol)
        log.selected, pol = best[1], best[2]
    log.seconds = time.perf_counter() - start
    log.worst_streams = (archive_v, archive_d)
    return PricingPolicy(c, pol), log
