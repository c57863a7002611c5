"""``stage-cores``: integer CPU cores per preprocessing stage (BGL's resource isolation; docs
``optsched/problems/stage_cores/README.md``).

Maximize the slowest stage's throughput ``min_i r_i c_i`` with ``sum c_i <= C``. Methods: ``milp``,
``greedy`` (exact, marginal allocation), ``brute`` (tests); baselines ``equal``, ``proportional``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import brute_force, equal_split, greedy_bottleneck, proportional_split
from .generate import generate
from .instance import StageCoresInstance, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "StageCoresInstance", "check", "generate", "greedy_bottleneck", "brute_force", "equal_split",
           "proportional_split", "methods"]
