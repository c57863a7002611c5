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
    }


@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("case", ["infeasible with a solution", "optimal with a positive gap",
                                  "objective better than its own bound",
                                  "gap inconsistent with objective and bound", "gap without a bound"])
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
