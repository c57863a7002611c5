"""The methods of ``online-knapsack``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.registry import Guarantee, size_limit

from . import algorithms
from .algorithms import BRUTE_MAX_REQUESTS, threshold_bound
from .instance import OnlineKnapsackInstance
from .problem import PROBLEM


def _threshold_applies(inst: OnlineKnapsackInstance) -> tuple[bool, str]:
    # one resource of capacity 1, the welfare objective, v in [L, U] and d <= eps hold for every
    # valid instance (validate() enforces them); the theorem needs eps < 1 in addition
    if inst.eps < 1:
        return True, "one resource, welfare, v in [L, U], d <= eps < 1"
    return False, "eps = 1: a request may fill the resource alone; the ratio is unbounded"

PROBLEM.method(
    "threshold", kind="online", fidelity="ours",
    summary="threshold pricing psi(z) = max(L, (L/e) e^(c z)), c = 1 + ln(U/L) (Zhou-Chakrabarty-Lukose 2008)",
    guarantee=Guarantee(
        form="multiplicative", sense=">=", value=lambda inst: threshold_bound(inst.lower, inst.upper, inst.eps),
        reference="OPT",
        statement="OPT <= max(c e^(2 c eps), e^(c eps) / (1 - eps)) * ALG, c = 1 + ln(U/L), for one resource "
                  "of capacity 1, welfare, v_t in [L, U], d_t <= eps < 1",
        source="ours", proof="optsched/problems/online_knapsack/README.md#threshold", applies=_threshold_applies),
)(algorithms.threshold)

PROBLEM.method("fixed-price", kind="baseline", fidelity="ours",
               summary="post the price sqrt(L U) to every request (no guarantee)")(algorithms.fixed_price)

PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="serve every request that fits (no guarantee)")(algorithms.greedy)

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="hindsight 0-1 knapsack on the chosen back-end (mip_rel_gap = 0)",
               applicable=size_limit(lambda inst: inst.num_requests, algorithms.MODEL_MAX_REQUESTS, "requests",
                                     "milp"))(algorithms.milp)

PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True,
               summary="LP relaxation (fractional knapsack): an upper bound on OPT",
               applicable=size_limit(lambda inst: inst.num_requests, algorithms.MODEL_MAX_REQUESTS, "requests",
                                     "lp"))(algorithms.lp_bound)

PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate all subsets (n <= {BRUTE_MAX_REQUESTS}; for tests)",
               applicable=size_limit(lambda inst: inst.num_requests, BRUTE_MAX_REQUESTS, "requests", "brute"),
               )(algorithms.brute)


from . import learned as _learned  # noqa: E402  (registers "learned"; see learned.py)

_learned.register(PROBLEM)
