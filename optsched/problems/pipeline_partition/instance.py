"""The ``pipeline-partition`` instance type, solution schema and checker: the chain-partition plan
format of the shared layer (:mod:`optsched.pipeline.partition.instance`), which
schedules read too; re-exported here under the folder's usual file name."""

from __future__ import annotations

from optsched.pipeline.partition.instance import (ARRAYS, OBJECTIVE, SOLUTION_SCHEMA, PipelinePartitionInstance,
                                                  check, objective_value)

__all__ = ["PipelinePartitionInstance", "check", "objective_value", "OBJECTIVE", "SOLUTION_SCHEMA", "ARRAYS"]

#: the objective's unit, printed after its value by ``optsched solve`` (seconds per microbatch for
#: bottleneck, seconds of the iteration for sync-estimate and sync)
OBJECTIVE_UNIT = "s"
