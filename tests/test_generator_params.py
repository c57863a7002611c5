"""Generators validate like solvers, in the API as in the command line.

Every generator option of every problem declares its type and, for numbers, a finite interval
(``optsched.core.params``); ``optsched.generate`` and ``optsched generate`` check them in one place.
Each option is fed the usual bad values through both entry points: the answer is an instance or
an ``InvalidOptionError`` (exit 2, one line on stderr) naming the field, the same verdict from
both, never another exception and never a hang.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import signal

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInputError, InvalidOptionError
from optsched.core.params import Interval, check_value, validate_parameters
from optsched.core.registry import Option

PROBLEMS = sorted(optsched.core.registry.problems())

#: a hang guard, not a timing claim: the slowest valid case here generates a tiny instance in well
#: under a second; a generator that loops on a bad value would run until this alarm
HANG_GUARD_S = 30

#: the usual bad values, as Python values and as typed on the command line
BAD = [(0, "0"), (-1, "-1"), (math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity"),
       (1e12, "1e12"), (10 ** 12, "1000000000000"), (None, "null"), ("a string", "a-string"), ([1], "[1]"),
       (2.5, "2.5"), (True, "true"),
       # an integer past the float range: float() raises OverflowError, which must become the typed error
       (10 ** 400, "1" + "0" * 400)]

#: a problem with a ``tiny`` preset (the registry's first)
TINY = next(name for name, prob in optsched.core.registry.problems().items() if "tiny" in prob.presets)


@contextlib.contextmanager
def hang_guard():
    def alarm(signum, frame):
        raise TimeoutError(f"no answer within {HANG_GUARD_S} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_GUARD_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _base(prob) -> dict:
    """The smallest preset (``tiny`` when there is one): the other options of each case."""
    return {"preset": "tiny"} if "tiny" in prob.presets else {}


def test_every_parameter_is_declared_with_a_type_and_a_finite_range():
    for name in PROBLEMS:
        prob = optsched.get_problem(name)
        accepted = {p.name for p in inspect.signature(prob.generate).parameters.values()
                    if p.kind is not p.VAR_KEYWORD} - {"seed", "preset"}
        assert accepted <= set(prob.generator_options), (name, accepted - set(prob.generator_options))
        for key, opt in prob.generator_options.items():
            if opt.type in (int, float):
                assert isinstance(opt.bounds, Interval), f"{name}: {key} declares no interval"
            if opt.type is tuple and key != "table":  # the interference table is validated by its builder
                assert isinstance(opt.items, Interval), f"{name}: {key} declares no item interval"
            # the default and every preset lie inside the declaration
            check_value(name, key, opt, opt.default)
        for preset, params in prob.presets.items():
            validate_parameters(name, prob.generator_options, params)


@pytest.mark.parametrize("name", PROBLEMS)
def test_bad_values_through_the_api_and_the_cli_agree(name, tmp_path, capsys):
    prob = optsched.get_problem(name)
    base = _base(prob)
    out = tmp_path / "instance.json"
    wrong = []
    for key, opt in prob.generator_options.items():
        cases = list(BAD)
        if opt.type is str:
            cases.append(("no-such-value", "no-such-value"))
        dashed = f"--{key.replace('_', '-')}"
        for value, text in cases:
            try:
                with hang_guard():  # one guard per call: the alarm fires once
                    optsched.generate(name, seed=0, **base, **{key: value})
                api = "ok"
            except InvalidInputError as exc:
                api = "invalid"
                if "\n" in str(exc) or (not _valid(opt, value) and exc.field != key
                                        and not exc.field.startswith(key + "[")):
                    wrong.append(f"API {key}={value!r}: {exc}")
                elif not _valid(opt, value) and not isinstance(exc, InvalidOptionError):
                    wrong.append(f"API {key}={value!r}: a {type(exc).__name__}, not an InvalidOptionError")
            except TimeoutError as exc:  # a hang: no point waiting for the others
                pytest.fail(f"API {key}={value!r}: {exc}")
            except Exception as exc:  # noqa: BLE001 (the finding this test reports)
                api = "crash"
                wrong.append(f"API {key}={value!r}: {type(exc).__name__}: {exc}")
            argv = ["generate", name, "--seed", "0", dashed, text, "-o", str(out)]
            if base:
                argv[2:2] = ["--preset", base["preset"]]
            try:
                with hang_guard():
                    code = main(argv)
            except TimeoutError as exc:
                pytest.fail(f"CLI {dashed} {text}: {exc}")
            except Exception as exc:  # noqa: BLE001
                code = f"{type(exc).__name__}: {exc}"
            err = capsys.readouterr().err
            if code not in (0, 2) or (code == 2 and (len(err.strip().splitlines()) != 1 or "Traceback" in err)):
                wrong.append(f"CLI {dashed} {text}: exit {code}: {err.strip()}")
            elif code == 2 and key not in err and dashed not in err:
                wrong.append(f"CLI {dashed} {text}: the error does not name the field: {err.strip()}")
            if not _valid(opt, value) and api == "ok":
                wrong.append(f"API {key}={value!r}: accepted")
            if not _valid(opt, value) and opt.type is not str and code != 2:
                wrong.append(f"CLI {dashed} {text}: accepted")
            if _valid(opt, value) and opt.type is not str and (api == "ok") != (code == 0):
                wrong.append(f"{key}={value!r}: API {api}, CLI exit {code}")  # the same verdict from both
    assert not wrong, "\n".join(wrong)


def _valid(opt, value) -> bool:
    """Whether ``value`` passes the declaration alone (the generator may still refuse it for
    reasons that involve other options)."""
    try:
        check_value("p", "f", opt, value)
    except InvalidOptionError:
        return False
    return True


def test_a_float_where_an_int_is_declared_is_refused_naming_the_field():
    decl = {"jobs": Option(int, 4, "jobs", bounds=Interval(1, 10))}
    for bad in (2.0, 2.5, "2", True, None, [2]):
        with pytest.raises(InvalidOptionError) as err:
            validate_parameters("demo", decl, {"jobs": bad})
        assert err.value.field == "jobs"
    assert validate_parameters("demo", decl, {"jobs": 10}) == {"jobs": 10}
    with pytest.raises(InvalidOptionError, match=r"must be in \[1, 10\]"):
        validate_parameters("demo", decl, {"jobs": 11})
    with pytest.raises(InvalidOptionError, match="unknown generator option"):
        validate_parameters("demo", decl, {"job": 1})


def test_interval_ends():
    half_open = Interval(0, 1, closed="right")
    assert not half_open.contains(0) and half_open.contains(1) and half_open.contains(0.5)
    assert str(half_open) == "(0, 1]"
    with pytest.raises(ValueError):
        Interval(0, math.inf)
    opt = Option(float, 1.0, "x", bounds=Interval(0, 1e3))
    assert check_value("p", "x", opt, 3) == 3  # accepted as given
    with pytest.raises(InvalidOptionError, match="finite"):
        check_value("p", "x", opt, math.nan)


def test_the_api_refuses_a_non_integer_seed():
    with pytest.raises(InvalidOptionError, match="seed"):
        optsched.generate(TINY, seed=1.5, preset="tiny")
    assert json.loads(optsched.generate(TINY, seed=1, preset="tiny").dumps())["problem"] == TINY


#: every declared number interval open at its upper end, as (problem, option, interval)
OPEN_ABOVE = [(name, key, opt.bounds) for name in PROBLEMS
              for key, opt in optsched.get_problem(name).generator_options.items()
              if opt.bounds is not None and opt.bounds.closed in ("left", "neither")]
#: every list option with declared items, as (problem, option)
LISTS = [(name, key) for name in PROBLEMS for key, opt in optsched.get_problem(name).generator_options.items()
         if opt.type is tuple and opt.items is not None]


def test_an_interval_open_above_refuses_its_upper_end():
    for closed in ("left", "neither"):
        interval = Interval(0, 1, closed=closed)
        assert not interval.contains(1) and interval.contains(0.5) and not interval.contains(1.5)
        opt = Option(float, 0.5, "x", bounds=interval)
        with pytest.raises(InvalidOptionError) as err:
            check_value("p", "x", opt, 1)
        assert err.value.field == "x" and err.value.rule == f"must be in {interval}"
    assert OPEN_ABOVE, "no generator option declares an interval open above (the case below needs one)"


@pytest.mark.parametrize("name,key,interval", OPEN_ABOVE, ids=[f"{n}-{k}" for n, k, _ in OPEN_ABOVE])
def test_a_generator_option_open_above_refuses_its_upper_end(name, key, interval):
    base = _base(optsched.get_problem(name))
    with pytest.raises(InvalidOptionError) as err:
        optsched.generate(name, seed=0, **base, **{key: interval.high})
    assert err.value.field == key and str(interval) in err.value.rule


@pytest.mark.parametrize("name,key", LISTS, ids=[f"{n}-{k}" for n, k in LISTS])
def test_every_item_of_a_list_option_is_checked_not_only_the_first(name, key):
    opt = optsched.get_problem(name).generator_options[key]
    good = opt.items.low if opt.items.closed in ("both", "left") else (opt.items.low + opt.items.high) / 2
    good = int(good) if opt.item_type is int else float(good)
    beyond = opt.items.high + 1   # above the interval, whatever its closed ends
    beyond = int(beyond) if opt.item_type is int else float(beyond)
    with pytest.raises(InvalidOptionError) as err:
        check_value(name, key, opt, [good, beyond])
    assert err.value.field == f"{key}[1]"
    with pytest.raises(InvalidOptionError) as err:
        optsched.generate(name, seed=0, **_base(optsched.get_problem(name)), **{key: [good, good, beyond]})
    assert err.value.field == f"{key}[2]"
