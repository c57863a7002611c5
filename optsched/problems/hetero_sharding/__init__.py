"""``hetero-sharding``: HAP's heterogeneous SPMD model (docs
``optsched/problems/hetero_sharding/README.md``).

Minimize sum over stages of (max-device compute time + max-device communication time) over one
option per stage (the program) and per-segment sharding ratios on the simplex. Methods:
``milp`` (joint MILP, McCormick, exact), ``brute`` (programs x ratio LP, exact on small
programs), ``ratio-lp`` (HAP's LP for a fixed program), ``alternate`` (HAP's alternation),
``milp-round`` (integer shard sizes, additive bound), baselines ``proportional`` and ``even``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import alternate, largest_remainder, rounding_bound
from .generate import (
                       HAP_BANDWIDTH,
                       HAP_CONFIG,
                       HAP_DEVICE_FLOPS,
                       gavel_device_flops,
                       generate,
                       operator_graph_program,
                       transformer_program,
)
from .instance import (
                       Bandwidths,
                       Collective,
                       HeteroShardingInstance,
                       Stage,
                       StageOption,
                       check,
                       plan_cost,
)
from .model import Quirks, build_model, build_ratio_lp
from .problem import PROBLEM

__all__ = ["PROBLEM", "HeteroShardingInstance", "Stage", "StageOption", "Collective", "Bandwidths", "check",
           "plan_cost", "generate", "transformer_program", "operator_graph_program", "gavel_device_flops",
           "build_model", "build_ratio_lp", "Quirks", "alternate", "largest_remainder", "rounding_bound",
           "HAP_BANDWIDTH", "HAP_CONFIG", "HAP_DEVICE_FLOPS"]
