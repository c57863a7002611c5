"""``pipeline-graph``: partition a whole layer DAG into pipeline stages with replication.

A stage is the difference of two nested down-sets of the DAG (PipeDream's antichain state space);
the objective is a bottleneck: optsched's ``bottleneck`` cost model or PipeDream's own planner
cost (``pipedream``, optionally with its transfer term). Methods: ``antichain-dp`` (exact, every
down-set), ``chain-dp`` (optsched's one-path linearization), ``pipedream`` (PipeDream's planner,
[code]), ``brute`` (tests). Guarantee of ``antichain-dp``: ALG <= OPT (1 + 1e-9) over every
plan whose cuts are down-sets (proof in ``optsched/problems/pipeline_graph/README.md``); O(S w N^2) per probe for S
down-sets of width w.

>>> import optsched
>>> diamond = PipelineGraphInstance(objective="pipedream", workers=2, bandwidth=1e9,
...     layer_names=("a", "b", "c", "d"), forward_s=(1.0, 1.0, 1.0, 1.0), backward_s=(1.0, 1.0, 1.0, 1.0),
...     parameter_bytes=(1e8, 1e8, 1e8, 1e8), activation_bytes=(0.0, 0.0, 0.0, 0.0),
...     edges=((0, 1), (0, 2), (1, 3), (2, 3)))
>>> r = optsched.solve(diamond, "antichain-dp")
>>> r.status, r.objective, r.solution
('optimal', 4.0, {'stages': [[0, 1], [2, 3]], 'replicas': [1, 1]})

Reference: PipeDream (Narayanan et al., SOSP 2019) and its planner, github.com/msr-fiddle/pipedream.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import from_pipedream, generate, random_dag
from .instance import PipelineGraphInstance, check
from .problem import PROBLEM

__all__ = ["PipelineGraphInstance", "PROBLEM", "generate", "random_dag", "from_pipedream", "check"]
