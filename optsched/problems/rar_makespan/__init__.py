"""``rar-makespan``: offline makespan of ring-all-reduce jobs under contention
(``optsched/problems/rar_makespan/README.md``; MobiHoc'22, read in full).

Methods: ``sjf-bco`` [paper] with Theorem 5's bound, baselines ``ff``, ``ls``, ``random`` [paper],
``milp`` (contention-free time-indexed MILP: a lower bound on OPT, kind ``bound``) and ``brute``
(exact over every plan of the solution schema; tiny instances). Docs: ``optsched/problems/rar_makespan/README.md``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import PRESETS, generate, load_gavel_rar, load_tiresias_rar
from .instance import RarJob, RarMakespanInstance, check, simulate
from .methods import THEOREM5
from .model import build_model
from .problem import PROBLEM

__all__ = [
    "PRESETS",
    "RarJob",
    "RarMakespanInstance",
    "PROBLEM",
    "generate",
    "check",
    "simulate",
    "build_model",
    "load_gavel_rar",
    "load_tiresias_rar",
    "THEOREM5",
]
