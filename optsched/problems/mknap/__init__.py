"""``mknap``: the 0-1 multidimensional knapsack (docs ``optsched/problems/mknap/README.md``).

The special case of the SMD allocation problem with one item per job, and the external truth of
the OR-Library benchmark (``mknapcb*``, Chu & Beasley 1998). Methods: ``milp`` (exact), ``lp``
(bound), ``lp-round`` (ALG >= OPT / (m + 1), classical), ``greedy`` (baseline), ``brute`` (tests).
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import build_model
from .generate import generate
from .instance import MknapInstance, check
from .orlib import load_orlib
from .problem import PROBLEM

__all__ = ["MknapInstance", "PROBLEM", "generate", "load_orlib", "check", "build_model"]
