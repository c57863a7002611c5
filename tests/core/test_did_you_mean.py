"""Unknown names suggest the close known ones, through the API and the command line: problems,
methods, back-ends, presets, formats, generator and method options, data sets, CLI choices."""

from __future__ import annotations

import pytest

import optsched
from optsched import cli
from optsched.core.errors import InvalidOptionError, UnknownNameError, close_matches, did_you_mean
from optsched.core.registry import problems


def test_the_shared_helper():
    assert close_matches("gredy", ["greedy", "milp", "lp-round"]) == ["greedy"]
    assert close_matches("LP_ROUND", ["greedy", "lp-round"]) == ["lp-round"]   # case and _/- fold
    assert did_you_mean("zzzz", ["greedy", "milp"]) == ""                         # nothing close: no hint
    err = UnknownNameError("method", "gredy", ["greedy", "milp"])
    assert err.suggestions == ["greedy"] and "(did you mean 'greedy'?)" in str(err)
    assert isinstance(err, KeyError) and str(err).endswith("known: greedy, milp")


def _with_method_option():
    for name, p in sorted(problems().items()):
        for m in p.methods.values():
            if m.options and "tiny" in p.presets:
                return p, m, next(iter(m.options))
    pytest.skip("no registered method declares an option")


def test_api_names_suggest_the_close_ones():
    problem = "mknap" if "mknap" in problems() else sorted(problems())[0]
    p = optsched.get_problem(problem)
    with pytest.raises(UnknownNameError, match=rf"did you mean '{problem}'"):
        optsched.get_problem(problem[:-1] + "x" + problem[-1])
    inst = optsched.generate(problem, seed=1, preset=next(iter(p.presets)))
    method = sorted(p.methods, key=len)[-1]
    with pytest.raises(UnknownNameError, match=rf"did you mean '{method}'"):
        optsched.solve(inst, method[:-1])
    with pytest.raises(UnknownNameError, match="did you mean 'highs'"):
        optsched.solve(inst, p.default_method, backend="hihgs")
    preset = sorted(p.presets, key=len)[-1]
    with pytest.raises(UnknownNameError, match=rf"did you mean '{preset}'"):
        optsched.generate(problem, seed=1, preset=preset + "s")
    option = sorted(p.generator_options, key=len)[-1]
    with pytest.raises(InvalidOptionError, match=rf"unknown generator option \(did you mean '{option}'\?\)"):
        optsched.generate(problem, seed=1, **{option + "x": 1})


def test_method_options_suggest_the_close_ones():
    p, m, option = _with_method_option()
    inst = optsched.generate(p.name, seed=1, preset="tiny")
    with pytest.raises(InvalidOptionError, match=rf"did you mean '{option}'"):
        optsched.solve(inst, m.name, options={option.upper(): m.options[option].default})


@pytest.mark.parametrize("argv, hint", [
    (["sovle"], "did you mean 'solve'"),
    (["methods", "mknp"], "did you mean 'mknap'"),
    (["generate", "mknap", "--preset", "tinny", "-o", "x.json"], "did you mean 'tiny'"),
    (["generate", "mknap", "--itmes", "5", "-o", "x.json"], "did you mean '--items'"),
    (["data", "fetch", "mknp"], "did you mean 'mknap'"),
    (["repro", "--executor", "daks"], "did you mean 'dask'"),
])
def test_cli_names_suggest_the_close_ones(argv, hint, capsys, tmp_path, monkeypatch):
    if "mknap" not in problems():
        pytest.skip("the examples name mknap")
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and hint in err and not (tmp_path / "x.json").exists()
