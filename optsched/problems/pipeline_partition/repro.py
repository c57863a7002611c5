"""This problem's experiments for ``optsched repro``: T5 (partition and device mapping on
PipeDream profiles) and T17 (partition + mapping on published topologies)."""

from optsched.problems.pipeline_partition.repro_t17 import EXPERIMENT as T17
from optsched.problems.pipeline_partition.repro_t5 import EXPERIMENT as T5

EXPERIMENTS = [T5, T17]


#: this problem's row of T16's time table (``paper_repro/t16_solvers.py``): the exact method on one
#: generated instance, seed 0 of ``preset``
SOLVER_TIMING = dict(preset="small", method="milp")
