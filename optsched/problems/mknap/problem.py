"""The ``mknap`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .algorithms import build_model
from .generate import PRESETS, generate
from .instance import OBJECTIVE, SOLUTION_SCHEMA, MknapInstance, check
from .orlib import load_orlib


def build_references(out_dir):
    """``make instances``: the reference values of ``instances/mknap/`` (:mod:`.references`)."""
    from .references import build_reference_instances

    return build_reference_instances(out_dir)


PROBLEM = register_problem(Problem(
    name="mknap",
    title="0-1 multidimensional knapsack",
    sense="max",
    instance_type=MknapInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/mknap/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "items": Option(int, 25, "number of items n", bounds=Interval(1, 100_000)),
        "rows": Option(int, 3, "number of capacity rows m", bounds=Interval(1, 100)),
        "tightness": Option(float, 0.5, "capacity as a fraction of each row's total weight", bounds=Interval(0, 1, closed="right")),
        "correlated": Option(bool, True, "Chu-Beasley correlated profits"),
    },
    importers={"orlib-mknap": load_orlib},
    build_model=build_model,
    default_method="milp",
    reference_method=("milp", "brute"),
    tiny_instances=lambda seed: generate(seed, **PRESETS["tiny"]),
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("small", range(4))])),
    build_references=build_references,
))

