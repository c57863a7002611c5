"""``optsched check`` as a referee, for every problem: a result record's fields are read with their
declared types before any arithmetic (a forged objective is invalid input, exit 2, one line), a
record that contradicts itself is rejected (exit 1), and a checker given any malformed solution
answers with a report or a typed error, never a crash.

Exit codes (docs/cli.md, "Exit statuses"): 0 feasible and every claim holds; 1 a violation, an
objective that disagrees with the checker's, or a self-contradictory record; 2 invalid input.
"""

from __future__ import annotations

import copy
import json
import math

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.core.result import Result, relative_gap

PROBLEMS = sorted(optsched.core.registry.problems())


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """Per problem: an instance file and a genuine result record (the default method, tiny seed 0)."""
    out = {}
    for name in PROBLEMS:
        prob = optsched.get_problem(name)
        inst = prob.tiny_instances(0)
        result = optsched.solve(inst, prob.default_method)
        assert result.solution is not None, (name, result.status, result.reason)
        folder = tmp_path_factory.mktemp(name)
        ipath = folder / "instance.json"
        ipath.write_text(inst.dumps())
        out[name] = (inst, str(ipath), json.loads(result.dumps()), folder)
    return out


def run_check(capsys, name, ipath, record, folder):
    path = folder / "forged.json"
    path.write_text(json.dumps(record))
    code = main(["check", name, ipath, str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", PROBLEMS)
def test_a_genuine_record_passes(name, solved, capsys):
    inst, ipath, record, folder = solved[name]
    code, out, err = run_check(capsys, name, ipath, record, folder)
    assert code == 0, (out, err)
    assert "contradicts" not in out


@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("field,value", [("objective", "12"), ("objective", [1.0]), ("objective", {"v": 1}),
                                         ("objective", True), ("objective", float("nan")),
                                         ("objective", float("inf")), ("bound", "0"), ("gap", [0.0]),
                                         ("gap", -0.5), ("status", ["optimal"]), ("wall_s", "1"),
                                         ("seed", 1.5), ("settings", []), ("method", 3)])
def test_forged_field_types_are_invalid_input(name, field, value, solved, capsys):
    inst, ipath, record, folder = solved[name]
    code, out, err = run_check(capsys, name, ipath, dict(record, **{field: value}), folder)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"field {field!r}" in lines[0], err
    assert "Traceback" not in err


def _contradictions(prob, record):
    """Records that each contradict themselves in exactly one way, from a genuine one."""
    obj = record["objective"]
    step = 0.5 * max(1.0, abs(obj))
    worse = obj - step if prob.sense == "min" else obj + step     # a valid bound, strictly on OPT's side
    better = obj + step if prob.sense == "min" else obj - step    # a "bound" the objective beats
    return {
        "infeasible with a solution": (dict(record, status="infeasible", bound=None, gap=None),
                                       "status 'infeasible' but the record carries a solution"),
        "optimal with a positive gap": (dict(record, status="optimal", bound=worse, gap=relative_gap(obj, worse)),
                                        "status 'optimal' with gap"),
        "objective better than its own bound": (dict(record, status="feasible", bound=better,
                                                     gap=relative_gap(obj, better)),
                                                "better than the record's own bound"),
        "gap inconsistent with objective and bound": (dict(record, status="feasible", bound=obj, gap=0.3),
                                                      "gap 0.3 is not"),
        "gap without a bound": (dict(record, status="feasible", bound=None, gap=0.0), "without both"),
        # an "optimal" record whose bound is the trivial one: -inf below a minimum, +inf above a maximum
        "optimal with an infinite bound": (dict(record, status="optimal", bound=-math.inf if prob.sense == "min"
                                                else math.inf, gap=0.0), "is not finite"),
    }


@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("case", ["infeasible with a solution", "optimal with a positive gap",
                                  "objective better than its own bound",
                                  "gap inconsistent with objective and bound", "gap without a bound",
                                  "optimal with an infinite bound"])
def test_self_contradictory_records_exit_1(name, case, solved, capsys):
    inst, ipath, record, folder = solved[name]
    forged, message = _contradictions(optsched.get_problem(name), record)[case]
    code, out, err = run_check(capsys, name, ipath, forged, folder)
    assert code == 1, (out, err)
    lines = [line for line in out.splitlines() if "contradicts itself" in line]
    assert len(lines) == 1 and message in lines[0], out


def test_optimal_within_the_solvers_own_relative_gap_is_no_contradiction():
    r = Result(problem="a-problem", method="milp", fidelity="ours", status="optimal", objective=100.0, bound=100.5,
               gap=0.005, settings={"mip_rel_gap": 0.01})
    from optsched.core.referee import record_contradictions

    assert record_contradictions(r, "max") == []
    assert record_contradictions(Result(**{**r.__dict__, "settings": {}}), "max")  # without it: a contradiction


def test_optimal_within_the_solvers_absolute_gap_is_no_contradiction():
    # HiGHS calls a MIP optimal within mip_abs_gap = 1e-6: a small objective then has a large
    # relative gap (a solve of one problem on a dnn-partitioning graph gave exactly this)
    from optsched.core.referee import record_contradictions

    obj, bound = 0.003473941523, 0.003473521305
    r = Result(problem="a-problem", method="milp", fidelity="ours", status="optimal", objective=obj,
               bound=bound, gap=relative_gap(obj, bound), settings={"mip_rel_gap": 0.0})
    assert r.gap > 1e-4 and record_contradictions(r, "min") == []
    far = Result(**{**r.__dict__, "bound": obj - 2e-6, "gap": relative_gap(obj, obj - 2e-6)})
    assert record_contradictions(far, "min")  # beyond the absolute gap: a contradiction


@pytest.mark.parametrize("name", PROBLEMS)
def test_a_record_of_another_instance_is_invalid_input(name, solved, capsys):
    """A genuine record whose ``instance_sha256`` is another instance's: exit 2, one line naming
    the field (the solution may well be feasible on this instance too: it was not computed for it)."""
    inst, ipath, record, folder = solved[name]
    other = "0" * 64 if record["instance_sha256"] != "0" * 64 else "1" * 64
    code, out, err = run_check(capsys, name, ipath, dict(record, instance_sha256=other), folder)
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and "field 'instance_sha256'" in lines[0] and "another instance" in lines[0], err


def test_a_record_of_a_real_other_instance_is_refused_by_check_and_plot(solved, tmp_path, capsys):
    """The record of a different instance of the same problem (what a mixed-up file gives), on the
    command line and in Python: ``check`` and ``plot`` both refuse it naming ``instance_sha256``."""
    from optsched.plot import example, pictures

    name = pictures()[0]
    ex = example(name)
    a = optsched.generate(name, seed=ex["seed"], preset=ex["preset"])
    b = optsched.generate(name, seed=ex["seed"] + 1, preset=ex["preset"])
    assert a.sha256() != b.sha256()
    res_b = optsched.solve(b, ex["method"])
    (tmp_path / "a.json").write_text(a.dumps())
    res_b.save(tmp_path / "rb.json")
    for argv in (["check", name, str(tmp_path / "a.json"), str(tmp_path / "rb.json")],
                 ["plot", name, str(tmp_path / "a.json"), str(tmp_path / "rb.json"), "-o", str(tmp_path / "p.png")]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2 and "field 'instance_sha256'" in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert not (tmp_path / "p.png").exists()
    for call in (lambda: optsched.check(a, res_b), lambda: optsched.plot(a, res_b)):
        with pytest.raises(InvalidInstanceError) as info:
            call()
        assert info.value.field == "instance_sha256"


@pytest.mark.parametrize("name", PROBLEMS)
def test_the_api_check_judges_a_records_claims_like_the_cli(name, solved):
    """``optsched.check(instance, result)``: a genuine record holds; each self-contradictory one
    (the CLI's exit 1) is not feasible, with the contradiction among its violations; a record whose
    objective is not the checker's is not either."""
    inst, _, record, _ = solved[name]
    prob = optsched.get_problem(name)
    genuine = optsched.check(inst, Result.from_json(record))
    assert genuine.feasible and genuine.details["record_contradictions"] == [], genuine.violations
    for case, (forged, message) in _contradictions(prob, record).items():
        report = optsched.check(inst, Result.from_json(forged))
        assert not report.feasible, case
        assert any("contradicts itself" in v and message in v for v in report.violations), (case, report.violations)
    obj = record["objective"]
    shifted = obj + 1.0 + abs(obj)
    lied = dict(record, status="feasible", objective=shifted, bound=None, gap=None)
    report = optsched.check(inst, Result.from_json(lied))
    assert not report.feasible and report.details["objective_agrees"] is False, report.violations


def test_an_infinite_relative_gap_is_matched_only_by_an_infinite_gap():
    """Objective 0 with a bound 1 away: the relative gap is infinite; a stored gap 0 (or any finite
    one) does not match it (a slack proportional to the expected gap would accept every gap)."""
    from optsched.core.referee import record_contradictions

    r = Result(problem="p", method="m", fidelity="ours", status="feasible", objective=0.0, bound=1.0, gap=0.0)
    assert any("gap 0.0 is not" in c for c in record_contradictions(r, "max"))
    assert record_contradictions(Result(**{**r.__dict__, "gap": math.inf}), "max") == []


def test_a_json_round_trip_of_an_infinite_gap_is_consistent():
    from optsched.core.referee import record_contradictions

    r = Result(problem="p", method="m", fidelity="ours", status="feasible", objective=0.0, bound=1.0,
               gap=relative_gap(0.0, 1.0))
    assert math.isinf(r.gap) and record_contradictions(Result.from_json(json.loads(r.dumps())), "max") == []


# -- checkers facing malformed solutions ---------------------------------------------------------
BAD_LEAVES = ["x", None, float("nan"), float("inf"), -1, 10 ** 12, 1.5, [], {}, True, [[1]]]


def _paths(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _paths(value, path + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj[:3]):
            yield from _paths(value, path + (i,))


def _replaced(obj, path, value):
    if not path:
        return value
    out = copy.deepcopy(obj)
    cur = out
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return out


@pytest.mark.parametrize("name", PROBLEMS)
def test_checkers_never_crash_on_malformed_solutions(name, solved):
    """Every node of a genuine solution (the first three items of each list) replaced in turn by
    each usual bad value: the checker returns a report (infeasible unless the value happens to be
    a valid one) or raises a typed error; a TypeError, KeyError or IndexError is a checker that
    did arithmetic before validating."""
    prob = optsched.get_problem(name)
    inst, _, record, _ = solved[name]
    solution = record["solution"]
    tried = 0
    for path in _paths(solution):
        for bad in BAD_LEAVES:
            forged = _replaced(solution, path, bad)
            try:
                report = prob.check(inst, forged)
            except InvalidInstanceError:
                continue
            tried += 1
            assert report.feasible in (True, False)
            if not path and bad is not None:  # the whole solution replaced by a scalar or a list
                assert not report.feasible, (name, bad)
    assert tried > 0
