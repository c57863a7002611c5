"""The multi-resource learned pricing policy of ``online-packing`` [reconstruction].

The shared network of :mod:`optsched.online.learned` maps one resource's state
``(z_i, round, mean utilization)`` to its price level (the round feature is off in the bundled
policy), so one trained policy prices any number of resources. The bundled policy
(``weights/pricing-2r-U16.json``) is the robust variant (:func:`training_config`) trained with m = 2
resources, U / L = 16, eps = 0.1 on 20-request adversary streams plus the certified adversary's
one-resource streams; it is written only by :func:`regenerate` (seeded, jax;
``python -m optsched.problems.online_packing.learned``). On other instances its levels are applied
on the instance's own scale ``L (U / L)^u``; the result's stats say so.

Guarantee: none (no closed-form competitive threshold is known for this multi-resource setting;
the worst case found by :mod:`optsched.online.adversary` is reported).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from optsched.core.errors import InvalidOptionError, NotApplicable
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext
from optsched.online.learned import PricingPolicy, TrainConfig, train_pricing

from .algorithms import post_prices
from .instance import OnlinePackingInstance

__all__ = ["training_config", "regenerate", "bundled_policy", "learned", "WEIGHTS_PATH", "TRAINED_RATIO",
           "check_trained_ratio"]

WEIGHTS_PATH = Path(__file__).with_name("weights") / "pricing-2r-U16.json"
SEED = 0
#: U / L of the bundled policy (its training configuration's ``upper / lower``; a test checks the
#: stored file says the same)
TRAINED_RATIO = 16
#: relative tolerance on U/L when matching the trained ratio: admits the rounding of ``upper / lower``
#: only (e.g. 1.6 / 0.1 = 16.000000000000004), not a nearby ratio
RATIO_RTOL = 1e-9


def training_config(*, seed: int = SEED, iterations: int = 10, resources: int = 2, ratio: float = 16.0) -> TrainConfig:
    """The configuration of the bundled multi-resource policy: the robust variant of
    :mod:`optsched.online.learned` [ours] (LP price curve start, certified one-resource streams in
    every batch, no round feature, best iterate kept), with m = 2 and demands up to 0.1 in the
    adversary network's streams."""
    return TrainConfig(resources=resources, lower=1.0, upper=float(ratio), eps=0.1, horizon=20, levels=13, batch=12,
                       archive=12, iterations=iterations, seed=seed, policy_lr=3e-4, round_feature=False, init="lp",
                       certified=True, certified_grid=10, certified_copies=16, select="best", top_level=True,
                       select_grid=50, select_copies=48)


def regenerate(*, seed: int = SEED, path: Path | None = None, progress=None):
    """Train the bundled policy (seeded) and write it; returns the training log."""
    path = Path(path) if path else WEIGHTS_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    policy, log = train_pricing(training_config(seed=seed), log_every=50 if progress else 0, progress=progress)
    policy.save(path, extra={"final_archive_worst": log.archive_worst[-1], "selected_iteration": log.selected,
                             "generated_by": "optsched.problems.online_packing.learned.regenerate (jax)"})
    bundled_policy.cache_clear()
    return log


def check_trained_ratio(lower: float, upper: float, problem: str = "online-packing") -> int:
    """The bundled policy's U/L if ``upper / lower`` equals it; :class:`NotApplicable` otherwise.

    >>> check_trained_ratio(0.5, 8.0)
    16
    >>> check_trained_ratio(1.0, 2.0)
    Traceback (most recent call last):
    ...
    optsched.core.errors.NotApplicable: online-packing: field '(method)': method 'learned' does not apply to this instance: U/L = 2 is not the trained ratio: the bundled policy serves U/L = 16 only (give a policy for U/L = 2 as option weights)
    """
    r = upper / lower
    if math.isclose(r, TRAINED_RATIO, rel_tol=RATIO_RTOL):
        return TRAINED_RATIO
    raise NotApplicable(problem, "learned", f"U/L = {r:g} is not the trained ratio: the bundled policy serves "
                                            f"U/L = {TRAINED_RATIO} only (give a policy for U/L = {r:g} as "
                                            "option weights)")


@lru_cache(maxsize=None)
def bundled_policy() -> PricingPolicy:
    if not WEIGHTS_PATH.exists():
        raise FileNotFoundError(f"{WEIGHTS_PATH} is missing: run python -m optsched.problems.online_packing.learned")
    return PricingPolicy.load(WEIGHTS_PATH)


#: requests between two clock reads of ``learned`` [ours]
POLL_REQUESTS = 1024


def learned(instance: OnlinePackingInstance, ctx: SolveContext) -> Outcome:
    """Post the learned per-resource prices before each request [reconstruction; no guarantee].

    Option ``weights``: a policy JSON (default: the bundled one, which serves U/L = 16 only: any
    other U/L raises :class:`~optsched.core.errors.NotApplicable`). Complexity O(n m h^2).

    >>> import optsched
    >>> r = optsched.solve(optsched.generate("online-packing", seed=0, preset="small"), "learned")
    >>> r.status
    'feasible'
    """
    path = ctx.options.get("weights") or ""
    if path:
        try:
            policy = PricingPolicy.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidOptionError(instance.problem, "option weights", f"cannot load a policy: {exc}", path) from None
    else:
        check_trained_ratio(instance.lower, instance.upper, instance.problem)
        policy = bundled_policy()
    def price(z, t):
        if not t % POLL_REQUESTS:  # about 0.1 s of forward passes between clock reads
            ctx.check_time()
        return policy.price_for(instance.lower, instance.upper, z[None, :], t)[0]

    out = post_prices(instance, price)
    out.status = "feasible"
    out.stats["policy"] = str(path) if path else f"bundled (m = 2, U/L = {TRAINED_RATIO})"
    return out


if __name__ == "__main__":  # pragma: no cover - the seeded script that writes weights/
    import sys

    regenerate(progress=lambda m, f: print(m, file=sys.stderr, flush=True))
    print(f"wrote {WEIGHTS_PATH}")
