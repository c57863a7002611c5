"""``rar-online``: online scheduling of elastic ring-all-reduce jobs with utilities
(``optsched/problems/rar_online/README.md``; GADGET, INFOCOM'22: only its abstract is public, so ``gadget`` is a
reconstruction). Methods: ``gadget`` (posted prices, DP best response, greedy ring embedding;
empirical, no registered guarantee), ``fifo`` and ``tiresias-las`` (baselines on the shared
simulator), ``milp`` (offline optimum, small instances) and ``lp`` (its relaxation, an upper bound).
Network: flat server uplinks, or a graph (``links``) with fixed routes between servers.
Docs: ``optsched/problems/rar_online/README.md#rar-online``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import PRESETS, generate, load_gavel_online
from .instance import OnlineJob, RarOnlineInstance, Utility, check
from .methods import THEOREM_G
from .model import build_model
from .problem import PROBLEM

__all__ = [
    "PRESETS",
    "THEOREM_G",
    "RarOnlineInstance",
    "OnlineJob",
    "Utility",
    "PROBLEM",
    "generate",
    "check",
    "build_model",
    "load_gavel_online",
]
