"""The methods of ``srpt``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.registry import Option

from . import algorithms, bounds, model
from .problem import PROBLEM

_PLACEMENT = Option(str, "heuristic", "heuristic (greedy + Kernighan-Lin), random, or milp (exact; small graphs)",
                    choices=("heuristic", "random", "milp"))

PROBLEM.method("a-srpt", color="#4477aa", kind="online", fidelity="reconstruction",
               summary="virtual single-machine SRPT order on predicted sizes + min-cut placement, preemptive",
               options={"placement": _PLACEMENT, "preemption": Option(bool, True, "preempt per the virtual order")},
               randomized=True)(algorithms.a_srpt)

PROBLEM.method("fifo", kind="baseline", fidelity="ours", summary="first come first served, head-of-line blocking",
               options={"placement": _PLACEMENT}, randomized=True)(algorithms.fifo)

PROBLEM.method("sjf-oracle", color="#228833", kind="baseline", fidelity="ours",
               summary="shortest true size first, backfilling, non-preemptive (reads true sizes)",
               options={"placement": _PLACEMENT}, randomized=True)(algorithms.sjf_oracle)

PROBLEM.method("tiresias-las", kind="baseline", fidelity="ours",
               summary="discretized 2D least attained service (GPU-seconds queues), preemptive",
               options={"placement": _PLACEMENT,
                        "queue_thresholds": Option(str, "3600,36000", "queue limits in attained GPU-seconds"),
                        "tick_s": Option(float, 300.0, "seconds between re-evaluations")},
               randomized=True)(algorithms.tiresias_las)

PROBLEM.method("lb", kind="bound", fidelity="ours",
               summary="max(virtual-machine SRPT flow with true sizes, sum of isolated run times)",
               )(algorithms.lower_bound)

PROBLEM.method("lb-rank", kind="bound", fidelity="ours",
               summary="per-rank max of the virtual machine's SRPT completions and the isolated completions "
                       "(>= lb; O(n log n))",
               )(bounds.rank_lower_bound)



def _milp_applies(instance) -> tuple[bool, str]:
    from .model import MILP_MAX_CONFIGS, MILP_MAX_JOBS, milp_size

    if instance.num_jobs > MILP_MAX_JOBS:
        return False, f"jobs = {instance.num_jobs}, milp needs jobs <= {MILP_MAX_JOBS}"
    jobs, configs = milp_size(instance)
    if configs > MILP_MAX_CONFIGS:
        return False, f"{configs} per-server GPU count vectors of one job, milp needs <= {MILP_MAX_CONFIGS}"
    return True, f"jobs = {jobs} <= {MILP_MAX_JOBS}, {configs} count vectors <= {MILP_MAX_CONFIGS}"


PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True, applicable=_milp_applies,
               summary="exact offline optimum: piece-indexed MILP (free piece boundaries, per-server count "
                       "vectors with min-cut placements, restart overhead)",
               )(model.milp)
