"""``pipeline-graph``: partition a whole layer DAG into pipeline stages with replication.

A stage is the difference of two nested down-sets of the DAG (PipeDream's antichain state space);
the objective is a bottleneck: optsched's ``bottleneck`` cost model or PipeDream's own planner
cost (``pipedream``, optionally with its transfer term). Methods: ``antichain-dp`` (exact, every
down-set), ``chain-dp`` (optsched's one-path linearization), ``pipedream`` (PipeDream's planner,
[code]), ``brute`` (tests).
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import from_pipedream, generate, random_dag
from .instance import PipelineGraphInstance, check
from .problem import PROBLEM

__all__ = ["PipelineGraphInstance", "PROBLEM", "generate", "random_dag", "from_pipedream", "check"]
