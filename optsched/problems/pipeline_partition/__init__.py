"""``pipeline-partition``: cut a DNN's chain into pipeline stages, replicate them and map them to
devices of an arbitrary device graph (docs ``optsched/problems/pipeline_partition/README.md``).

Methods: ``milp``, ``dp``, ``subset-dp`` and ``bisect`` (exact, each within its stated scope),
``order-dp`` (device-order heuristic + dp), and the public planners as baselines: ``uniform``,
``param-balanced``, ``time-balanced``, ``pipedream``, ``dapple``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import from_profile, generate
from .instance import PipelinePartitionInstance, check
from .model import build_model
from .problem import PROBLEM, import_pipedream_profile

__all__ = [
    "PipelinePartitionInstance",
    "PROBLEM",
    "generate",
    "from_profile",
    "check",
    "build_model",
    "import_pipedream_profile",
]
