"""One error class per meaning, each mapped to its documented exit status (docs/cli.md).

A caller can tell "the instance or file is wrong" (InvalidInstanceError) from "an option is
wrong" (InvalidOptionError), "pick another method" (NotApplicable) and "pick another back-end"
(BackendRefused); all four are invalid input (InvalidInputError, exit 2, one line). Each case
below provokes the error through the public API and through the command line."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import (BackendRefused, Infeasible, InvalidInputError, InvalidInstanceError,
                                  InvalidOptionError, NotApplicable, OptschedError, SolverError, TimeLimitReached,
                                  UnknownNameError)
from tests.core.picks import MILP_PROBLEM

KINDS = (InvalidInstanceError, InvalidOptionError, NotApplicable, BackendRefused)


def test_the_kinds_are_disjoint_and_share_the_invalid_input_base():
    for kind in KINDS:
        assert issubclass(kind, InvalidInputError) and issubclass(kind, ValueError)
        assert kind.exit_status == 2
        assert [k for k in KINDS if issubclass(kind, k)] == [kind], f"{kind.__name__} is another kind too"
    assert issubclass(UnknownNameError, InvalidOptionError) and issubclass(UnknownNameError, KeyError)
    assert (Infeasible.exit_status, SolverError.exit_status, OptschedError.exit_status) == (3, 1, 1)
    # a limit is a result status, not an error: a method's `except OptschedError` never swallows it
    assert not issubclass(TimeLimitReached, OptschedError)


@pytest.fixture
def mknap_file(tmp_path):
    path = tmp_path / "k.json"
    path.write_text(optsched.generate(MILP_PROBLEM, seed=0, items=30, rows=2).dumps())
    return path


def _cli(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    return code, err


def test_a_wrong_instance_is_an_instance_error(tmp_path, mknap_file, capsys):
    data = json.loads(mknap_file.read_text())
    data["weights"][0][0] = -1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(InvalidInstanceError) as info:
        optsched.load_instance(bad)
    assert "weights" in info.value.field
    code, err = _cli(capsys, "solve", MILP_PROBLEM, str(bad))
    assert code == 2 and "weights" in err and len(err.splitlines()) == 1


def test_a_wrong_option_is_an_option_error(mknap_file, capsys):
    inst = optsched.load_instance(mknap_file)
    cases = [(lambda: optsched.generate(MILP_PROBLEM, seed=0, items=0), "items"),
             (lambda: optsched.solve(inst, "milp", threads=0), "threads"),
             (lambda: optsched.solve(inst, "milp", time_limit=-1), "time_limit"),
             (lambda: optsched.solve(inst, "milp", options={"bogus": 1}), "option bogus")]
    for call, field in cases:
        with pytest.raises(InvalidOptionError) as info:
            call()
        assert not isinstance(info.value, InvalidInstanceError)
        assert info.value.field == field
    for argv, named in ((["generate", MILP_PROBLEM, "--items", "0"], "items"),
                        (["solve", MILP_PROBLEM, str(mknap_file), "--option", "bogus=1"], "bogus"),
                        (["solve", MILP_PROBLEM, str(mknap_file), "--method", "no-such"], "no-such")):
        code, err = _cli(capsys, *argv)
        assert code == 2 and named in err and len(err.splitlines()) == 1, (argv, code, err)


def test_an_unknown_name_is_an_option_error_and_a_key_error():
    with pytest.raises(InvalidOptionError):
        optsched.get_problem("no-such-problem")
    with pytest.raises(KeyError):
        optsched.get_problem(MILP_PROBLEM).get_method("no-such-method")


def test_a_method_that_does_not_apply_is_not_applicable(mknap_file, capsys):
    inst = optsched.load_instance(mknap_file)  # 30 items: brute needs at most 20
    with pytest.raises(NotApplicable) as info:
        optsched.solve(inst, "brute")
    assert info.value.method == "brute" and "items" in info.value.reason
    code, err = _cli(capsys, "solve", MILP_PROBLEM, str(mknap_file), "--method", "brute")
    assert code == 2 and "does not apply" in err and len(err.splitlines()) == 1


def test_a_backend_that_refuses_the_model_is_a_refusal(mknap_file, capsys):
    pytest.importorskip("ortools", reason="CP-SAT is the back-end that refuses continuous columns")
    inst = optsched.load_instance(mknap_file)
    with pytest.raises(BackendRefused) as info:
        optsched.solve(inst, "lp", backend="cpsat")  # the LP relaxation: continuous columns
    assert info.value.backend == "cpsat" and "continuous" in info.value.reason
    code, err = _cli(capsys, "solve", MILP_PROBLEM, str(mknap_file), "--method", "lp", "--backend", "cpsat")
    assert code == 2 and "cpsat refuses" in err and len(err.splitlines()) == 1
