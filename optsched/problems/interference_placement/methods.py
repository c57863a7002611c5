"""Method registrations of ``interference-placement`` (thin wrappers)."""

from __future__ import annotations

from optsched.core.registry import Option, size_limit

from . import algorithms
from .problem import PROBLEM

PROBLEM.method("milp", kind="exact", fidelity="reconstruction", uses_backend=True,
               summary="snapshot MILP with linearized pairwise slowdowns and spread penalty (mip_rel_gap = 0)",
               applicable=size_limit(algorithms.milp_pair_rows, algorithms.MILP_MAX_PAIR_ROWS,
                                     "pair rows (job pairs x servers)", "milp"),
               )(algorithms.milp)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate every placement (at most {algorithms.BRUTE_MAX_JOBS} jobs, "
                       f"{algorithms.BRUTE_MAX_SERVERS} servers; for tests)",
               applicable=lambda inst: (inst.num_jobs <= algorithms.BRUTE_MAX_JOBS
                                        and inst.num_servers <= algorithms.BRUTE_MAX_SERVERS,
                                        f"{inst.num_jobs} jobs, {inst.num_servers} servers; brute needs <= "
                                        f"{algorithms.BRUTE_MAX_JOBS} and <= {algorithms.BRUTE_MAX_SERVERS}"),
               )(algorithms.brute)
PROBLEM.method("least-interference", kind="heuristic", fidelity="ours",
               summary="queue order, the candidate of least marginal cost; rejects when rejection is cheaper",
               options={"order": Option(str, "queue", "queue or weight (largest isolated run time first)")},
               )(algorithms.least_interference)
PROBLEM.method("pack", kind="baseline", fidelity="ours",
               summary="queue order, best fit (fewest free GPUs), interference-oblivious")(algorithms.pack)
PROBLEM.method("spread", kind="baseline", fidelity="ours",
               summary="queue order, worst fit (most free GPUs), interference-oblivious")(algorithms.spread)
