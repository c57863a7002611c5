"""``ps-locality``: worker/PS placement with locality (docs ``optsched/problems/ps_locality/README.md``; Yu, Liu, Wu, Ji,
Bentley, IEEE TNSE 2022, arXiv 2108.02917).

Methods: ``milp`` (exact), ``lp`` and ``lower-bound`` (bounds), ``rr`` (randomized rounding with
optsched's pre-repair packing theorem, probabilistic), ``online-rr`` (rolling horizon on the
event simulator), baselines ``fifo-locality`` and ``drf``. Documentation: ``optsched/problems/ps_locality/README.md``.
"""

from __future__ import annotations

from . import (
    algorithms,
    methods,  # noqa: F401  (registers the methods)
)
from .generate import generate, offered_load
from .instance import PsLocalityInstance, check
from .model import build_ip
from .problem import PROBLEM
from .trace import load_philly_trace

__all__ = [
    "algorithms",
    "PsLocalityInstance",
    "PROBLEM",
    "generate",
    "offered_load",
    "load_philly_trace",
    "check",
    "build_ip",
]
