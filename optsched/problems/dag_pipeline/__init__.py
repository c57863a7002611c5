"""``dag-pipeline``: pipeline stages of an operator DAG (Rhino / TePDist's stage ILP), documented in
this project's ``optsched/problems/dag_pipeline/README.md``.

Assign each operator a stage (precedence, no empty stage, optional per-stage compute budget)
minimizing the bytes cut (Rhino), or the chain partition's bottleneck / synchronous estimate with one
device per stage. Methods: ``milp`` (exact), ``brute`` (tiny), ``order-dp`` (chain DP over a
topological order; exact on chains), baseline ``greedy-balance``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import order_dp
from .generate import from_operator_graph, generate
from .instance import DagPipelineInstance, check, plan_values
from .model import build_model, stage_window
from .problem import PROBLEM

__all__ = ["PROBLEM", "DagPipelineInstance", "check", "plan_values", "generate", "from_operator_graph",
           "build_model", "stage_window", "order_dp"]
