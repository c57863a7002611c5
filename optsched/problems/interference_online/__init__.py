"""``interference-online``: online gang placement with co-location interference (average JCT).

The online side of the MARL interference-aware scheduler (Zhao & Wu, arXiv 2112.13354; docs
``optsched/problems/interference_online/README.md#online``): jobs of a Philly-derived Gavel trace arrive, run at their
interference-adjusted rate on the shared simulator, and a policy places them. Methods:
``fifo-pack`` (baseline), ``least-interference`` (default), ``tiresias-las`` and ``gandiva-pack``
(practitioners' baselines, adapted), ``sjf-least-interference`` (duration-aware reference),
``milp-per-event`` (rolling MILP), ``marl`` (learned multi-agent scheduler over a hierarchical
GPU -> server -> rack encoder, reconstruction; numpy inference, jax training) and ``lb`` (bound).
See ``optsched/problems/interference_online/README.md``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import PRESETS, compress, generate, load_gavel_online, load_gavel_window, tiny_instances
from .instance import OnlineInstance, OnlineJob, check
from .problem import PROBLEM

__all__ = ["PROBLEM", "OnlineInstance", "OnlineJob", "check", "generate", "load_gavel_online", "load_gavel_window", "compress",
           "tiny_instances", "PRESETS"]
