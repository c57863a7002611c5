"""Every ``online-packing`` method registration (thin wrappers)."""

from __future__ import annotations

from optsched.core.registry import Option

from . import algorithms
from .algorithms import BRUTE_MAX_REQUESTS
from .learned import learned
from .problem import PROBLEM

PROBLEM.method("threshold", kind="online", fidelity="ours",
               summary="per-resource threshold prices psi(z_i) (Zhou-Chakrabarty-Lukose per resource; no guarantee "
                       "for m > 1)")(algorithms.threshold)
PROBLEM.method("learned", kind="online", fidelity="reconstruction",
               summary="per-resource prices from a policy network trained against an adversary network "
                       "(Du-Huang-Wu 2022 reconstruction; empirical)",
               options={"weights": Option(str, "", "policy JSON (default: the bundled m = 2, U/L = 16 policy; other U/L refused)")},
               )(learned)
PROBLEM.method("fixed-price", kind="baseline", fidelity="ours",
               summary="post sqrt(L U) per unit of every resource (no guarantee)")(algorithms.fixed_price)
PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="serve every request that fits (no guarantee)")(algorithms.greedy)
PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="hindsight multi-dimensional 0-1 knapsack (mip_rel_gap = 0)")(algorithms.milp)
PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True,
               summary="LP relaxation: an upper bound on OPT")(algorithms.lp_bound)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate all subsets (n <= {BRUTE_MAX_REQUESTS}; for tests)",
               applicable=lambda inst: (inst.num_requests <= BRUTE_MAX_REQUESTS,
                                        f"n = {inst.num_requests} requests, brute needs n <= {BRUTE_MAX_REQUESTS}"),
               )(algorithms.brute)
