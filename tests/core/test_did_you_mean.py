"""Unknown names suggest the close known ones, through the API and the command line: problems,
methods, back-ends, presets, formats, generator and method options, data sets, CLI choices."""

from __future__ import annotations

import pytest

import optsched
from optsched import cli
from optsched.core.datasets import DATASETS
from optsched.core.errors import InvalidOptionError, UnknownNameError, close_matches, did_you_mean
from optsched.core.registry import problems


def _pick():
    """A problem with presets and generator options (picked by what it declares, not by name)."""
    return next(p for _, p in sorted(problems().items()) if p.presets and p.generator_options and p.methods)


PROBLEM = _pick()
NAME = PROBLEM.name
PRESET = sorted(PROBLEM.presets, key=len)[-1]
OPTION = sorted(PROBLEM.generator_options, key=len)[-1]
DATASET = sorted(DATASETS, key=len)[-1]


def _typo(name: str) -> str:
    """``name`` with two letters swapped in the middle (a typical slip)."""
    i = len(name) // 2
    return name[:i - 1] + name[i] + name[i - 1] + name[i + 1:] if name[i] != name[i - 1] else name + "x"


def test_the_shared_helper():
    assert close_matches("gredy", ["greedy", "milp", "lp-round"]) == ["greedy"]
    assert close_matches("LP_ROUND", ["greedy", "lp-round"]) == ["lp-round"]   # case and _/- fold
    assert did_you_mean("zzzz", ["greedy", "milp"]) == ""                         # nothing close: no hint
    err = UnknownNameError("method", "gredy", ["greedy", "milp"])
    assert err.suggestions == ["greedy"] and "(did you mean 'greedy'?)" in str(err)
    assert isinstance(err, KeyError) and str(err).endswith("known: greedy, milp")


def test_api_names_suggest_the_close_ones():
    with pytest.raises(UnknownNameError, match=rf"did you mean '{NAME}'"):
        optsched.get_problem(_typo(NAME))
    inst = optsched.generate(NAME, seed=1, preset=PRESET)
    method = sorted(PROBLEM.methods, key=len)[-1]
    with pytest.raises(UnknownNameError, match=rf"did you mean '{method}'"):
        optsched.solve(inst, _typo(method))
    with pytest.raises(UnknownNameError, match="did you mean 'highs'"):
        optsched.solve(inst, PROBLEM.default_method, backend="hihgs")
    with pytest.raises(UnknownNameError, match=rf"did you mean '{PRESET}'"):
        optsched.generate(NAME, seed=1, preset=_typo(PRESET))
    with pytest.raises(InvalidOptionError, match=rf"unknown generator option \(did you mean '{OPTION}'\?\)"):
        optsched.generate(NAME, seed=1, **{_typo(OPTION): 1})


def test_method_options_suggest_the_close_ones():
    found = [(p, m) for _, p in sorted(problems().items()) for m in p.methods.values() if m.options and p.presets]
    if not found:
        pytest.skip("no registered method declares an option")
    p, m = found[0]
    option = next(iter(m.options))
    inst = optsched.generate(p.name, seed=1, preset=next(iter(p.presets)))
    with pytest.raises(InvalidOptionError, match=rf"did you mean '{option}'"):
        optsched.solve(inst, m.name, options={option.upper(): m.options[option].default})


@pytest.mark.parametrize("argv, hint", [
    (["sovle"], "did you mean 'solve'"),
    (["methods", _typo(NAME)], f"did you mean '{NAME}'"),
    (["generate", NAME, "--preset", _typo(PRESET), "-o", "x.json"], f"did you mean '{PRESET}'"),
    (["generate", NAME, "--" + _typo(OPTION).replace("_", "-"), "5", "-o", "x.json"],
     f"did you mean '--{OPTION.replace('_', '-')}'"),
    (["data", "fetch", _typo(DATASET)], f"did you mean '{DATASET}'"),
    (["repro", "--executor", "daks"], "did you mean 'dask'"),
    (["solve", NAME, "x.json", "--time-limt", "5"], "did you mean '--time-limit'"),
], ids=["command", "problem", "preset", "generator-option", "data-set", "choice", "flag"])
def test_cli_names_suggest_the_close_ones(argv, hint, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and hint in err and not (tmp_path / "x.json").exists()
