"""``commit-rate``: ADSP's commit-rate control for heterogeneous workers (time to target loss).

ADSP (Hu et al., AAAI 2020, arXiv 1911.06949; code joapolarbear/adsp, no licence -- cited, never
copied): workers train without waiting and commit ``C`` times per check period whatever their
speed; the PS searches ``C`` online by fitting ``l(t) = 1/(a^2 t + b) + c``. Methods:
``adsp-search`` (reconstruction of ``onlineSearch1Min``), ``exhaustive`` (the best constant ``C``
by enumeration), baselines ``bsp``, ``ssp``, ``fixed``. See ``optsched/problems/commit_rate/README.md``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import HETEROGENEITY_LEVELS, PRESETS, generate, tiny_instances
from .instance import CommitRateInstance, check
from .problem import PROBLEM
from .simulate import simulate

__all__ = ["PROBLEM", "CommitRateInstance", "check", "generate", "simulate", "tiny_instances", "PRESETS",
           "HETEROGENEITY_LEVELS"]
