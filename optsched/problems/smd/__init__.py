"""``smd``: parameter-server resource allocation as a sum of ratios (docs ``optsched/problems/smd/README.md``).

Yu, Wu, Ji, Liu, "A Sum-of-Ratios Multi-Dimensional-Knapsack Decomposition for DNN Resource
Scheduling", IEEE INFOCOM 2021 (arXiv 2105.13855). Each job gets (workers, parameter servers)
from pooled capacities or is deferred; its completion time follows from its layer profile
(:mod:`optsched.workloads.layer_timing`). Formulation [ours] consistent with the paper's abstract.

Methods: ``milp`` and ``brute`` (exact), ``lp`` (bound), ``lp-round`` (additive guarantee when
every job is deferrable, [ours]), ``smd`` (reconstruction of the sum-of-ratios outer loop, with a
certified bound and ALG <= (1 + target_gap) OPT from our branch and bound [ours]), baselines ``one-to-one``,
``optimus-greedy``, ``drf``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import build_model
from .generate import generate
from .instance import SmdInstance, SmdJob, check
from .problem import PROBLEM

__all__ = ["SmdInstance", "SmdJob", "PROBLEM", "generate", "check", "build_model"]
