"""The conformance battery every registered method passes by being registered.

In the spirit of scikit-learn's ``check_estimator``: for a problem, a method and an instance,
:func:`check_method` asserts the contract of the spec README --

1. the instance survives an exact JSON round-trip (same SHA-256), and invalid variants of it
   (an unknown field, a wrong format version) raise :class:`InvalidInstanceError` naming the field;
2. the result has a valid status, survives a JSON round-trip, and records the method's fidelity;
3. a returned solution passes the problem's checker, whose objective agrees with the method's;
4. the method is never better than the exact method's bound, nor than its objective when that is
   ``optimal``; a ``bound`` method is never on the wrong side of the optimum;
5. a registered multiplicative or additive guarantee holds against OPT (or its proven bound)
   wherever ``applies`` says it applies;
6. a randomized method gives the same result twice for the same seed.

``tests/test_conformance.py`` runs it over every registered method on each problem's
``tiny_instances``. The comparison tolerance is :func:`~optsched.core.solving.objective_tolerance`
(1e-6 relative: solver feasibility tolerances are 1e-7).
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InvalidInstanceError
from .registry import Method, Problem
from .result import STATUSES, Result
from .solving import objective_tolerance, solve

__all__ = ["check_method", "check_instance_io", "exact_reference", "EXACT_METHODS"]

#: methods that count as the exact reference, in order of preference
EXACT_METHODS = ("milp", "brute")


def exact_reference(problem: Problem, instance: Any, backend: str | None = None) -> Result | None:
    """The exact method's result on ``instance`` (None if the problem has no applicable one)."""
    for name in EXACT_METHODS:
        meth = problem.methods.get(name)
        if meth is not None and meth.kind == "exact" and meth.applicable(instance)[0]:
            return solve(instance, name, backend=backend)
    return None


def check_instance_io(problem: Problem, instance: Any) -> None:
    """Round-trip and invalid-input checks on one instance."""
    data = json.loads(instance.dumps())
    again = problem.instance_type.from_json(data)
    assert again == instance, f"{problem.name}: instance changed in a JSON round-trip"
    assert again.sha256() == instance.sha256(), f"{problem.name}: SHA-256 changed in a JSON round-trip"
    bogus = dict(data, bogus_field=1)
    try:
        problem.instance_type.from_json(bogus)
    except InvalidInstanceError as exc:
        assert exc.field == "bogus_field", f"{problem.name}: unknown-field error names {exc.field!r}"
    else:
        raise AssertionError(f"{problem.name}: an unknown field was accepted")
    wrong = dict(data, format_version=data["format_version"] + 100)
    try:
        problem.instance_type.from_json(wrong)
    except InvalidInstanceError as exc:
        assert exc.field == "format_version", f"{problem.name}: version error names {exc.field!r}"
    else:
        raise AssertionError(f"{problem.name}: a wrong format version was accepted")


def check_method(problem: Problem, method: Method, instance: Any, reference: Result | None = None,
                 *, seed: int = 0, backend: str | None = None) -> Result:
    """Run the battery for one (method, instance); return the method's result."""
    tag = f"{problem.name}/{method.name}"
    result = solve(instance, method.name, seed=seed, backend=backend)
    assert result.status in STATUSES, f"{tag}: status {result.status!r}"
    assert result.fidelity == method.fidelity
    assert result.instance_sha256 == instance.sha256()
    again = Result.from_json(json.loads(result.dumps()))
    assert again.to_json() == json.loads(result.dumps()), f"{tag}: result changed in a JSON round-trip"
    assert result.status != "error", f"{tag}: error: {result.reason}"
    if reference is not None and reference.status == "infeasible":
        assert result.status == "infeasible", f"{tag}: {result.status} on an instance the exact method proves infeasible"
        return result
    if method.is_bound:
        _check_bound(problem, tag, result, reference)
        return result
    if result.status == "infeasible":
        assert reference is None or reference.status in ("infeasible", "time_limit"), (
            f"{tag}: infeasible ({result.reason}) but the exact method found {reference.status}")
        return result
    assert result.solution is not None, f"{tag}: no solution"
    report = problem.check(instance, result.solution)
    assert report.feasible, f"{tag}: checker rejects the solution: {report.violations[:3]}"
    assert "reported_objective" not in result.stats, (
        f"{tag}: method reported {result.stats['reported_objective']}, checker computed {result.objective}")
    if reference is not None:
        _check_against_exact(problem, tag, result, reference)
    if method.guarantee is not None and method.guarantee.form != "probabilistic":
        _check_guarantee(problem, method, tag, instance, result, reference)
    if method.randomized:
        twin = solve(instance, method.name, seed=seed, backend=backend)
        assert twin.solution == result.solution, f"{tag}: not deterministic for a fixed seed"
    return result


def _check_bound(problem: Problem, tag: str, result: Result, reference: Result | None) -> None:
    if reference is None or reference.status != "optimal" or result.objective is None:
        return
    opt, b = reference.objective, result.objective
    tol = objective_tolerance(opt)
    if problem.sense == "max":
        assert b >= opt - tol, f"{tag}: upper bound {b} below OPT {opt}"
    else:
        assert b <= opt + tol, f"{tag}: lower bound {b} above OPT {opt}"


def _check_against_exact(problem: Problem, tag: str, result: Result, reference: Result) -> None:
    alg = result.objective
    if reference.bound is not None:
        b = reference.bound
        assert not (problem.better(alg, b) and abs(alg - b) > objective_tolerance(b)), (
            f"{tag}: objective {alg} better than the exact bound {b}")
    if reference.status == "optimal":
        opt = reference.objective
        assert not (problem.better(alg, opt) and abs(alg - opt) > objective_tolerance(opt)), (
            f"{tag}: objective {alg} better than OPT {opt}")
        if result.status == "optimal":
            assert abs(alg - opt) <= objective_tolerance(opt), f"{tag}: 'optimal' {alg} but OPT is {opt}"


def _check_guarantee(problem: Problem, method: Method, tag: str, instance: Any, result: Result,
                     reference: Result | None) -> None:
    g = method.guarantee
    ok, why = g.applies(instance)
    if not ok:
        return
    if g.reference == "OPT":
        if reference is None or reference.status != "optimal":
            return
        ref = reference.objective
    else:
        ref = g.reference_value(instance) if g.reference_value else None
        if ref is None:
            return
    assert g.holds(instance, result.objective, ref), (
        f"{tag}: guarantee {g.statement!r} violated: ALG = {result.objective}, REF = {ref}, "
        f"threshold = {g.threshold(instance, ref)}")
