"""Registration of ``domain-decomposition``."""

from __future__ import annotations

from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, tiny_instances
from .instance import OBJECTIVE, SOLUTION_SCHEMA, DomainDecompositionInstance, check
from .model import build_model

PROBLEM = register_problem(Problem(
    name="domain-decomposition",
    title="Peano-Hilbert domain decomposition (PHoToNs)",
    sense="min",
    instance_type=DomainDecompositionInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="wave2.md §6",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "particles": Option(int, 5000, "number of particles"),
        "level": Option(int, 3, "top-level cells per axis = 2^level"),
        "ranks": Option(int, 8, "number of ranks P"),
        "distribution": Option(str, "halos", "halos or zeldovich"),
        "pp_factor": Option(float, 0.01, "work per cell = n + pp_factor n^2"),
        "mic_speed": Option(float, 2.0, "speed of the accelerator ranks (half of them, first)"),
        "contiguous": Option(bool, True, "contiguous decomposition along the curve"),
    },
    build_model=build_model,
    default_method="chain",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
