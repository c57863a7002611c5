"""No option is silently clamped: an out-of-range option is an error naming it (exit 2, one line),
in the API as on the command line; a device read as a file is refused, never read without end."""

from __future__ import annotations

import math
import os

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidOptionError
from optsched.core.params import MAX_THREADS
from tests.declared import exact_model_method, pick, solves_tiny_exactly

#: the problem of the cases: a ``tiny`` preset and an exact back-end method that proves its optimum
PROBLEM = pick(solves_tiny_exactly, "with a tiny preset solved exactly on a back-end").name
EXACT = exact_model_method(optsched.get_problem(PROBLEM))
#: every registered import format
IMPORTERS = sorted(name for prob in optsched.core.registry.problems().values() for name in prob.importers)


@pytest.fixture(scope="module")
def instance_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ranges") / "instance.json"
    path.write_text(optsched.generate(PROBLEM, seed=0, preset="tiny").dumps())
    return str(path)


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("value", [str(2 ** 31), "1" + "0" * 400, "-1"])
def test_node_limit_out_of_range_is_an_error(instance_file, capsys, value):
    assert main(["solve", PROBLEM, instance_file, "--method", EXACT, "--quiet", "--node-limit", value]) == 2
    assert "--node-limit" in one_line_error(capsys)


@pytest.mark.parametrize("value", ["1e6", "1000000", str(MAX_THREADS + 1), "0", "-1", "two"])
def test_threads_out_of_range_is_an_error(instance_file, capsys, value):
    assert main(["solve", PROBLEM, instance_file, "--method", EXACT, "--quiet", "--threads", value]) == 2
    assert "--threads" in one_line_error(capsys)


def test_threads_at_the_bounds_are_accepted(instance_file, capsys):
    assert main(["solve", PROBLEM, instance_file, "--method", EXACT, "--quiet", "--threads", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("setting,value", [("threads", 10 ** 6), ("threads", 0), ("threads", 2.0), ("threads", True),
                                           ("mip_rel_gap", math.nan), ("mip_rel_gap", -0.1), ("mip_rel_gap", math.inf),
                                           ("node_limit", -1), ("node_limit", 1.5), ("seed", 1.5),
                                           ("node_limit", 2 ** 31), ("node_limit", 10 ** 400),
                                           ("time_limit", math.inf), ("time_limit", 0), ("time_limit", "5")])
def test_the_api_refuses_the_same_settings(setting, value):
    inst = optsched.generate(PROBLEM, seed=0, preset="tiny")
    with pytest.raises(InvalidOptionError) as err:
        optsched.solve(inst, EXACT, **{setting: value})
    assert err.value.field == setting


@pytest.mark.parametrize("value", ["1000000", str(MAX_THREADS + 1)])
def test_repro_jobs_beyond_the_bound_is_an_error(tmp_path, capsys, value):
    assert main(["repro", "--quick", "--only", "T1", "--jobs", value, "--out", str(tmp_path)]) == 2
    assert "--jobs" in one_line_error(capsys)
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="no /dev/urandom on this system")
@pytest.mark.parametrize("argv", [["solve", PROBLEM, "/dev/urandom", "--quiet"],
                                  ["check", PROBLEM, "/dev/urandom", "/dev/urandom"]]
                         + [["import", fmt, device] for fmt in IMPORTERS for device in ("/dev/urandom", "/dev/zero")],
                         ids=lambda argv: "-".join(a.rsplit("/", 1)[-1] for a in argv[:3]))
def test_a_device_is_refused_in_one_line(argv, capsys):
    assert main(argv) == 2
    assert "device, not a file" in one_line_error(capsys)


def test_a_pipe_is_still_read(instance_file, capsys):
    read, write = os.pipe()
    with open(instance_file, "rb") as f:
        data = f.read()
    assert len(data) < 60_000  # fits a pipe's buffer: no writer thread needed
    os.write(write, data)
    os.close(write)
    try:
        assert main(["solve", PROBLEM, f"/dev/fd/{read}", "--method", EXACT, "--quiet"]) == 0
    finally:
        os.close(read)
    assert "optimal" in capsys.readouterr().out


# -- one check for the API and the command line: settings, names, method options ---------------

#: an integer past the float range: ``float()`` raises OverflowError, which must become the typed error
HUGE = 10 ** 400


@pytest.fixture(scope="module")
def tiny():
    return optsched.generate(PROBLEM, seed=0, preset="tiny")


@pytest.mark.parametrize("setting", ["time_limit", "mip_rel_gap"])
@pytest.mark.parametrize("value", [HUGE, -HUGE])
def test_a_setting_past_the_float_range_is_a_typed_error(tiny, setting, value):
    with pytest.raises(InvalidOptionError) as err:
        optsched.solve(tiny, EXACT, **{setting: value})
    assert err.value.field == setting and setting in str(err.value)


@pytest.mark.parametrize("kwargs,field", [
    ({"backend": 5}, "backend"), ({"backend": ""}, "backend"), ({"backend": "  "}, "backend"),
    ({"backend": ["highs"]}, "backend"), ({"method": ""}, "method"), ({"method": 5}, "method"),
    ({"options": "x"}, "options"), ({"options": [("a", 1)]}, "options"), ({"options": 3}, "options"),
])
def test_names_and_options_of_the_wrong_kind_are_typed_errors(tiny, kwargs, field):
    method = kwargs.pop("method", EXACT)
    with pytest.raises(InvalidOptionError) as err:
        optsched.solve(tiny, method, **kwargs)
    assert err.value.field == field and f"'{field}'" in str(err.value)


@pytest.mark.parametrize("instance", [{"problem": PROBLEM}, "instance.json", None, 3])
def test_something_else_than_an_instance_is_a_typed_error(tiny, instance):
    from optsched.core.errors import InvalidInstanceError

    data = tiny.to_json() if isinstance(instance, dict) else instance
    with pytest.raises(InvalidInstanceError) as err:
        optsched.solve(data, EXACT)
    assert err.value.field == "instance" and type(data).__name__ in str(err.value)


@pytest.mark.parametrize("flag", ["--method", "--backend"])
def test_an_empty_method_or_backend_on_the_command_line_is_an_error(instance_file, capsys, flag):
    assert main(["solve", PROBLEM, instance_file, "--quiet", flag, ""]) == 2
    assert flag in one_line_error(capsys)


def test_the_default_method_and_backend_are_taken_when_left_out(instance_file, capsys):
    assert main(["solve", PROBLEM, instance_file, "--quiet"]) == 0
    capsys.readouterr()


#: every declared method option, as (problem, method, option)
METHOD_OPTIONS = [(p.name, m.name, k) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                  for k in m.options]


def _bad_values(opt) -> list:
    """Values ``opt`` refuses whatever its interval: the wrong type, a list for a scalar, and for
    numbers NaN, the infinities, an integer past the float range; for a string with listed
    alternatives, one that is not listed."""
    from optsched.core.params import effective_bounds

    bad = [[1], {"a": 1}, None]
    if opt.type is int:
        bad += [2.0, True, "3", HUGE, -HUGE]
    elif opt.type is float:
        bad += [math.nan, -math.inf, HUGE, True, "1.5"]
        if opt.bounds is None or opt.bounds.infinity is None:   # unless +inf has a declared meaning
            bad.append(math.inf)
    elif opt.type is bool:
        bad += [0, 1, "true"]
    elif opt.type is str:
        bad += [5, 2.5]
        if opt.allowed():
            bad.append("no-such-value")
    bounds = effective_bounds(opt)
    if bounds is not None:   # just past each closed end
        bad += [bounds.high + 1, bounds.low - 1] if opt.type is int else [bounds.high * 2 + 1, bounds.low - 1.0]
    return bad


def test_every_method_option_refuses_what_its_declaration_refuses():
    """Every method option of every problem goes through the one check (resolve_options, which
    ``optsched.solve`` calls before the method runs): each refused value is an InvalidOptionError
    naming ``option NAME``, never a coercion (``[1]`` to ``"[1]"``) or an OverflowError."""
    wrong = []
    for problem, method, key in METHOD_OPTIONS:
        meth = optsched.get_problem(problem).methods[method]
        opt = meth.options[key]
        assert meth.resolve_options({key: opt.default})[key] == opt.default   # the default is valid
        for value in _bad_values(opt):
            try:
                got = meth.resolve_options({key: value})
            except InvalidOptionError as exc:
                if exc.field != f"option {key}" or key not in str(exc):
                    wrong.append(f"{problem}/{method} {key}={value!r}: {exc}")
            except Exception as exc:  # noqa: BLE001 (the finding this test reports)
                wrong.append(f"{problem}/{method} {key}={value!r}: {type(exc).__name__}: {exc}")
            else:
                wrong.append(f"{problem}/{method} {key}={value!r}: accepted as {got[key]!r}")
    assert not wrong, "\n".join(wrong)


def test_a_method_option_is_checked_by_solve_before_the_method_runs(tiny):
    meth = optsched.get_problem(PROBLEM).get_method(EXACT)
    with pytest.raises(InvalidOptionError) as err:
        optsched.solve(tiny, EXACT, options={"no_such_option": 1})
    assert err.value.field == "option no_such_option"
    for key, opt in meth.options.items():
        with pytest.raises(InvalidOptionError) as err:
            optsched.solve(tiny, EXACT, options={key: [1]})
        assert err.value.field == f"option {key}"


#: a method with a number option and one with a string option of listed alternatives (command line)
NUMBER_OPTION = next((p, m, k) for p, m, k in METHOD_OPTIONS
                     if optsched.get_problem(p).methods[m].options[k].type is float
                     and optsched.get_problem(p).tiny_instances is not None)
CHOICE_OPTION = next((p, m, k) for p, m, k in METHOD_OPTIONS
                     if optsched.get_problem(p).methods[m].options[k].type is str
                     and optsched.get_problem(p).methods[m].options[k].allowed()
                     and optsched.get_problem(p).tiny_instances is not None)


@pytest.mark.parametrize("case,text", [(NUMBER_OPTION, "nan"), (NUMBER_OPTION, "Infinity"),
                                       (NUMBER_OPTION, "1" + "0" * 400), (NUMBER_OPTION, "[1]"),
                                       (CHOICE_OPTION, "[1]"), (CHOICE_OPTION, "no-such-value")])
def test_method_options_on_the_command_line_get_the_same_check(tmp_path, capsys, case, text):
    problem, method, key = case
    path = tmp_path / "instance.json"
    path.write_text(optsched.get_problem(problem).tiny_instances(0).dumps())
    out = tmp_path / "result.json"
    assert main(["solve", problem, str(path), "--method", method, "--quiet", "--option", f"{key}={text}",
                 "-o", str(out)]) == 2
    assert f"option {key}" in one_line_error(capsys)
    assert not out.exists()


def test_infinity_is_accepted_only_where_its_meaning_is_declared():
    from optsched.core.params import Interval, check_value
    from optsched.core.registry import Option

    plain = Option(float, 1.0, "x", bounds=Interval(0, 10))
    meant = Option(float, 1.0, "x", bounds=Interval(0, 10, infinity="no limit"))
    with pytest.raises(InvalidOptionError):
        check_value("p", "x", plain, math.inf)
    assert check_value("p", "x", meant, math.inf) == math.inf
    for bad in (-math.inf, math.nan, 11.0):
        with pytest.raises(InvalidOptionError):
            check_value("p", "x", meant, bad)
    assert str(meant.bounds) == "[0, 10] or inf (no limit)"
