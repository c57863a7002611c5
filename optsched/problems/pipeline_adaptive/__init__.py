"""``pipeline-adaptive``: the kFkB group size before every iteration of a pipeline trained under
network preemption (Ada-Grouper, arXiv 2303.01675; model [ours]; docs ``optsched/problems/pipeline_adaptive/README.md``).

A policy evaluated by simulation, registered as methods whose checker re-simulates the chosen
group sizes: ``ada-grouper`` (online, reconstruction), ``fixed`` (1F1B or any fixed group size),
``oracle`` (clairvoyant reference), ``brute`` (exact, tiny) and ``lb`` (a lower bound).
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .adagrouper import (
                         AdaGrouperSetting,
                         AdaptivePolicy,
                         BandwidthTrace,
                         FixedPolicy,
                         OraclePolicy,
                         example_setting,
                         preemption_trace,
                         run_policy,
)
from .generate import PRESETS, generate
from .instance import PipelineAdaptiveInstance, check, replay
from .problem import PROBLEM

__all__ = ["PROBLEM", "PRESETS", "PipelineAdaptiveInstance", "generate", "check", "replay", "AdaGrouperSetting",
           "AdaptivePolicy", "BandwidthTrace", "FixedPolicy", "OraclePolicy", "example_setting",
           "preemption_trace", "run_policy"]
