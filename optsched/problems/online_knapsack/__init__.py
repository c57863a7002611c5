"""``online-knapsack``: online pricing of one resource (spec ``online.md``, second part).

Requests with demand in (0, eps] and unit value in [L, U] arrive one at a time; a posted-price
algorithm serves a request iff its value reaches the price and it fits. Methods: ``threshold``
(online, finite-eps guarantee proven in ``docs/online.md#threshold``), ``fixed-price`` and
``greedy`` (online baselines), ``milp`` (exact hindsight knapsack), ``lp`` (bound), ``brute``
(exact, tests). :mod:`.adversary` adapts the problem to :mod:`optsched.online.adversary`.
"""

from __future__ import annotations

from optsched.core.registry import Guarantee, Option, Problem, register_problem

from . import algorithms
from .algorithms import BRUTE_MAX_REQUESTS, build_model, threshold_bound
from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, OnlineKnapsackInstance, check

__all__ = ["OnlineKnapsackInstance", "PROBLEM", "generate", "check", "build_model", "threshold_bound"]

PROBLEM = register_problem(Problem(
    name="online-knapsack",
    title="online knapsack pricing of one resource (welfare)",
    sense="max",
    instance_type=OnlineKnapsackInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="online.md (online resource allocation and pricing)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "requests": Option(int, 60, "number of requests n"),
        "lower": Option(float, 1.0, "smallest unit value L (> 0)"),
        "upper": Option(float, 16.0, "largest unit value U (>= L)"),
        "eps": Option(float, 0.05, "largest demand eps, in (0, 1]"),
        "values": Option(str, "log-uniform", "value shape: log-uniform, uniform or increasing"),
    },
    build_model=build_model,
    default_method="milp",
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
))


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
        source="ours", proof="docs/online.md#threshold", applies=_threshold_applies),
)(algorithms.threshold)
PROBLEM.method("fixed-price", kind="baseline", fidelity="ours",
               summary="post the price sqrt(L U) to every request (no guarantee)")(algorithms.fixed_price)
PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="serve every request that fits (no guarantee)")(algorithms.greedy)
PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="hindsight 0-1 knapsack on the chosen back-end (mip_rel_gap = 0)")(algorithms.milp)
PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True,
               summary="LP relaxation (fractional knapsack): an upper bound on OPT")(algorithms.lp_bound)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate all subsets (n <= {BRUTE_MAX_REQUESTS}; for tests)",
               applicable=lambda inst: (inst.num_requests <= BRUTE_MAX_REQUESTS,
                                        f"n = {inst.num_requests} requests, brute needs n <= {BRUTE_MAX_REQUESTS}"),
               )(algorithms.brute)

from . import learned as _learned  # noqa: E402  (registers "learned"; see learned.py)

_learned.register(PROBLEM)
