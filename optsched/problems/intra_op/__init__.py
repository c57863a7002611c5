"""``intra-op``: intra-operator sharding -- one strategy (SBP signature) per operator.

Minimize node costs plus the resharding costs of every edge's strategy pair, subject to a memory
limit at every time step over the nodes' live intervals (OneFlow's SBP selection [code], the
Alpa / TePDist / XLA auto-sharding ILP, and the ASPLOS/EuroSys 2025 IOPDDL contest;
docs ``optsched/problems/intra_op/README.md``).

Methods: ``milp`` (exact), ``lp`` (bound), ``brute`` (exact, tiny), ``dp`` (elimination DP:
exact on series-parallel graphs when memory does not bind), ``oneflow`` (elimination + greedy
[code] with a memory repair), ``lp-round``, ``local-search`` (heuristics), and the baselines
``greedy``, ``replicated``, ``data-parallel``. Importer ``iopddl``; contest solutions through
:func:`export_iopddl_solution`.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .elimination import eliminate
from .generate import (
                       PRESETS,
                       export_iopddl_solution,
                       generate,
                       load_iopddl,
                       sbp_instance,
                       tiny_instances,
                       transfer_cost,
                       write_iopddl_solution,
)
from .instance import FORBIDDEN, IntraOpInstance, check
from .model import build_model
from .problem import PROBLEM

__all__ = ["PROBLEM", "IntraOpInstance", "check", "generate", "load_iopddl", "export_iopddl_solution",
           "write_iopddl_solution", "build_model", "eliminate", "sbp_instance", "transfer_cost", "PRESETS",
           "tiny_instances", "FORBIDDEN"]
