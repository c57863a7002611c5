"""Discoverable CLI: every verb's ``--help`` says what it accepts; ``generate PROBLEM --help`` and
``solve PROBLEM --help`` list every registered problem's presets, generator options, methods and
method options with type, default, description and allowed values; ``--profile`` takes names."""

from __future__ import annotations

import argparse
import json

import pytest

import optsched
from optsched.cli import _metavar, build_parser, main, option_help
from optsched.core.errors import InvalidOptionError
from optsched.core.registry import Method, Option
from optsched.workloads.profiles import known_profiles, load_profile, resolve_profile

PROBLEMS = sorted(optsched.core.registry.problems())


def help_text(capsys, *argv) -> str:
    """The ``--help`` output of ``argv``, whitespace normalized (argparse wraps lines)."""
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    out, _ = capsys.readouterr()
    assert stop.value.code == 0
    return " ".join(out.split())


def flat(text: str) -> str:
    return " ".join(text.split())


def squeeze(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("name", PROBLEMS)
def test_generate_help_lists_presets_and_every_generator_option(capsys, name):
    prob = optsched.get_problem(name)
    out = help_text(capsys, "generate", name)
    for preset in prob.presets:
        assert f" {preset} " in out, preset
    for key, opt in prob.generator_options.items():
        flag = "--" + key.replace("_", "-")
        assert f"{flag} " in out, flag
        # description, type, default and allowed values, all in the one help entry of the flag
        # (argparse wraps lines, also at hyphens: compared without whitespace)
        assert squeeze(f"{flag} {_metavar(opt)} {option_help(opt)}") in squeeze(out), key
        assert f"[{opt.type.__name__}, default: " in out
    # the same with the problem after an option and its value
    assert help_text(capsys, "generate", "--seed", "3", name) == out


@pytest.mark.parametrize("name", PROBLEMS)
def test_solve_help_lists_every_method_and_option(capsys, name):
    prob = optsched.get_problem(name)
    out = help_text(capsys, "solve", name)
    for mname, meth in prob.methods.items():
        assert f" {mname} " in out and flat(meth.summary) in out, mname
        for key, opt in meth.options.items():
            assert f"--option {key}=<{opt.type.__name__}> {flat(option_help(opt))}" in out, (mname, key)
    methods = " ".join(main_output(capsys, "methods", name).split())
    for meth in prob.methods.values():
        for key, opt in meth.options.items():
            assert flat(option_help(opt)) in methods
    for key, opt in prob.generator_options.items():
        assert f"--{key.replace('_', '-')} <{opt.type.__name__}> {flat(option_help(opt))}" in methods


def main_output(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr()[0]


def test_option_help_shows_type_default_and_allowed_values():
    assert option_help(Option(int, 3, "rounds")) == "rounds [int, default: 3]"
    assert option_help(Option(bool, False, "fill")) == "fill [bool, default: false; allowed: true, false]"
    assert option_help(Option(str, "a", "mode", choices=("a", "b"))) == "mode [str, default: a; allowed: a, b]"
    assert option_help(Option(str, "", "a file")) == 'a file [str, default: ""]'


def test_derived_allowed_values_contain_the_default_of_every_registered_option():
    seen = 0
    for prob in optsched.core.registry.problems().values():
        options = list(prob.generator_options.values()) + [o for m in prob.methods.values()
                                                           for o in m.options.values()]
        for opt in options:
            allowed = opt.allowed()
            if allowed and opt.type is str:
                seen += 1
                assert opt.default in allowed and all(a in opt.help for a in allowed), opt
    assert seen >= 5  # e.g. an objective, an initial plan, an inner solver


def test_declared_choices_are_enforced():
    meth = Method(problem="p", name="m", kind="heuristic", fidelity="ours", run=lambda i, c: None, summary="",
                  options={"mode": Option(str, "a", "the mode", choices=("a", "b"))})
    assert meth.resolve_options({"mode": "b"}) == {"mode": "b"}
    with pytest.raises(InvalidOptionError, match="one of a, b"):
        meth.resolve_options({"mode": "c"})


def test_every_verb_names_what_it_accepts(capsys):
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {"problems", "methods", "backends", "generate", "solve", "check", "import",
                                "export", "plot", "repro", "models"}
    for verb, verb_parser in sub.choices.items():
        assert verb_parser.description, verb
        for action in verb_parser._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, (verb, action.dest)
        out = help_text(capsys, verb)
        assert out.startswith(f"usage: optsched {verb}")


def test_import_help_lists_every_format_with_its_problem(capsys):
    out = help_text(capsys, "import")
    for prob in optsched.core.registry.problems().values():
        for fmt in prob.importers:
            assert f"{fmt} -> {prob.name}" in out
    assert "--batch-size" in out


def test_unknown_problem_still_gives_the_generic_help(capsys):
    out = help_text(capsys, "generate", "nosuch")
    assert "Name a problem" in out


# -- --profile names and import --batch-size ----------------------------------------------------
def test_profile_names_from_models():
    """(A generator that takes these names on its ``--profile`` is tested in its folder's
    ``test_cli_cases.py``.)"""
    known = known_profiles()
    assert "bert-large" in known and known["models/bert-large"] == known["bert-large"]
    assert load_profile("bert-large").name == load_profile(known["models/bert-large"]).name


def test_unknown_profile_name_is_a_typed_error_listing_names():
    with pytest.raises(InvalidOptionError, match="known: .*bert-large"):
        resolve_profile("no-such-model")


def test_profile_names_from_the_data_directory(monkeypatch):
    from tests.conftest import require_data

    require_data("profiles/pipedream/gnmt.graph.txt")
    assert load_profile("gnmt").batch_size == 64 and load_profile("pipedream/gnmt").name == "gnmt"
    # vgg16 is both an analytic model and a PipeDream profile: it must be qualified
    with pytest.raises(InvalidOptionError, match="models/vgg16, pipedream/vgg16"):
        resolve_profile("vgg16")
    assert load_profile("pipedream/vgg16").batch_size == 128


def test_batch_size_is_refused_by_an_importer_that_takes_none(capsys, tmp_path):
    """``import --batch-size`` with a format whose reader has no batch size: exit 2, one line, before
    the file is read (any registered importer without a ``batch_size`` parameter)."""
    import inspect

    fmt = next((name for prob in optsched.core.registry.problems().values() for name, loader in prob.importers.items()
                if "batch_size" not in inspect.signature(loader).parameters), None)
    if fmt is None:
        pytest.skip("every registered importer takes a batch size")
    path = tmp_path / "any.txt"
    path.write_text("x\n")
    assert main(["import", fmt, str(path), "--batch-size", "8"]) == 2
    err = capsys.readouterr()[1]
    assert "takes no batch size" in err and err.count("\n") == 1


def test_option_describe_is_json_data():
    opt = Option(str, "bottleneck", "bottleneck | sync-estimate | sync (evaluation only)")
    assert json.loads(json.dumps(opt.describe())) == {
        "type": "str", "default": "bottleneck", "help": opt.help, "allowed": ["bottleneck", "sync-estimate", "sync"]}
