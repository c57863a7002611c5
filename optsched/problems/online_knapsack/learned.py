"""``learned``: a posted-price policy trained against adversaries [reconstruction; robust variant ours].

The policy network and its training (:mod:`optsched.online.learned`, after Du, Huang & Wu,
arXiv 2111.10285; trained with jax, deployed in numpy) are shared with the m-resource packing problem. The
bundled one-resource policies are the robust variant (:func:`training_config`): fitted to the
minimax LP's price curve, then per-round updates against the adversary network and the certified
adversary (:mod:`optsched.online.certified`), no round feature, the best iterate kept. This module holds the one-resource policies
used by the registered method: one per U/L in :data:`TRAINED_RATIOS`, stored as small JSON files in
``weights/`` that are produced *only* by :func:`regenerate` (seeded; run
``python -m optsched.problems.online_knapsack.learned`` to rewrite them; a slow test checks that
regeneration reproduces the stored files). Nothing is downloaded.

The bundled policy for an instance's U/L (one of :data:`TRAINED_RATIOS`) is applied on the
instance's own log-price scale ``L (U / L)^u``; the result's stats name the policy used. Any other
U/L is refused (:class:`~optsched.core.errors.NotApplicable`, naming U/L and the trained values)
unless a policy file is given as option ``weights``: a policy trained for another ratio is not a
policy for this one (the U/L = 4 policy at U/L = 2 does worse than serving everything).

Guarantee: none (empirical). Its worst case found by the certified adversary (and by the search
and learned adversaries) is reported in ``optsched/problems/online_knapsack/README.md`` and by
table T15 (``optsched/problems/online_knapsack/repro_t15.py``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidOptionError, NotApplicable
from optsched.core.registry import Option, Outcome
from optsched.core.solving import SolveContext
from optsched.online.learned import PricingPolicy, TrainConfig, train_pricing

from .algorithms import post_prices
from .instance import OnlineKnapsackInstance

__all__ = ["TRAINED_RATIOS", "WEIGHTS_DIR", "training_config", "regenerate", "bundled_policy", "learned"]

#: U / L of the bundled policies
TRAINED_RATIOS = (4, 16, 64)
WEIGHTS_DIR = Path(__file__).with_name("weights")
#: the training seed of the bundled policies
SEED = 0
#: per-round updates of the bundled policies
ITERATIONS = 30


def training_config(ratio: float, *, seed: int = SEED, iterations: int = ITERATIONS) -> TrainConfig:
    """The configuration of the bundled one-resource policy for ``U / L = ratio`` (L = 1): the robust
    variant of :mod:`optsched.online.learned` [ours]: fitted to the minimax LP's price curve, then
    per-round updates against the adversary network and the certified adversary's streams
    (8-value staircase and tracking stream, demands 1/16), no round feature, the iterate with the
    smallest certified ratio on a 50-value staircase with demands 1/32 kept."""
    return TrainConfig(resources=1, lower=1.0, upper=float(ratio), eps=1 / 16, horizon=24, levels=13, batch=12,
                       archive=12, iterations=iterations, seed=seed, policy_lr=3e-4, round_feature=False,
                       init="lp", certified=True, certified_grid=8, certified_copies=16, select="best",
                       top_level=True, select_grid=50, select_copies=32)


def weights_path(ratio: float) -> Path:
    return WEIGHTS_DIR / f"pricing-1r-U{int(ratio)}.json"


def regenerate(ratios=TRAINED_RATIOS, *, seed: int = SEED, directory: Path | None = None, progress=None) -> dict:
    """Train the bundled policies (seeded) and write them; returns ``{ratio: TrainLog}``."""
    directory = Path(directory) if directory else WEIGHTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    logs = {}
    for ratio in ratios:
        policy, log = train_pricing(training_config(ratio, seed=seed), log_every=50 if progress else 0,
                                    progress=progress)
        policy.save(directory / weights_path(ratio).name,
                    extra={"final_archive_worst": log.archive_worst[-1], "selected_iteration": log.selected,
                           "selection_score": min(log.select_score) if log.select_score else None,
                           "generated_by": "optsched.problems.online_knapsack.learned.regenerate (jax)"})
        logs[ratio] = log
    bundled_policy.cache_clear()
    return logs


@lru_cache(maxsize=None)
def bundled_policy(ratio: int) -> PricingPolicy:
    path = weights_path(ratio)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run python -m optsched.problems.online_knapsack.learned")
    return PricingPolicy.load(path)


#: relative tolerance on U/L when matching a trained ratio: admits the rounding of ``upper / lower``
#: only (e.g. 1.6 / 0.1 = 16.000000000000004), not a nearby ratio
RATIO_RTOL = 1e-9


def trained_ratio(lower: float, upper: float, problem: str = "online-knapsack") -> int:
    """The trained U/L equal to ``upper / lower``; :class:`NotApplicable` for any other ratio.

    >>> trained_ratio(0.5, 8.0)
    16
    >>> trained_ratio(1.0, 2.0)
    Traceback (most recent call last):
    ...
    optsched.core.errors.NotApplicable: online-knapsack: field '(method)': method 'learned' does not apply to this instance: U/L = 2 is not a trained ratio: the bundled policies serve U/L = 4, 16, 64 only (give a policy for U/L = 2 as option weights)
    """
    r = upper / lower
    for k in TRAINED_RATIOS:
        if math.isclose(r, k, rel_tol=RATIO_RTOL):
            return k
    raise NotApplicable(problem, "learned", f"U/L = {r:g} is not a trained ratio: the bundled policies serve "
                                            f"U/L = {', '.join(map(str, TRAINED_RATIOS))} only (give a policy "
                                            f"for U/L = {r:g} as option weights)")


def policy_from_options(lower: float, upper: float, options, problem: str = "online-knapsack"):
    """The policy the method uses: the option ``weights`` (a JSON file) or the bundled one for the
    instance's U / L (:class:`NotApplicable` if U / L is not one of :data:`TRAINED_RATIOS`); returns
    ``(policy, name)``."""
    path = (options or {}).get("weights") or ""
    if path:
        try:
            policy = PricingPolicy.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidOptionError(problem, "option weights", f"cannot load a policy: {exc}", path) from None
        if policy.config.resources != 1:
            raise InvalidOptionError(problem, "option weights", "the policy is for "
                                       f"{policy.config.resources} resources, online-knapsack has 1", path)
        return policy, str(path)
    ratio = trained_ratio(lower, upper, problem)
    return bundled_policy(ratio), f"bundled U/L = {ratio}"


#: requests between two clock reads of ``learned`` (a forward pass is about 0.1 ms) [ours]
POLL_REQUESTS = 1024


def learned(instance: OnlineKnapsackInstance, ctx: SolveContext) -> Outcome:
    """Post the learned policy's price before each request [reconstruction; no guarantee].

    The state is the utilization (and the round, for a policy trained with ``round_feature``); the
    deployed price is the expected level of the
    policy network on the instance's log-price scale (see :mod:`optsched.online.learned`).
    Option ``weights``: a JSON file written by :meth:`PricingPolicy.save` (default: the bundled
    policy for the instance's U / L, which must be one of :data:`TRAINED_RATIOS`).

    Complexity: O(n h^2) for n requests and hidden width h; the clock is read every
    :data:`POLL_REQUESTS` requests (a run stopped there has no plan: ``time_limit``).

    >>> import optsched
    >>> inst = optsched.generate("online-knapsack", seed=0, preset="small")
    >>> r = optsched.solve(inst, "learned")
    >>> r.status, r.stats["policy"]
    ('feasible', 'bundled U/L = 16')
    """
    policy, name = policy_from_options(instance.lower, instance.upper, ctx.options, problem=instance.problem)
    counter = iter(range(instance.num_requests + 1))

    def price(z: float) -> float:
        t = next(counter)
        if not t % POLL_REQUESTS:  # about 0.1 s of forward passes between clock reads
            ctx.check_time()
        return float(policy.price_for(instance.lower, instance.upper, np.array([[z]]), t)[0, 0])

    out = post_prices(instance, price)
    out.status = "feasible"
    out.stats["policy"] = name
    return out


def register(problem) -> None:
    """Register ``learned`` on the online-knapsack problem (called once by the package)."""
    problem.method("learned", kind="online", fidelity="reconstruction",
                   summary="posted price from a policy network trained against an adversary network and the "
                           "certified adversary, from the minimax LP's price curve (per-round update; Du-Huang-Wu "
                           "2022 reconstruction, robust variant ours; empirical)",
                   options={"weights": Option(str, "", "policy JSON (default: the bundled policy "
                                                     "for the instance's U/L, one of 4, 16, 64)")},
                   )(learned)


if __name__ == "__main__":  # pragma: no cover - the seeded script that writes weights/
    import sys

    regenerate(progress=lambda m, f: print(m, file=sys.stderr, flush=True))
    print(f"wrote {', '.join(str(weights_path(r)) for r in TRAINED_RATIOS)}")
