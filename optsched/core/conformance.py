"""The conformance battery every registered method passes by being registered.

In the spirit of scikit-learn's ``parametrize_with_checks``: each promise of the contract (docs/architecture.md) is a
**named check**, reported as its own test case, so that one failure never hides another and a
reader sees which promise broke. :func:`problem_checks` yields the checks of a problem,
:func:`method_checks` those of one of its methods; each check is a function of a
:class:`Harness`, which builds the problem's tiny instances and caches every solve, so that the
checks of one method share one run per instance.

Problem checks:

* ``instance_round_trip``: an exact JSON round trip (same SHA-256);
* ``invalid_instance_errors``: an unknown field and a wrong format version raise
  :class:`InvalidInstanceError` naming that field;
* ``reference_method``: the problem names its reference (an exact or bound method), or says it has
  none (then comparisons with OPT are reported *skipped*, never passed).

Method checks:

* ``result_record``: a valid status, the method's fidelity, the instance's SHA-256, a JSON round
  trip, and no ``error``;
* ``checker_agrees``: the solution passes the problem's checker, whose objective agrees with the
  method's own (for a ``bound`` method: the bound lies on the right side of OPT);
* ``never_beats_reference``: never better than the reference method's bound, nor than its
  objective when that is ``optimal``; ``optimal`` only at OPT;
* ``guarantee_holds``: a registered multiplicative or additive guarantee holds where ``applies``
  says it applies (probabilistic guarantees are checked by their binomial property tests);
* ``deterministic``: the same seed gives the same solution;
* ``typed_errors``: an unknown method option raises :class:`InvalidOptionError` naming it (not
  another kind of invalid input: the caller must be able to tell a bad option from a bad file);
* ``time_limit_honesty`` (exact and bound methods, once per back-end for those that use one): with a
  budget too small to finish, the status is never ``optimal``, the method does not fail, the
  record names the back-end that was asked for, and no objective is better than its bound.

A check that cannot run on the available instances raises :class:`CheckSkipped` with the reason
(the test suite reports it as skipped). Comparisons use
:func:`~optsched.core.solving.objective_tolerance` (1e-6 relative: solver feasibility tolerances are
1e-7 relative).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .errors import BackendRefused, InvalidInputError, InvalidInstanceError, InvalidOptionError, NotApplicable
from .registry import Method, Problem
from .result import STATUSES, Result
from .solving import objective_tolerance, solve

__all__ = ["Harness", "CheckSkipped", "problem_checks", "method_checks", "battery_cases", "run_check", "run_battery",
           "check_method", "check_instance_io", "exact_reference", "reference_method_for",
           "TIME_LIMIT_PROBE_S"]

#: the budget of the time-limit honesty check: far below what any method needs to finish
TIME_LIMIT_PROBE_S = 1e-6


class CheckSkipped(Exception):
    """A check that cannot run here (its reason is reported; it never counts as passed)."""


def reference_method_for(problem: Problem, instance: Any) -> Method | None:
    """The problem's reference method if it is registered and applies to ``instance``."""
    for name in problem.reference_methods:
        meth = problem.methods.get(name)
        if meth is not None and meth.kind in ("exact", "bound") and meth.applicable(instance)[0]:
            return meth
    return None


def exact_reference(problem: Problem, instance: Any, backend: str | None = None) -> Result | None:
    """The reference method's result on ``instance`` (None if the problem has none that applies)."""
    meth = reference_method_for(problem, instance)
    return None if meth is None else solve(instance, meth.name, backend=backend)


@dataclass
class Harness:
    """Tiny instances of one problem, their reference results and cached method results."""

    problem: Problem
    seeds: tuple[int, ...] = (0, 1, 2, 3)
    _instances: dict = field(default_factory=dict)
    _references: dict = field(default_factory=dict)
    _results: dict = field(default_factory=dict)

    def instance(self, seed: int) -> Any:
        if seed not in self._instances:
            if self.problem.tiny_instances is None:
                raise CheckSkipped(f"{self.problem.name} has no tiny_instances")
            self._instances[seed] = self.problem.tiny_instances(seed)
        return self._instances[seed]

    def reference(self, seed: int) -> tuple[Method | None, Result | None]:
        if seed not in self._references:
            inst = self.instance(seed)
            meth = reference_method_for(self.problem, inst)
            self._references[seed] = (meth, None if meth is None else self.result(meth, seed))
        return self._references[seed]

    def result(self, method: Method, seed: int) -> Result:
        key = (method.name, seed)
        if key not in self._results:
            self._results[key] = solve(self.instance(seed), method.name, seed=seed)
        return self._results[key]

    def applicable_seeds(self, method: Method) -> list[int]:
        """Seeds whose instance the method applies to: ``applicable`` says so, and the run does not
        raise :class:`NotApplicable` (a condition that depends on the method's options)."""
        seeds = []
        for s in self.seeds:
            if not method.applicable(self.instance(s))[0]:
                continue
            try:
                self.result(method, s)
            except NotApplicable:
                continue
            seeds.append(s)
        if not seeds:
            raise CheckSkipped(f"{self.problem.name}/{method.name} applies to none of the tiny instances")
        return seeds


# ---- problem checks ---------------------------------------------------------------------------
def check_instance_round_trip(h: Harness) -> None:
    for seed in h.seeds:
        inst = h.instance(seed)
        again = h.problem.instance_type.from_json(json.loads(inst.dumps()))
        assert again == inst, f"{h.problem.name}: instance (seed {seed}) changed in a JSON round trip"
        assert again.sha256() == inst.sha256(), f"{h.problem.name}: SHA-256 changed in a JSON round trip"


def check_invalid_instance_errors(h: Harness) -> None:
    p = h.problem
    data = json.loads(h.instance(h.seeds[0]).dumps())
    for variant, name in ((dict(data, bogus_field=1), "bogus_field"),
                          (dict(data, format_version=data["format_version"] + 100), "format_version")):
        try:
            p.instance_type.from_json(variant)
        except InvalidInputError as exc:
            assert isinstance(exc, InvalidInstanceError), (
                f"{p.name}: a bad {name!r} raised {type(exc).__name__}, not InvalidInstanceError")
            assert exc.field == name, f"{p.name}: the error names {exc.field!r}, not {name!r}"
        else:
            raise AssertionError(f"{p.name}: an instance with a bad {name!r} was accepted")


def check_reference_method(h: Harness) -> None:
    p = h.problem
    if p.reference_method is None:
        raise CheckSkipped(f"{p.name} declares no reference method: comparisons with OPT cannot run")
    for name in p.reference_methods:
        assert name in p.methods, f"{p.name}: reference method {name!r} is not registered"
        assert p.methods[name].kind in ("exact", "bound"), (
            f"{p.name}: reference method {name!r} has kind {p.methods[name].kind!r}, not exact or bound")
    assert any(reference_method_for(p, h.instance(s)) for s in h.seeds), (
        f"{p.name}: the reference method applies to none of the tiny instances")


def check_instance_io(problem: Problem, instance: Any) -> None:
    """Round-trip and invalid-input checks on one given instance (for problem-specific tests)."""
    h = Harness(problem, seeds=(0,))
    h._instances[0] = instance
    check_instance_round_trip(h)
    check_invalid_instance_errors(h)


# ---- method checks ----------------------------------------------------------------------------
def _tag(h: Harness, m: Method, seed: int) -> str:
    return f"{h.problem.name}/{m.name} (seed {seed})"


def _assert_record(tag: str, method: Method, instance: Any, result: Result) -> None:
    assert result.status in STATUSES, f"{tag}: status {result.status!r}"
    assert result.fidelity == method.fidelity, f"{tag}: fidelity {result.fidelity!r}"
    assert result.instance_sha256 == instance.sha256(), f"{tag}: wrong instance SHA-256"
    again = Result.from_json(json.loads(result.dumps()))
    assert again.to_json() == json.loads(result.dumps()), f"{tag}: result changed in a JSON round trip"
    assert result.status != "error", f"{tag}: error: {result.reason}"


def check_result_record(h: Harness, m: Method) -> None:
    for seed in h.applicable_seeds(m):
        _assert_record(_tag(h, m, seed), m, h.instance(seed), h.result(m, seed))


def _solution_results(h: Harness, m: Method) -> Iterator[tuple[int, Result, Result | None, Method | None]]:
    """(seed, result, reference result, reference method) where the method returned a solution."""
    for seed in h.applicable_seeds(m):
        res = h.result(m, seed)
        ref_m, ref = h.reference(seed)
        if ref is not None and ref.status == "infeasible":
            assert res.status == "infeasible", (
                f"{_tag(h, m, seed)}: {res.status} on an instance the reference proves infeasible")
            continue
        if res.status == "infeasible":
            assert ref is None or ref.status in ("infeasible", "time_limit"), (
                f"{_tag(h, m, seed)}: infeasible ({res.reason}) but the reference found {ref.status}")
            continue
        yield seed, res, ref, ref_m


def _opt(ref: Result | None, ref_m: Method | None) -> float | None:
    """OPT, when the reference is an exact method that proved it."""
    if ref is None or ref_m is None or ref_m.kind != "exact" or ref.status != "optimal":
        return None
    return ref.objective


def check_checker_agrees(h: Harness, m: Method) -> None:
    ran = 0
    for seed, res, ref, ref_m in _solution_results(h, m):
        tag = _tag(h, m, seed)
        if m.is_bound:
            opt = _opt(ref, ref_m)
            if opt is None or res.objective is None:
                continue
            tol = objective_tolerance(opt)
            if h.problem.sense == "max":
                assert res.objective >= opt - tol, f"{tag}: upper bound {res.objective} below OPT {opt}"
            else:
                assert res.objective <= opt + tol, f"{tag}: lower bound {res.objective} above OPT {opt}"
            ran += 1
            continue
        assert res.solution is not None, f"{tag}: no solution"
        report = h.problem.check(h.instance(seed), res.solution)
        assert report.feasible, f"{tag}: the checker rejects the solution: {report.violations[:3]}"
        assert "reported_objective" not in res.stats, (
            f"{tag}: the method reported {res.stats['reported_objective']}, the checker computed {res.objective}")
        ran += 1
    if not ran:
        raise CheckSkipped("no instance where this could be checked (no solution, or no proven OPT for a bound)")


def check_never_beats_reference(h: Harness, m: Method) -> None:
    if m.is_bound:
        raise CheckSkipped("a bound method is compared with OPT by checker_agrees")
    ran = 0
    for seed, res, ref, ref_m in _solution_results(h, m):
        if ref is None or ref_m is None or ref_m.name == m.name or res.objective is None:
            continue
        tag, alg, better = _tag(h, m, seed), res.objective, h.problem.better
        if ref.bound is not None:
            b = ref.bound
            assert not (better(alg, b) and abs(alg - b) > objective_tolerance(b)), (
                f"{tag}: objective {alg} better than the reference's bound {b}")
        opt = _opt(ref, ref_m)
        if opt is not None:
            assert not (better(alg, opt) and abs(alg - opt) > objective_tolerance(opt)), (
                f"{tag}: objective {alg} better than OPT {opt}")
            if res.status == "optimal":
                assert abs(alg - opt) <= objective_tolerance(opt), f"{tag}: 'optimal' {alg} but OPT is {opt}"
        ran += 1
    if not ran:
        refs = {h.reference(s)[0].name for s in h.applicable_seeds(m) if h.reference(s)[0] is not None}
        if refs == {m.name}:
            raise CheckSkipped("this method is the problem's reference")
        raise CheckSkipped(f"{h.problem.name}: no reference result to compare with "
                           f"(reference method: {h.problem.reference_method!r})")


def check_guarantee_holds(h: Harness, m: Method) -> None:
    g = m.guarantee
    if g is None:
        raise CheckSkipped("no registered guarantee")
    if g.form == "probabilistic":
        raise CheckSkipped("probabilistic guarantee: checked by its one-sided binomial property test")
    ran, why_not = 0, set()
    for seed, res, ref, ref_m in _solution_results(h, m):
        inst = h.instance(seed)
        ok, why = g.applies(inst)
        if not ok:
            why_not.add(why)
            continue
        if g.reference == "OPT":
            ref_value = _opt(ref, ref_m)
            if ref_value is None:
                why_not.add("no proven OPT")
                continue
        else:
            ref_value = g.reference_value(inst) if g.reference_value else None
            if ref_value is None:
                why_not.add("no reference value")
                continue
        assert g.holds(inst, res.objective, ref_value), (
            f"{_tag(h, m, seed)}: guarantee {g.statement!r} violated: ALG = {res.objective}, "
            f"REF = {ref_value}, threshold = {g.threshold(inst, ref_value)}")
        ran += 1
    if not ran:
        raise CheckSkipped(f"the guarantee applies to none of the tiny instances ({'; '.join(sorted(why_not))})")


def check_deterministic(h: Harness, m: Method) -> None:
    for seed in h.applicable_seeds(m):
        first = h.result(m, seed)
        twin = solve(h.instance(seed), m.name, seed=seed)
        assert twin.status == first.status, f"{_tag(h, m, seed)}: status {first.status} then {twin.status}"
        assert twin.solution == first.solution, f"{_tag(h, m, seed)}: not deterministic for a fixed seed"


def check_typed_errors(h: Harness, m: Method) -> None:
    seed = h.applicable_seeds(m)[0]
    try:
        solve(h.instance(seed), m.name, options={"no_such_option": 1})
    except InvalidInputError as exc:
        assert isinstance(exc, InvalidOptionError), (
            f"{h.problem.name}/{m.name}: an unknown option raised {type(exc).__name__}, not InvalidOptionError")
        assert "no_such_option" in exc.field, f"{h.problem.name}/{m.name}: the error names {exc.field!r}"
    else:
        raise AssertionError(f"{h.problem.name}/{m.name}: an unknown option was accepted")


def check_time_limit_honesty(h: Harness, m: Method, backend: str | None = None) -> None:
    if m.kind not in ("exact", "bound"):
        raise CheckSkipped("only exact and bound methods claim optimality")
    for seed in h.applicable_seeds(m)[:2]:
        tag = f"{_tag(h, m, seed)} [time limit {TIME_LIMIT_PROBE_S} s, back-end {backend or 'default'}]"
        try:
            res = solve(h.instance(seed), m.name, seed=seed, backend=backend, time_limit=TIME_LIMIT_PROBE_S)
        except BackendRefused as exc:
            raise CheckSkipped(str(exc)) from None
        assert res.status != "optimal", f"{tag}: reported optimal although its budget ran out"
        assert res.status != "error", f"{tag}: failed instead of stopping: {res.reason}"
        if backend is not None and m.uses_backend:
            assert res.backend == backend, f"{tag}: ran on {res.backend!r}, not the back-end asked for"
        if res.objective is not None and res.bound is not None and not m.is_bound:
            assert not (h.problem.better(res.objective, res.bound)
                        and abs(res.objective - res.bound) > objective_tolerance(res.bound)), (
                f"{tag}: objective {res.objective} better than its own bound {res.bound}")


#: name -> check, in report order
PROBLEM_CHECKS: dict[str, Callable[[Harness], None]] = {
    "instance_round_trip": check_instance_round_trip,
    "invalid_instance_errors": check_invalid_instance_errors,
    "reference_method": check_reference_method,
}

METHOD_CHECKS: dict[str, Callable[[Harness, Method], None]] = {
    "result_record": check_result_record,
    "checker_agrees": check_checker_agrees,
    "never_beats_reference": check_never_beats_reference,
    "guarantee_holds": check_guarantee_holds,
    "deterministic": check_deterministic,
    "typed_errors": check_typed_errors,
}


def problem_checks(problem: Problem) -> list[tuple[str, Callable[[Harness], None]]]:
    """The named checks of ``problem`` itself."""
    return list(PROBLEM_CHECKS.items())


def method_checks(problem: Problem, method: Method,
                  backends: tuple[str, ...] | None = None) -> list[tuple[str, Callable[[Harness], None]]]:
    """The named checks of one method. ``backends`` (default: every registered back-end) are the
    back-ends the time-limit honesty check is run through, for methods that use one."""
    from .backends import BACKENDS

    out: list[tuple[str, Callable]] = [(name, (lambda h, f=f: f(h, method))) for name, f in METHOD_CHECKS.items()]
    if method.kind in ("exact", "bound"):
        if method.uses_backend:
            for b in backends or tuple(BACKENDS):
                out.append((f"time_limit_honesty[{b}]", lambda h, b=b: check_time_limit_honesty(h, method, b)))
        else:
            out.append(("time_limit_honesty", lambda h: check_time_limit_honesty(h, method)))
    return out


def battery_cases(problem: Problem, backends: tuple[str, ...] | None = None
                  ) -> list[tuple[str, Callable[[Harness], None]]]:
    """Every check of ``problem`` and of its methods, as ``(check id, check)`` pairs; the id names
    the problem, the method (if any) and the check: ``PROBLEM::instance_round_trip``,
    ``PROBLEM/METHOD::checker_agrees``, ``PROBLEM/METHOD::time_limit_honesty[highs]``."""
    cases = [(f"{problem.name}::{n}", f) for n, f in problem_checks(problem)]
    for m in problem.methods.values():
        cases += [(f"{problem.name}/{m.name}::{n}", f) for n, f in method_checks(problem, m, backends)]
    return cases


def run_check(check: Callable[[Harness], None], harness: Harness) -> str:
    """One check's outcome: ``"passed"``, ``"skipped: why"`` or ``"failed: message"``. Any
    exception is a failure of this check alone (named with its type when it is not an assertion),
    never the end of the battery; only an interrupt (Ctrl-C) stops it."""
    try:
        check(harness)
    except CheckSkipped as exc:
        return f"skipped: {exc}"
    except AssertionError as exc:
        return f"failed: {exc}"
    except Exception as exc:  # noqa: BLE001 - a crashing method or checker is this check's failure
        return f"failed: {type(exc).__name__}: {exc}"
    return "passed"


def run_battery(problem: Problem, seeds: tuple[int, ...] = (0, 1, 2, 3)) -> dict[str, str]:
    """Run every check of ``problem`` and its methods; ``{check id: "passed" | "skipped: why" |
    "failed: message"}`` (for a problem registered outside the test suite, e.g. while writing it).
    Every check is reported: one that raises (an assertion, or any other exception from the
    method, the checker or the generator) fails alone and the others still run."""
    h = Harness(problem, seeds)
    return {cid: run_check(f, h) for cid, f in battery_cases(problem)}


def check_method(problem: Problem, method: Method, instance: Any, reference: Result | None = None,
                 *, seed: int = 0, backend: str | None = None) -> Result:
    """Every method check on one given instance (for problem-specific tests); the method's result.

    ``reference`` is the reference method's result on ``instance`` (None: compared with nothing).
    Skipped checks pass silently here; the suite's named checks report them.
    """
    h = Harness(problem, seeds=(seed,))
    h._instances[seed] = instance
    ref_m = reference_method_for(problem, instance) if reference is not None else None
    h._references[seed] = (ref_m, reference)
    if backend is not None:
        h._results[(method.name, seed)] = solve(instance, method.name, seed=seed, backend=backend)
    for _name, f in method_checks(problem, method, backends=(backend or "highs",)):
        try:
            f(h)
        except CheckSkipped:
            pass
    return h.result(method, seed)
