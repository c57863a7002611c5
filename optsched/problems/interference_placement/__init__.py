"""``interference-placement``: gang placement of waiting jobs with pairwise co-location slowdowns.

A snapshot of the MARL interference-aware scheduler's decision (Zhao & Wu, arXiv 2112.13354;
docs ``optsched/problems/interference_placement/README.md``): place waiting jobs on servers' free GPUs, next to running residents,
minimizing a JCT proxy (isolated run time times the linearized slowdown, a spread penalty, and a
rejection cost). Methods: ``milp`` (exact, reconstruction), ``brute`` (tests), ``least-interference``
(heuristic), ``pack`` and ``spread`` (baselines). See ``optsched/problems/interference_placement/README.md``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import PRESETS, generate, load_gavel_snapshot, tiny_instances
from .instance import PlacementInstance, PlacementJob, Resident, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "PlacementInstance", "PlacementJob", "Resident", "check", "generate",
           "load_gavel_snapshot", "tiny_instances", "PRESETS"]
