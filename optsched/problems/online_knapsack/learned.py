"""``learned``: a posted-price policy trained against a learned adversary [reconstruction].

The policy network and its training (:mod:`optsched.online.learned`, after Du, Huang & Wu,
arXiv 2111.10285) are shared with ``online-packing``. This module holds the one-resource policies
used by the registered method: one per U/L in :data:`TRAINED_RATIOS`, stored as small JSON files in
``weights/`` that are produced *only* by :func:`regenerate` (seeded; run
``python -m optsched.problems.online_knapsack.learned`` to rewrite them; a slow test checks that
regeneration reproduces the stored files). Nothing is downloaded.

An instance with another U/L uses the policy trained for the nearest ratio (in log scale), applied
on the instance's own log-price scale ``L (U / L)^u``; the result's stats name the policy used.

Guarantee: none (empirical). Its worst case found by :mod:`optsched.online.adversary` is reported
in ``docs/online.md`` and by ``paper_repro/t15_learned_online.py``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError
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


def training_config(ratio: float, *, seed: int = SEED, iterations: int = 300) -> TrainConfig:
    """The configuration of the bundled one-resource policy for ``U / L = ratio`` (L = 1)."""
    return TrainConfig(resources=1, lower=1.0, upper=float(ratio), eps=0.1, horizon=20, levels=13, batch=12,
                       archive=12, iterations=iterations, seed=seed)


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
                    extra={"seconds": round(log.seconds, 1), "final_archive_worst": log.archive_worst[-1],
                           "generated_by": "optsched.problems.online_knapsack.learned.regenerate"})
        logs[ratio] = log
    bundled_policy.cache_clear()
    return logs


@lru_cache(maxsize=None)
def bundled_policy(ratio: int) -> PricingPolicy:
    path = weights_path(ratio)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run python -m optsched.problems.online_knapsack.learned")
    return PricingPolicy.load(path)


def nearest_ratio(lower: float, upper: float) -> int:
    r = upper / lower
    return min(TRAINED_RATIOS, key=lambda k: (abs(math.log(k) - math.log(r)), k))


def learned(instance: OnlineKnapsackInstance, ctx: SolveContext) -> Outcome:
    """Post the learned policy's price before each request [reconstruction; no guarantee].

    The state is the utilization and the round; the deployed price is the expected level of the
    policy network on the instance's log-price scale (see :mod:`optsched.online.learned`).
    Option ``weights``: a JSON file written by :meth:`PricingPolicy.save` (default: the bundled
    policy for the nearest U / L).

    Complexity: O(n h^2) for n requests and hidden width h.

    >>> import optsched
    >>> inst = optsched.generate("online-knapsack", seed=0, preset="small")
    >>> r = optsched.solve(inst, "learned")
    >>> r.status, r.stats["policy"]
    ('feasible', 'bundled U/L = 16')
    """
    path = ctx.options.get("weights") or ""
    if path:
        try:
            policy = PricingPolicy.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidInstanceError(instance.problem, "option weights", f"cannot load a policy: {exc}", path) from None
        if policy.config.resources != 1:
            raise InvalidInstanceError(instance.problem, "option weights", "the policy is for "
                                       f"{policy.config.resources} resources, online-knapsack has 1", path)
        name = str(path)
    else:
        ratio = nearest_ratio(instance.lower, instance.upper)
        policy, name = bundled_policy(ratio), f"bundled U/L = {ratio}"
    counter = iter(range(instance.num_requests + 1))

    def price(z: float) -> float:
        t = next(counter)
        return float(policy.price_for(instance.lower, instance.upper, np.array([[z]]), t)[0, 0])

    out = post_prices(instance, price)
    out.status = "feasible"
    out.stats["policy"] = name
    return out


def register(problem) -> None:
    """Register ``learned`` on the online-knapsack problem (called once by the package)."""
    problem.method("learned", kind="online", fidelity="reconstruction",
                   summary="posted price from a policy network trained against an adversary network "
                           "(per-round update; Du-Huang-Wu 2022 reconstruction; empirical)",
                   options={"weights": Option(str, "", "policy JSON (default: the bundled policy for the nearest U/L)")},
                   )(learned)


if __name__ == "__main__":  # pragma: no cover - the seeded script that writes weights/
    import sys

    regenerate(progress=lambda m, f: print(m, file=sys.stderr, flush=True))
    print(f"wrote {', '.join(str(weights_path(r)) for r in TRAINED_RATIOS)}")
