"""Every registered method of every problem passes the conformance battery on tiny instances.

A new method gets these tests by being registered (see optsched.core.conformance)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.conformance import check_instance_io, check_method, exact_reference

SEEDS = range(4)

CASES = [(p.name, m.name) for p in optsched.list_problems().values() for m in p.methods.values()
         if p.tiny_instances is not None]


@pytest.fixture(scope="module")
def references():
    """Exact results per (problem, seed), computed once per module."""
    cache = {}

    def get(problem, seed):
        if (problem.name, seed) not in cache:
            inst = problem.tiny_instances(seed)
            cache[problem.name, seed] = (inst, exact_reference(problem, inst))
        return cache[problem.name, seed]
    return get


@pytest.mark.parametrize("problem_name", sorted({p for p, _ in CASES}))
def test_instance_io(problem_name):
    problem = optsched.get_problem(problem_name)
    for seed in SEEDS:
        check_instance_io(problem, problem.tiny_instances(seed))


@pytest.mark.parametrize("problem_name,method_name", CASES)
def test_method_conformance(problem_name, method_name, references):
    problem = optsched.get_problem(problem_name)
    method = problem.methods[method_name]
    ran = 0
    for seed in SEEDS:
        inst, ref = references(problem, seed)
        if not method.applicable(inst)[0]:
            continue
        check_method(problem, method, inst, ref, seed=seed)
        ran += 1
    assert ran > 0, f"{problem_name}/{method_name} applies to none of the tiny instances"


def test_every_problem_has_tiny_instances():
    missing = [p.name for p in optsched.list_problems().values() if p.tiny_instances is None]
    assert not missing, f"problems without tiny_instances (conformance cannot run): {missing}"
