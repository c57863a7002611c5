"""The "add a problem in 30 minutes" walk-through of docs/architecture.md, followed step by step.

A toy problem -- assign jobs to two machines, minimizing the makespan -- is registered here with an
instance type, a checker, a generator, an exact MILP, a brute force and a greedy baseline, and
gets the whole conformance battery by being registered. A broken variant shows that the battery
catches what it promises to catch."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

import optsched
from optsched.core.conformance import run_battery
from optsched.core.instance import Instance
from optsched.core.linear import ModelBuilder
from optsched.core.registry import (CheckReport, Guarantee, Outcome, Problem, register_problem, size_limit,
                                    unregister_problem)
from optsched.core.rng import make_rng
from optsched.core.solving import model_outcome


# 1. the instance: a frozen dataclass with validate()
@dataclass(frozen=True)
class TwoMachines(Instance):
    problem = "toy-two-machines"
    durations: tuple[float, ...]

    def validate(self):
        self.require(len(self.durations) >= 1, "durations", "must list at least one job")
        self.require_nonnegative("durations", self.durations)


# 2. the checker: the authoritative objective, every violation
def check(instance: TwoMachines, solution) -> CheckReport:
    machine = solution.get("machine") if isinstance(solution, dict) else None
    if not isinstance(machine, list) or len(machine) != len(instance.durations):
        return CheckReport(False, None, ["machine must list one machine (0 or 1) per job"])
    bad = [j for j, m in enumerate(machine) if m not in (0, 1)]
    loads = [sum(d for d, m in zip(instance.durations, machine) if m == k) for k in (0, 1)]
    return CheckReport.from_violations([f"job {j}: machine {machine[j]!r} is not 0 or 1" for j in bad], max(loads))


# 3. a seeded generator and the conformance suite's tiny instances
def generate(seed: int, *, jobs: int = 6) -> TwoMachines:
    rng = make_rng(seed, "toy-two-machines")
    return TwoMachines(durations=tuple(float(x) for x in rng.integers(1, 10, size=jobs)))


def make_problem(broken_greedy: bool = False, name: str = "toy-two-machines") -> Problem:
    # 4. register the problem and its methods
    problem = Problem(name=name, title="two identical machines, min makespan", sense="min",
                      instance_type=TwoMachines, check=check, objective="minimize max(load_0, load_1)",
                      solution_schema='{"machine": [0 or 1 per job]}', spec="(test)", generate=generate,
                      presets={"tiny": {"jobs": 6}}, reference_method=("milp", "brute"),
                      tiny_instances=lambda seed: generate(seed, jobs=6))

    @problem.method("milp", kind="exact", fidelity="ours", uses_backend=True, summary="assignment MILP")
    def milp(instance, ctx):
        n = len(instance.durations)
        b = ModelBuilder("two-machines", "min")
        x = b.add_block("x", n, upper=1, integer=True)        # x_j = 1: job j on machine 1
        t = b.add_block("makespan", 1, cost=1.0)
        d = np.asarray(instance.durations)
        b.add_rows("load1", [np.r_[d, -1.0]], upper=[0.0], cols=[x, t])
        b.add_rows("load0", [np.r_[-d, -1.0]], upper=[-d.sum()], cols=[x, t])
        model = b.build()
        return model_outcome(ctx, model, lambda v: {"machine": [int(round(a)) for a in model.block_values(v, "x")]})

    @problem.method("brute", kind="exact", fidelity="ours", summary="every assignment",
                    applicable=size_limit(lambda inst: len(inst.durations), 14, "jobs", "brute"))
    def brute(instance, ctx):
        d = np.asarray(instance.durations)
        best = min(itertools.product((0, 1), repeat=len(d)),
                   key=lambda a: max(d[np.array(a) == 0].sum(), d[np.array(a) == 1].sum()))
        value = max(d[np.array(best) == 0].sum(), d[np.array(best) == 1].sum())
        return Outcome(solution={"machine": list(best)}, objective=float(value), bound=float(value), status="optimal")

    @problem.method("lpt", kind="approximation", fidelity="ours", summary="longest processing time first",
                    guarantee=Guarantee(form="multiplicative", sense="<=", value=lambda inst: 7 / 6,
                                                 reference="OPT", statement="ALG <= 7/6 OPT (Graham 1969, m = 2)",
                                                 source="classical", proof="docs/architecture.md"))
    def lpt(instance, ctx):
        loads, machine = [0.0, 0.0], [0] * len(instance.durations)
        for j in sorted(range(len(instance.durations)), key=lambda j: -instance.durations[j]):
            k = 1 if broken_greedy else int(loads[1] < loads[0])
            machine[j] = k
            loads[k] += instance.durations[j]
        return Outcome(solution={"machine": machine}, objective=max(loads))

    return problem


@pytest.fixture
def toy():
    problem = register_problem(make_problem())
    yield problem
    unregister_problem(problem.name)


def test_a_registered_toy_problem_gets_the_whole_battery(toy):
    outcome = run_battery(toy)
    failed = {k: v for k, v in outcome.items() if v.startswith("failed")}
    assert not failed, failed
    passed = {k for k, v in outcome.items() if v == "passed"}
    # every promise ran on the toy's methods, the guarantee included
    for check_name in ("result_record", "checker_agrees", "never_beats_reference", "deterministic", "typed_errors"):
        assert f"toy-two-machines/lpt::{check_name}" in passed
    assert "toy-two-machines/lpt::guarantee_holds" in passed
    assert "toy-two-machines/milp::time_limit_honesty[highs]" in passed
    assert "toy-two-machines::instance_round_trip" in passed
    # the solve, check and CLI-facing API work on it too
    inst = toy.tiny_instances(0)
    assert optsched.solve(inst, "milp").objective == optsched.solve(inst, "brute").objective


def test_the_battery_catches_a_worse_answer():
    broken = register_problem(make_problem(broken_greedy=True))
    try:
        outcome = run_battery(broken)
    finally:
        unregister_problem(broken.name)
    assert outcome["toy-two-machines/lpt::guarantee_holds"].startswith("failed")
    assert outcome["toy-two-machines/milp::checker_agrees"] == "passed"
