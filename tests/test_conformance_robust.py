"""The conformance battery reports every check, whatever a check raises.

A toy problem whose methods crash in different ways (a RuntimeError in the method, a TypeError in
the checker for one method's solution) runs through ``run_battery``: every check of every method
has an outcome, the crashing ones are ``failed`` with the exception's type and message, and the
healthy method's checks still pass. ``test_conformance.py`` takes its case ids from the same
``battery_cases``, so a failure there names the problem, the method and the check."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from optsched.core.conformance import battery_cases, run_battery, run_check
from optsched.core.errors import InvalidOptionError
from optsched.core.instance import Instance
from optsched.core.registry import CheckReport, Outcome, Problem, register_problem, unregister_problem
from optsched.core.rng import make_rng

NAME = "toy-crashing-battery"


@dataclass(frozen=True)
class Items(Instance):
    problem = NAME
    sizes: tuple[int, ...]

    def validate(self):
        self.require(len(self.sizes) >= 1, "sizes", "must list at least one item")


def check(instance: Items, solution) -> CheckReport:
    if solution.get("poison"):
        raise TypeError("the checker cannot read this solution")
    return CheckReport.from_violations([], float(sum(instance.sizes)))


def tiny(seed: int) -> Items:
    rng = make_rng(seed, NAME)
    return Items(sizes=tuple(int(x) for x in rng.integers(1, 9, size=3)))


@pytest.fixture
def toy():
    problem = Problem(name=NAME, title="toy", sense="min", instance_type=Items, check=check,
                      objective="sum of sizes", solution_schema="{}", spec="(test)",
                      reference_method="exact", tiny_instances=tiny)

    @problem.method("exact", kind="exact", fidelity="ours", summary="the sum")
    def exact(instance, ctx):
        value = float(sum(instance.sizes))
        return Outcome(solution={}, objective=value, bound=value, status="optimal")

    @problem.method("crash", kind="heuristic", fidelity="ours", summary="raises")
    def crash(instance, ctx):
        raise RuntimeError("the method fell over")

    @problem.method("poison", kind="heuristic", fidelity="ours", summary="a solution the checker chokes on")
    def poison(instance, ctx):
        return Outcome(solution={"poison": True}, objective=float(sum(instance.sizes)))

    register_problem(problem)
    yield problem
    unregister_problem(NAME)


def test_every_check_is_reported_whatever_it_raises(toy):
    outcome = run_battery(toy)
    ids = [cid for cid, _ in battery_cases(toy)]
    assert list(outcome) == ids                       # every check has an outcome, in order
    for cid in ids:
        assert outcome[cid] == "passed" or outcome[cid].startswith(("failed: ", "skipped: ")), (cid, outcome[cid])
    crashed = {cid: v for cid, v in outcome.items() if cid.startswith(f"{NAME}/crash::")}
    assert crashed[f"{NAME}/crash::result_record"] == "failed: RuntimeError: the method fell over"
    assert all(v.startswith("failed: RuntimeError") or v.startswith("skipped") for v in crashed.values()), crashed
    assert outcome[f"{NAME}/poison::checker_agrees"].startswith("failed: TypeError: the checker cannot read")
    # the healthy method is unaffected by its neighbours' crashes
    for check_name in ("result_record", "checker_agrees", "deterministic", "typed_errors"):
        assert outcome[f"{NAME}/exact::{check_name}"] == "passed", outcome[f"{NAME}/exact::{check_name}"]
    assert outcome[f"{NAME}::instance_round_trip"] == "passed"


def test_run_check_names_the_exception_type():
    def raises(h):
        raise InvalidOptionError(NAME, "x", "must be >= 1", 0)

    assert run_check(raises, None) == f"failed: InvalidOptionError: {NAME}: field 'x': must be >= 1 (got 0)"
    with pytest.raises(KeyboardInterrupt):  # an interrupt still stops the battery
        run_check(lambda h: (_ for _ in ()).throw(KeyboardInterrupt()), None)
