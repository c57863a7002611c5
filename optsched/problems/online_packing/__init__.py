"""``online-packing``: online pricing of m resources with multi-dimensional demands [ours].

Requests with demands ``d_t in [0, eps]^m`` and a value density ``v_t in [L, U]`` (worth
``v_t sum_i d_ti``) arrive one at a time; a posted-price algorithm posts one price per resource and
serves a request iff its worth reaches the posted cost and it fits. Objective: welfare. Methods:
``threshold`` (per-resource threshold prices, no guarantee for m > 1), ``learned`` (policy network
trained against an adversary network; reconstruction of Du, Huang & Wu, arXiv 2111.10285),
``fixed-price`` and ``greedy`` (baselines), ``milp`` (exact hindsight), ``lp`` (bound), ``brute``
(exact, tests). :mod:`.adversary` adapts it to :mod:`optsched.online.adversary`.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import PRESETS, generate
from .instance import OnlinePackingInstance, check
from .problem import PROBLEM

__all__ = ["OnlinePackingInstance", "PROBLEM", "generate", "check", "PRESETS"]
