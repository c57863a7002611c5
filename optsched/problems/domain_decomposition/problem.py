"""Registration of ``domain-decomposition``."""

from __future__ import annotations

from optsched.core.params import Interval
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
    spec="optsched/problems/domain_decomposition/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "particles": Option(int, 5000, "number of particles", bounds=Interval(1, 10_000_000)),
        "level": Option(int, 3, "top-level cells per axis = 2^level", bounds=Interval(1, 8)),
        "ranks": Option(int, 8, "number of ranks P", bounds=Interval(1, 100_000)),
        "distribution": Option(str, "halos", "halos or zeldovich"),
        "pp_factor": Option(float, 0.01, "work per cell = n + pp_factor n^2", bounds=Interval(0, 1e6)),
        "mic_speed": Option(float, 2.0, "speed of the accelerator ranks (half of them, first)", bounds=Interval(0, 1e6, closed="right")),
        "contiguous": Option(bool, True, "contiguous decomposition along the curve"),
        "mic_ranks": Option(int, -1, "accelerator ranks (-1: half of the ranks)", bounds=Interval(-1, 100_000)),
    },
    build_model=build_model,
    default_method="chain",
    reference_method="milp",
    tiny_instances=tiny_instances,
))
