"""Learned posted-price policies trained against a learned adversary [reconstruction].

After the abstract of B. Du, Z. Huang, C. Wu, "Adversarial Deep Learning for Online Resource
Allocation" (ACM TOMPECS 2022, arXiv 2111.10285): an algorithm network and an adversary network
play a zero-sum game whose payoff is the algorithm's welfare relative to the offline optimum; the
algorithm is trained with a *per-round update* that evaluates every action of a round instead of a
sampled one. No code is public; everything below is optsched's reconstruction (spec wave2 s. 8).

Setting (shared by ``online-knapsack``, m = 1, and ``online-packing``, m >= 1): m resources of
capacity 1; request t has demands ``d_t in [0, eps]^m`` and a value density ``v_t in [L, U]``
(welfare ``v_t * sum_i d_ti`` if served). The policy posts one price per resource before seeing
the request; the request is served iff ``v_t sum_i d_ti >= sum_i p_i d_ti`` and it fits.

Algorithm network (policy): a shared MLP maps the state of one resource, the features
``(z_i, min(t / horizon, 1), mean_k z_k)``, to a distribution over ``A`` price levels (``A - 1``
evenly on [0, 1] and one just below 0, :func:`level_grid`), the price being ``L (U / L)^u``. The
deployed (deterministic) policy posts the expected level ``u = sum_a pi(a | s) u_a`` clipped to
[0, 1] (the level below 0 lets it post exactly L); ``horizon`` is the training stream length (the
online algorithm does not know the stream length; the round feature saturates at 1).

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
the deployed policy earns almost nothing the gains explode and the policy collapses to greedy.) All ``T * m * A`` rollouts of a batch run as one vectorized simulation.

Adversary network: an MLP maps Gaussian noise to the logits of a stream (values and demands);
samples are the logits plus Gaussian noise of scale ``adv_sigma``, decoded by sigmoids into
``v in [L, U]`` (log scale) and ``d in [0.02 eps, eps]``, and (``adversary_stops``) one more logit
into the stream length ``1 + floor(sigmoid T)`` (requests after it get demand 0, i.e. do not
exist). Without the stopping choice (the default, used by the bundled policies) the adversary
network can only send full-length streams, and the trained policies post prices above L in the
first rounds, which the search adversary (it chooses the length) exploits with short streams of
values near L. With it (measured once: U/L = 64, seed 0) the policy posts L at the start, but the
search adversary then found OPT/ALG = 210 (versus 16.0 plus 29 ALG = 0 inputs without): it did
not make the policy robust, so it is an option, not the default. Since the welfare is a step function of
the inputs, the adversary is trained by REINFORCE (score function with a mean baseline) to
*minimize* ``ALG / OPT``. The algorithm trains on the adversary's samples plus an archive of the
worst streams the adversary has produced (the ``archive`` hardest seen so far, re-scored each step).

OPT in training is the LP relaxation of the hindsight problem (fractional knapsack for m = 1, a
HiGHS LP for m > 1): an upper bound on OPT, so the training payoff is conservative.

Everything is seeded (``torch.manual_seed`` from :func:`optsched.core.rng.derive_seed`, numpy
generators from :func:`make_rng`); training uses one thread for determinism on CPU.

Guarantee: none (empirical; the ratio found by :mod:`optsched.online.adversary` is reported).

Complexity per iteration: O(T^2 m A B) simulation steps (vectorized) plus B LPs (m > 1).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = ["TrainConfig", "PricingPolicy", "train_pricing", "simulate_prices", "fractional_opt", "TrainLog",
           "per_round_rollouts", "level_grid"]


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (with ``seed``)."""

    resources: int = 1
    lower: float = 1.0
    upper: float = 16.0
    eps: float = 0.05
    horizon: int = 24          # T, requests per training stream
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


@dataclass
class TrainLog:
    """Per-iteration payoff: the adversary batch's worst and mean ``OPT / ALG`` (OPT = LP)."""

    iteration: list[int] = field(default_factory=list)
    worst_ratio: list[float] = field(default_factory=list)
    mean_ratio: list[float] = field(default_factory=list)
    archive_worst: list[float] = field(default_factory=list)
    seconds: float = 0.0
    #: the archive at the end: (values (k, T), demands (k, T, m)), hardest first
    worst_streams: tuple | None = None


def level_grid(levels: int) -> np.ndarray:
    """``levels`` price levels: ``levels - 1`` evenly on [0, 1] and one at ``-1 / (levels - 2)`` below 0,
    so that the expected level can reach 0 (price exactly L) with a finite network output."""
    top = np.linspace(0.0, 1.0, levels - 1)
    return np.concatenate([[-top[1]], top])


def _torch():
    import torch

    return torch


def _mlp(torch, sizes: Sequence[int]):
    layers = []
    for k in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


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
        self.grid = level_grid(config.levels)

    @classmethod
    def fresh(cls, config: TrainConfig, seed: int = 0) -> "PricingPolicy":
        torch = _torch()
        from optsched.core.rng import derive_seed

        torch.manual_seed(derive_seed(seed, "learned-pricing", "policy") % 2 ** 31)
        net = _mlp(torch, [3, config.hidden, config.hidden, config.levels])
        return cls.from_torch(config, net)

    @classmethod
    def from_torch(cls, config: TrainConfig, net) -> "PricingPolicy":
        ws = []
        for layer in net:
            if hasattr(layer, "weight"):
                ws.append(layer.weight.detach().numpy().astype(float).copy())
                ws.append(layer.bias.detach().numpy().astype(float).copy())
        return cls(config, ws)

    # -- deployment (numpy) -------------------------------------------------------------------
    def features(self, z: np.ndarray, t) -> np.ndarray:
        """``(N, m)`` utilizations at round ``t`` (scalar or ``(N,)``) -> ``(N, m, 3)`` features."""
        z = np.asarray(z, float)
        n, m = z.shape
        tau = np.minimum(np.broadcast_to(np.asarray(t, float), (n,)) / self.config.horizon, 1.0)
        return np.stack([z, np.broadcast_to(tau[:, None], (n, m)),
                         np.broadcast_to(z.mean(axis=1, keepdims=True), (n, m))], axis=-1)

    def probabilities(self, z: np.ndarray, t) -> np.ndarray:
        h = self.features(z, t)
        ws = self.weights
        for k in range(0, len(ws), 2):
            h = h @ ws[k].T + ws[k + 1]
            if k < len(ws) - 2:
                h = np.tanh(h)
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


def train_pricing(config: TrainConfig, *, log_every: int = 0, progress=None,
                  frozen: PricingPolicy | None = None) -> tuple[PricingPolicy, TrainLog]:
    """Train the pricing policy against the adversary network (seeded, deterministic on CPU).

    Returns the deployed policy and the training log (payoff per iteration). With ``frozen`` (a
    trained policy), only the adversary network trains, against that fixed policy: the log's
    ``archive_worst`` is then the worst ratio its own adversary network finds, and
    ``log.worst_streams`` holds the hardest streams (values, demands) for an exact re-evaluation.
    """
    torch = _torch()
    from optsched.core.rng import derive_seed, make_rng

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(torch, config, derive_seed, make_rng, log_every, progress, frozen)
    finally:
        torch.set_num_threads(threads)


def _train(torch, c: TrainConfig, derive_seed, make_rng, log_every, progress, frozen=None):
    start = time.perf_counter()
    torch.manual_seed(derive_seed(c.seed, "learned-pricing", "policy") % 2 ** 31)
    policy = _mlp(torch, [3, c.hidden, c.hidden, c.levels])
    if frozen is not None:
        layers = [layer for layer in policy if hasattr(layer, "weight")]
        with torch.no_grad():
            for k, layer in enumerate(layers):
                layer.weight.copy_(torch.from_numpy(frozen.weights[2 * k]))
                layer.bias.copy_(torch.from_numpy(frozen.weights[2 * k + 1]))
    torch.manual_seed(derive_seed(c.seed, "learned-pricing", "adversary") % 2 ** 31)
    m, t_len, a_len = c.resources, c.horizon, c.levels
    adversary = _mlp(torch, [c.noise_dim, 64, t_len * (1 + m) + (1 if c.adversary_stops else 0)])
    gen = torch.Generator().manual_seed(derive_seed(c.seed, "learned-pricing", "noise") % 2 ** 31)
    opt_pol = torch.optim.Adam(policy.parameters(), lr=c.policy_lr)
    opt_adv = torch.optim.Adam(adversary.parameters(), lr=c.adversary_lr)
    grid = torch.from_numpy(level_grid(a_len))
    span = c.upper / c.lower
    log = TrainLog()
    archive_v = np.zeros((0, t_len))
    archive_d = np.zeros((0, t_len, m))

    def feats(z, t_frac):
        # z: (N, m) tensor; t_frac: (N,) tensor
        n = z.shape[0]
        return torch.stack([z, t_frac[:, None].expand(n, m), z.mean(dim=1, keepdim=True).expand(n, m)], dim=-1)

    def deployed_levels(z, t_frac):
        with torch.no_grad():
            logits = policy(feats(z, t_frac).float()).double()
            return torch.clamp(torch.softmax(logits, dim=-1) @ grid, 0.0, 1.0)

    def decode(logits):
        lv = logits[:, :t_len]
        ld = logits[:, t_len:t_len * (1 + m)].reshape(-1, t_len, m)
        values = c.lower * span ** torch.sigmoid(lv)
        demands = c.eps * (0.02 + 0.98 * torch.sigmoid(ld))
        if c.adversary_stops:
            # the stream stops after 1 + floor(sigmoid(l) T) requests (capped at T): later demands are 0
            length = torch.clamp(1 + torch.floor(torch.sigmoid(logits[:, -1]) * t_len), max=t_len)
            alive = (torch.arange(t_len, dtype=torch.float64)[None, :] < length[:, None]).double()
            demands = demands * alive[:, :, None]
        return values, demands

    for it in range(c.iterations):
        # ---- adversary step(s): REINFORCE on ALG / OPT against the current deployed policy
        for _ in range(c.adversary_steps):
            noise = torch.randn(c.batch, c.noise_dim, generator=gen)
            mean = adversary(noise).double()
            sample = mean.detach() + c.adv_sigma * torch.randn(mean.shape, generator=gen, dtype=torch.float64)
            values, demands = decode(sample)
            with torch.no_grad():
                alg = _deployed_welfare(deployed_levels, values, demands, c)
            opt = torch.from_numpy(fractional_opt(values.numpy(), demands.numpy()))
            payoff = alg / opt
            logp = -((sample - mean) ** 2).sum(dim=1) / (2 * c.adv_sigma ** 2)
            adv = (payoff - payoff.mean()) / (payoff.std() + 1e-9)
            loss_adv = (adv * logp).mean()
            opt_adv.zero_grad()
            loss_adv.backward()
            opt_adv.step()
        # ---- archive of the hardest streams seen (re-scored against the current policy)
        archive_v = np.concatenate([archive_v, values.numpy()])
        archive_d = np.concatenate([archive_d, demands.numpy()])
        av, ad = torch.from_numpy(archive_v), torch.from_numpy(archive_d)
        a_alg = _deployed_welfare(deployed_levels, av, ad, c)
        a_opt = torch.from_numpy(fractional_opt(archive_v, archive_d))
        a_pay = (a_alg / a_opt).numpy()
        keep = np.argsort(a_pay, kind="stable")[:c.archive]
        archive_v, archive_d = archive_v[keep], archive_d[keep]
        if frozen is not None:
            ratios = (opt / torch.clamp(alg, min=1e-12)).numpy()
            log.iteration.append(it)
            log.worst_ratio.append(float(ratios.max()))
            log.mean_ratio.append(float(ratios.mean()))
            log.archive_worst.append(float(1.0 / max(a_pay[keep].min(), 1e-12)))
            continue
        # ---- per-round policy update on the adversary batch + archive
        bv = torch.cat([values, torch.from_numpy(archive_v)])
        bd = torch.cat([demands, torch.from_numpy(archive_d)])
        b_opt = torch.cat([opt, torch.from_numpy(fractional_opt(archive_v, archive_d))])
        base_w, zs_base, w_all = per_round_rollouts(deployed_levels, bv, bd, grid, c)
        b = bv.shape[0]
        t_frac = torch.tensor([min(t / c.horizon, 1.0) for t in range(t_len)], dtype=torch.float64)
        f = feats(zs_base.reshape(-1, m), t_frac.repeat(b)).float()      # (b*T, m, 3)
        probs = torch.softmax(policy(f).double(), dim=-1).reshape(b, t_len, m, a_len)
        # streams weighted by a soft maximum of their ratio (the game's payoff is the worst case,
        # not the mean); per stream, the per-round gain relative to the deployed welfare
        base_safe = torch.maximum(base_w, 1e-2 * b_opt)  # ratios above 100 weigh as 100
        weight = torch.softmax(c.worst_weight * torch.log(b_opt / base_safe), dim=0)
        advantage = (w_all - base_w[:, None, None, None]) / b_opt[:, None, None, None]
        per_stream = (probs * advantage).sum(dim=-1).sum(dim=(1, 2))
        entropy = -(probs * torch.log(probs + 1e-12)).sum(dim=-1).mean()
        objective = (weight * per_stream).sum() + c.entropy * entropy
        opt_pol.zero_grad()
        (-objective).backward()
        opt_pol.step()
        ratios = (opt / torch.clamp(alg, min=1e-12)).numpy()
        log.iteration.append(it)
        log.worst_ratio.append(float(ratios.max()))
        log.mean_ratio.append(float(ratios.mean()))
        log.archive_worst.append(float(1.0 / max(a_pay[keep].min(), 1e-12)))
        if log_every and it % log_every == 0 and progress:
            progress(f"iteration {it}: adversary batch worst OPT/ALG {ratios.max():.3f}, "
                     f"archive worst {log.archive_worst[-1]:.3f}", it / c.iterations)
    log.seconds = time.perf_counter() - start
    log.worst_streams = (archive_v, archive_d)
    return PricingPolicy.from_torch(c, policy), log


def per_round_rollouts(level_fn, values, demands, grid, c: TrainConfig):
    """The per-round update's rollouts, all in one vectorized simulation.

    ``level_fn(z (N, m), t_frac (N,)) -> (N, m)`` posted levels of the current policy; ``values``
    (B, T) and ``demands`` (B, T, m) float64 tensors; ``grid`` the (A,) levels. Returns the
    deployed welfare (B,), the deployed utilizations before every round (B, T, m), and
    ``W[b, t, i, a]``: the welfare of stream b when round t's price of resource i is forced to
    level a and every other price is the policy's (history before t is the deployed one, since the
    policy is deterministic).
    """
    torch = _torch()
    b, t_len, m = demands.shape
    a_len = grid.shape[0]
    span = c.upper / c.lower
    bb, tt, ii, aa = torch.meshgrid(torch.arange(b), torch.arange(t_len), torch.arange(m), torch.arange(a_len),
                                    indexing="ij")
    bb, tt, ii, aa = bb.reshape(-1), tt.reshape(-1), ii.reshape(-1), aa.reshape(-1)
    n = bb.shape[0]
    z = torch.zeros(n + b, m, dtype=torch.float64)
    w = torch.zeros(n + b, dtype=torch.float64)
    zs_base = torch.zeros(b, t_len, m, dtype=torch.float64)
    rows = torch.cat([bb, torch.arange(b)])
    force_t = torch.cat([tt, torch.full((b,), -1)])
    for t in range(t_len):
        zs_base[:, t] = z[n:]
        lev = level_fn(z, torch.full((n + b,), min(t / c.horizon, 1.0), dtype=torch.float64)).clone()
        hit = (force_t == t).nonzero(as_tuple=True)[0]
        lev[hit, ii[hit]] = grid[aa[hit]]
        price = c.lower * span ** lev
        d = demands[rows, t]
        worth = values[rows, t] * d.sum(dim=1)
        ok = (worth >= (price * d).sum(dim=1)) & torch.all(z + d <= 1.0 + 1e-12, dim=1)
        z = z + ok[:, None] * d
        w = w + ok * worth
    return w[n:], zs_base, w[:n].reshape(b, t_len, m, a_len)


def _deployed_welfare(deployed_levels, values, demands, c: TrainConfig):
    torch = _torch()
    b, t_len, m = demands.shape
    z = torch.zeros(b, m, dtype=torch.float64)
    w = torch.zeros(b, dtype=torch.float64)
    span = c.upper / c.lower
    for t in range(t_len):
        price = c.lower * span ** deployed_levels(z, torch.full((b,), min(t / c.horizon, 1.0), dtype=torch.float64))
        d = demands[:, t]
        worth = values[:, t] * d.sum(dim=1)
        ok = (worth >= (price * d).sum(dim=1)) & torch.all(z + d <= 1.0 + 1e-12, dim=1)
        z = z + ok[:, None] * d
        w = w + ok * worth
    return w
