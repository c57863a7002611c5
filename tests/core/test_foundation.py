"""Instances, results, the registry's guarantee records and solve()'s honesty checks."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Literal

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError, NotApplicable
from optsched.core.instance import Instance, Record
from optsched.core.registry import Guarantee, Outcome
from optsched.core.result import Result, relative_gap
from tests.core.picks import MILP_PROBLEM


@dataclass(frozen=True)
class Job(Record):
    problem = "toy"
    size: float
    kind: Literal["a", "b"] = "a"


@dataclass(frozen=True)
class Toy(Instance):
    problem = "toy"
    jobs: tuple[Job, ...]
    names: dict[str, int]
    limit: float | None = None

    def validate(self):
        for i, j in enumerate(self.jobs):
            self.require(j.size >= 0, f"jobs[{i}].size", "must be >= 0", j.size)


def test_nested_records_round_trip_exactly():
    t = Toy(jobs=[{"size": 0.1}, Job(size=1e-300, kind="b")], names={"x": 1})
    again = Toy.from_json(json.loads(t.dumps()))
    assert again == t and again.sha256() == t.sha256()
    assert again.jobs[0].size == 0.1 and again.jobs[1].size == 1e-300


@pytest.mark.parametrize("data,field", [
    ({"jobs": [{"size": 1, "weight": 2}], "names": {}}, "jobs[0].weight"),
    ({"jobs": [{"size": "big"}], "names": {}}, "jobs[0].size"),
    ({"jobs": [{"size": 1, "kind": "c"}], "names": {}}, "jobs[0].kind"),
    ({"jobs": [{"size": -1}], "names": {}}, "jobs[0].size"),
    ({"jobs": [], "names": {"x": 1.5}}, "names.x"),
    ({"jobs": [], "names": {}, "limit": True}, "limit"),
    ({"jobs": {}, "names": {}}, "jobs"),
])
def test_errors_name_the_nested_field(data, field):
    with pytest.raises(InvalidInstanceError) as exc:
        Toy.from_json({"format_version": 1, "problem": "toy", **data})
    assert exc.value.field == field and exc.value.problem == "toy"


def test_wrong_problem_and_missing_version():
    with pytest.raises(InvalidInstanceError, match="'problem'"):
        Toy.from_json({"format_version": 1, "problem": "another-problem", "jobs": [], "names": {}})
    with pytest.raises(InvalidInstanceError, match="'format_version': missing"):
        Toy.from_json({"jobs": [], "names": {}})


def test_instances_are_immutable():
    t = Toy(jobs=[], names={})
    with pytest.raises(AttributeError):
        t.limit = 3.0


def test_result_round_trip_and_unknown_fields():
    inst = optsched.generate(MILP_PROBLEM, seed=0, preset="tiny")
    r = optsched.solve(inst, "milp")
    again = Result.from_json(json.loads(r.dumps()))
    assert again == r
    with pytest.raises(InvalidInstanceError, match="'extra': unknown field"):
        Result.from_json({**json.loads(r.dumps()), "extra": 1})
    with pytest.raises(InvalidInstanceError, match="status"):
        replace(r, status="great")


def test_relative_gap_matches_highs_definition():
    assert relative_gap(100.0, 110.0) == pytest.approx(0.1)
    assert relative_gap(None, 1.0) is None


def test_guarantee_thresholds():
    mult = Guarantee("multiplicative", ">=", lambda i: 3.0, "OPT", "ALG >= OPT/3", "classical", "x")
    assert mult.threshold(None, 30.0) == 10.0
    assert mult.holds(None, 10.0, 30.0) and not mult.holds(None, 9.9, 30.0)
    add = Guarantee("additive", "<=", lambda i: 5.0, "OPT", "ALG <= OPT + 5", "ours", "x")
    assert add.holds(None, 15.0, 10.0) and not add.holds(None, 15.1, 10.0)


def test_solve_flags_a_method_whose_objective_disagrees_with_the_checker(monkeypatch):
    prob = optsched.get_problem(MILP_PROBLEM)

    def liar(instance, ctx):
        return Outcome(solution={"selected": []}, objective=123.0)

    monkeypatch.setitem(prob.methods, "greedy", replace(prob.methods["greedy"], run=liar))
    r = optsched.solve(optsched.generate(MILP_PROBLEM, seed=0, preset="tiny"), "greedy")
    assert r.objective == 0.0 and r.stats["reported_objective"] == 123.0


def test_solve_turns_an_infeasible_solution_into_an_error(monkeypatch):
    prob = optsched.get_problem(MILP_PROBLEM)
    inst = optsched.generate(MILP_PROBLEM, seed=0, preset="tiny")

    def cheat(instance, ctx):
        return Outcome(solution={"selected": list(range(instance.num_items))})

    monkeypatch.setitem(prob.methods, "greedy", replace(prob.methods["greedy"], run=cheat))
    r = optsched.solve(inst, "greedy")
    assert r.status == "error" and "violates" in r.reason and r.stats["violations"]


def test_brute_refuses_large_instances():
    inst = optsched.generate(MILP_PROBLEM, seed=0, items=30, rows=2)
    with pytest.raises(NotApplicable, match="brute"):
        optsched.solve(inst, "brute")


def _anchors(markdown: str) -> set[str]:
    """Explicit ``<a id="...">`` anchors and GitHub's heading slugs of a Markdown text."""
    import re

    anchors = set(re.findall(r'<a (?:id|name)="([^"]+)"', markdown))
    for heading in re.findall(r"^#+\s+(.*)$", markdown, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_every_registered_guarantee_names_a_written_proof():
    """A guarantee without its proof in the docs is not registered (docs/guarantees.md)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for prob in optsched.core.registry.problems().values():
        for m in prob.methods.values():
            if m.guarantee is None:
                continue
            doc, _, anchor = m.guarantee.proof.partition("#")
            path = root / doc
            assert path.is_file(), (prob.name, m.name, m.guarantee.proof)
            assert anchor in _anchors(path.read_text()), (prob.name, m.name, m.guarantee.proof)


@pytest.mark.load_sensitive
def test_a_context_built_outside_solve_honours_its_time_limit():
    from optsched.core.backends import SolverSettings
    from optsched.core.solving import SolveContext

    problem = optsched.get_problem(MILP_PROBLEM)
    # an hour: the limit must still be running when the model is solved, however busy the machine
    ctx = SolveContext(problem, problem.get_method("milp"), "highs", SolverSettings(time_limit=3600.0))
    left = ctx.remaining()
    assert left is not None and 0 < left <= 3600.0          # the clock started at first use
    model = problem.build_model(optsched.generate(MILP_PROBLEM, seed=1, preset="tiny"))
    ctx.solve_model(model)
    assert 0 < ctx.subsolves[-1]["time_limit"] <= left      # the solve got the remaining budget
