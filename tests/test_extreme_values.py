"""Limits that hold on any valid input (docs/io.md, "Numeric limits").

* Every integer field of every problem refuses a value past 2^53 (past int64 it raised
  OverflowError deep inside ten problems) with a typed error naming the field.
* Each field whose value a method iterates over has a documented bound; just past it is a typed
  error naming the field, and at it (extreme but valid) every method of the problem ends within
  the time limit's hard bound, with a status that is not ``error``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import MAX_INTEGER
from tests.core.patience import patient
from tests.declared import declared

ROOT = Path(__file__).resolve().parents[1]
TIME_LIMIT = 2.0
#: the project's hard bound on a run given TIME_LIMIT: the watchdog's 1.5 x limit + 5 s, plus
#: 10 s for imports and instance generation; a guard against a method that ignores its limit (a
#: hang), stretched by the machine's load (tests/core/patience.py), not a measure of speed
HARD_S = 1.5 * TIME_LIMIT + 5 + 10


def _tiny(problem: str) -> dict:
    prob = optsched.get_problem(problem)
    preset = "tiny" if "tiny" in getattr(prob, "presets", {}) else None
    return optsched.generate(problem, seed=0, preset=preset).to_json()


def _first_int_field(data: dict) -> str | None:
    for key, value in data.items():
        if key != "format_version" and isinstance(value, int) and not isinstance(value, bool):
            return key
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return key
    return None


@pytest.mark.parametrize("problem", sorted(optsched.core.registry.problems()))
@pytest.mark.parametrize("value", [2**63, -(2**64), MAX_INTEGER + 1])
def test_integers_past_2_53_are_refused_naming_the_field(problem, value):
    data = _tiny(problem)
    field = _first_int_field(data)
    if field is None:
        pytest.skip(f"{problem} has no top-level integer field")
    data[field] = [value] * len(data[field]) if isinstance(data[field], list) else value
    cls = type(optsched.generate(problem, seed=0, preset="tiny" if "tiny" in optsched.get_problem(problem).presets
                                 else None))
    with pytest.raises(InvalidInstanceError) as exc:
        cls.from_json(data)
    assert field in str(exc.value) and len(str(exc.value).splitlines()) == 1


#: problem, field (a dotted path into the JSON; a list is filled with the value), largest valid value,
#: other fields to set for the run at the bound: each problem's tests declare them
#: (``EXTREME_BOUNDS`` in ``tests/<folder>/declarations.py``)
BOUNDS = [(problem, field, bound, others) for problem, bounds in declared("EXTREME_BOUNDS").items()
          for field, bound, others in bounds]


def _set(data: dict, path: str, value) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        data = data[int(p)] if p.isdigit() else data[p]
    cur = data[parts[-1]]
    data[parts[-1]] = [value] * len(cur) if isinstance(cur, list) else value


@pytest.mark.parametrize("problem,field,bound,others", BOUNDS, ids=[f"{p}-{f}" for p, f, _, _ in BOUNDS])
def test_one_past_the_bound_is_a_typed_error_naming_the_field(problem, field, bound, others):
    data = _tiny(problem)
    _set(data, field, bound + 1)
    cls = type(optsched.generate(problem, seed=0, preset="tiny"))
    with pytest.raises(InvalidInstanceError, match=field.split(".")[-1]):
        cls.from_json(data)


_RUN_ALL = """
import json, sys, time
import optsched
from optsched.core.errors import OptschedError
problem, data = sys.argv[1], json.loads(sys.argv[2])
cls = type(optsched.generate(problem, seed=0, preset="tiny"))
inst = cls.from_json(data)
out = {}
for name in optsched.get_problem(problem).methods:
    start = time.perf_counter()
    try:
        r = optsched.solve(inst, name, time_limit=float(sys.argv[3]))
        out[name] = [r.status, time.perf_counter() - start, r.reason]
    except OptschedError as exc:  # a typed refusal (not applicable at this size) is an answer
        out[name] = ["refused", time.perf_counter() - start, str(exc)[:200]]
print(json.dumps(out))
"""


@pytest.mark.parametrize("problem,field,bound,others", BOUNDS, ids=[f"{p}-{f}" for p, f, _, _ in BOUNDS])
def test_every_method_keeps_its_time_limit_at_the_bound(problem, field, bound, others):
    data = _tiny(problem)
    hard_s = patient(HARD_S)
    _set(data, field, bound)
    for other, value in others.items():
        _set(data, other, value)
    methods = len(optsched.get_problem(problem).methods)
    try:
        proc = subprocess.run([sys.executable, "-c", _RUN_ALL, problem, json.dumps(data), str(TIME_LIMIT)],
                              capture_output=True, text=True, timeout=hard_s * methods,
                              env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0"), cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{problem} with {field} = {bound}: the methods did not end within {hard_s * methods:.0f} s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    answers = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, (status, wall, reason) in answers.items():
        assert status != "error", (name, reason)
        assert wall <= hard_s, f"{problem}/{name} took {wall:.1f} s with a {TIME_LIMIT} s limit"


def _numeric_fields(data: dict) -> list[str]:
    """The top-level fields that hold a number or a flat list of numbers."""
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return [key for key, value in data.items() if key != "format_version"
            and (number(value) or (isinstance(value, list) and value and all(map(number, value))))]


@pytest.mark.parametrize("problem", sorted(optsched.core.registry.problems()))
def test_a_number_past_the_largest_magnitude_is_refused_naming_field_and_value(problem):
    """1e308 in any numeric field (a float field, an integer field, an entry of a list) is a typed
    error naming the field and the value given: never accepted (sums of such values overflow), never
    cast to int64 first (which reported -9223372036854775808 with RuntimeWarnings)."""
    import warnings

    data = _tiny(problem)
    cls = type(optsched.generate(problem, seed=0, preset="tiny" if "tiny" in optsched.get_problem(problem).presets
                                 else None))
    fields = _numeric_fields(data)
    assert fields, f"{problem}: no numeric field"
    for field in fields:
        bad = json.loads(json.dumps(data))
        if isinstance(bad[field], list):
            bad[field][0] = 1e308
        else:
            bad[field] = 1e308
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # a RuntimeWarning of a cast fails the case
            with pytest.raises(InvalidInstanceError) as exc:
                cls.from_json(bad)
        text = str(exc.value)
        assert field in text and "1e+308" in text and len(text.splitlines()) == 1, (field, text)
