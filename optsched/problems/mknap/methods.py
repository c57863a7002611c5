"""The methods of ``mknap``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.registry import Guarantee, size_limit

from . import algorithms
from .algorithms import BRUTE_MAX_ITEMS
from .problem import PROBLEM

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="0-1 MILP on the chosen back-end (mip_rel_gap = 0)")(algorithms.milp)

PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True,
               summary="LP relaxation: an upper bound on OPT")(algorithms.lp_bound)

PROBLEM.method(
    "lp-round", kind="approximation", fidelity="ours", uses_backend=True,
    summary="rounded-down basic LP solution or best single item",
    guarantee=Guarantee(
        form="multiplicative", sense=">=", value=lambda inst: inst.num_rows + 1, reference="OPT",
        statement="ALG >= OPT / (m + 1), m = number of capacity rows", source="classical",
        proof="optsched/problems/mknap/README.md#lp-round-guarantee"),
)(algorithms.lp_round)

PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="profit per aggregate weight, first fit (no guarantee)")(algorithms.greedy)

PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate all subsets (n <= {BRUTE_MAX_ITEMS}; for tests)",
               applicable=size_limit(lambda inst: inst.num_items, BRUTE_MAX_ITEMS, "items", "brute"),
               )(algorithms.brute)

