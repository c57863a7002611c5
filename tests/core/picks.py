"""The problems the core layer's tests run through, picked from the registry by what they declare.

The core's tests need real models, instances and command-line runs. They take them from the first
registered problem (registry order) that declares what a test uses -- presets, generator options,
methods -- and name none: a renamed or removed problem changes nothing here, and if no problem
declares what is asked any more, the import fails and says what is missing.
"""

from __future__ import annotations

import optsched


def a_problem(*, presets=(), generator_options=(), methods=()) -> str:
    """The first registered problem declaring every preset, generator option and method named."""
    for name, problem in optsched.core.registry.problems().items():
        if (set(presets) <= set(problem.presets) and set(generator_options) <= set(problem.generator_options)
                and set(methods) <= set(problem.methods)):
            return name
    raise LookupError(f"no registered problem declares presets {presets}, generator options "
                      f"{generator_options} and methods {methods}: the core tests need one")


#: a 0-1 program with rows of integral weights and a profit per item: an exact MILP (``build_model``)
#: and its LP relaxation, a brute force limited by the item count, a greedy heuristic and an LP
#: rounding; a ``hard`` preset that no exact solver closes in minutes; generator options for the
#: item and row counts and the capacity tightness
MILP_PROBLEM = a_problem(presets=("tiny", "small", "chu-beasley", "hard"),
                         generator_options=("items", "rows", "tightness"),
                         methods=("milp", "lp", "brute", "greedy", "lp-round"))
