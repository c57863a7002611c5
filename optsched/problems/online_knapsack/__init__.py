"""``online-knapsack``: online pricing of one resource (docs ``optsched/problems/online_knapsack/README.md``).

Requests with demand in (0, eps] and unit value in [L, U] arrive one at a time; a posted-price
algorithm serves a request iff its value reaches the price and it fits. Methods: ``threshold``
(online, finite-eps guarantee proven in ``optsched/problems/online_knapsack/README.md#threshold``), ``fixed-price`` and
``greedy`` (online baselines), ``milp`` (exact hindsight knapsack), ``lp`` (bound), ``brute``
(exact, tests), ``learned`` (:mod:`.learned`). :mod:`.adversary` adapts the problem to
:mod:`optsched.online.adversary`; :mod:`.certified` runs the certified adversary
(:mod:`optsched.online.certified`: found ratio >= the minimax LP's, :mod:`.minimax`, for every online
method); :mod:`.average` gives average-case ratios on random and trace-derived streams.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import build_model, threshold_bound
from .generate import generate
from .instance import OnlineKnapsackInstance, check
from .problem import PROBLEM

__all__ = ["OnlineKnapsackInstance", "PROBLEM", "generate", "check", "build_model", "threshold_bound"]
