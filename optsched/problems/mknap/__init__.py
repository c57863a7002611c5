"""``mknap``: the 0-1 multidimensional knapsack (spec ``smd.md``, last sections).

The special case of the SMD allocation problem with one item per job, and the external truth of
the OR-Library benchmark (``mknapcb*``, Chu & Beasley 1998). Methods: ``milp`` (exact), ``lp``
(bound), ``lp-round`` (ALG >= OPT / (m + 1), classical), ``greedy`` (baseline), ``brute`` (tests).
"""

from __future__ import annotations

from optsched.core.registry import Guarantee, Option, Problem, register_problem

from . import algorithms
from .algorithms import BRUTE_MAX_ITEMS, build_model
from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, MknapInstance, check
from .orlib import load_orlib

__all__ = ["MknapInstance", "PROBLEM", "generate", "load_orlib", "check", "build_model"]

PROBLEM = register_problem(Problem(
    name="mknap",
    title="0-1 multidimensional knapsack",
    sense="max",
    instance_type=MknapInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="smd.md (multidimensional knapsack)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "items": Option(int, 25, "number of items n"),
        "rows": Option(int, 3, "number of capacity rows m"),
        "tightness": Option(float, 0.5, "capacity as a fraction of each row's total weight"),
        "correlated": Option(bool, True, "Chu-Beasley correlated profits"),
    },
    importers={"orlib-mknap": load_orlib},
    build_model=build_model,
    default_method="milp",
    reference_method=("milp", "brute"),
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
))

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
        proof="docs/guarantees.md#mknap-lp-round"),
)(algorithms.lp_round)
PROBLEM.method("greedy", kind="baseline", fidelity="ours",
               summary="profit per aggregate weight, first fit (no guarantee)")(algorithms.greedy)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"enumerate all subsets (n <= {BRUTE_MAX_ITEMS}; for tests)",
               applicable=lambda inst: (inst.num_items <= BRUTE_MAX_ITEMS,
                                        f"n = {inst.num_items} items, brute needs n <= {BRUTE_MAX_ITEMS}"),
               )(algorithms.brute)
