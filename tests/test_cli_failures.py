"""The bad-input campaign: every case ends with its documented exit status and one clean line,
never a traceback (subprocesses, as a user runs the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from tests.declared import declared, exact_model_method, pick, solves_tiny_exactly

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
#: the problem of the file cases: a ``tiny`` preset and an exact back-end method that proves its
#: optimum (picked from the registry; what one problem's command line does beyond that is tested
#: in its folder, ``tests/<folder>/test_cli_cases.py``)
PROBLEM = pick(solves_tiny_exactly, "with a tiny preset solved exactly on a back-end").name
EXACT = exact_model_method(optsched.get_problem(PROBLEM))


def run(*args, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "optsched.cli", *args], capture_output=True, text=True,
                          env=ENV, timeout=timeout, **kw)


def clean(proc, status):
    assert proc.returncode == status, (proc.returncode, proc.stderr[-500:])
    assert "Traceback" not in proc.stderr and "terminate called" not in proc.stderr
    if status == 2:
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("optsched: error:"), proc.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    inst = optsched.get_problem(PROBLEM).tiny_instances(0)
    (d / "k.json").write_text(inst.dumps())
    res = optsched.solve(inst, optsched.get_problem(PROBLEM).default_method)
    (d / "r.json").write_text(res.dumps())
    (d / "bin.json").write_bytes(bytes(range(256)) * 4)
    (d / "nul.json").write_bytes(b'{"a": 1}\x00\x00')
    return d


@pytest.mark.parametrize("name", ["bin.json", "nul.json"])
def test_binary_input(files, name):
    p = run("solve", PROBLEM, str(files / name))
    clean(p, 2)
    assert name in p.stderr


def test_output_into_missing_folder(files):
    method = optsched.get_problem(PROBLEM).default_method
    p = run("solve", PROBLEM, str(files / "k.json"), "--method", method, "-o", str(files / "nope" / "r.json"))
    clean(p, 2)
    assert "does not exist" in p.stderr
    clean(run("generate", PROBLEM, "--preset", "tiny", "-o", str(files / "nope" / "k.json")), 2)


@pytest.mark.parametrize("flag,value", [("--threads", "0"), ("--threads", "-2"), ("--node-limit", "-1"),
                                        ("--time-limit", "0"), ("--time-limit", "inf")])
def test_bad_solver_limits(files, flag, value):
    p = run("solve", PROBLEM, str(files / "k.json"), "--method", EXACT, f"{flag}={value}")
    clean(p, 2)
    assert flag in p.stderr


def test_bad_limits_through_the_api():
    inst = optsched.get_problem(PROBLEM).tiny_instances(0)
    for kw in ({"threads": 0}, {"node_limit": -1}):
        with pytest.raises(optsched.InvalidOptionError, match=next(iter(kw))):
            optsched.solve(inst, EXACT, **kw)


@pytest.mark.parametrize("problem", sorted(optsched.core.registry.problems()))
def test_result_where_instance_expected_and_vice_versa(tmp_path, problem):
    prob = optsched.get_problem(problem)
    inst = prob.tiny_instances(0)
    (tmp_path / "i.json").write_text(inst.dumps())
    res = optsched.solve(inst, prob.reference_method if prob.reference_method in prob.methods else None)
    (tmp_path / "r.json").write_text(res.dumps())
    p = run("solve", problem, str(tmp_path / "r.json"))
    clean(p, 2)
    assert "result record" in p.stderr
    p = run("check", problem, str(tmp_path / "i.json"), str(tmp_path / "i.json"))
    clean(p, 2)
    assert "is an instance" in p.stderr


@pytest.mark.parametrize("problem", sorted(optsched.core.registry.problems()))
def test_json_output_parses_for_the_exact_method(tmp_path, problem):
    prob = optsched.get_problem(problem)
    inst = prob.tiny_instances(0)
    (tmp_path / "i.json").write_text(inst.dumps())
    # the exact model (highs-based methods print the HiGHS banner if it is not silenced); a
    # problem without one uses its first exact or bound method (of those that apply to it)
    exact = [m.name for m in prob.methods.values() if m.kind in ("exact", "bound") and m.applicable(inst)[0]]
    with_model = [m for m in exact if prob.methods[m].uses_backend]
    method = (with_model or exact or [prob.default_method])[0]   # or, with neither, its default
    p = run("solve", problem, str(tmp_path / "i.json"), "--method", method, "--json")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)  # no banner or other text on stdout
    assert record["method"] == method and record["status"] in ("optimal", "feasible")
    assert "HiGHS" not in p.stdout


#: (problem, field) of every field a problem's tests declare (``HUGE_VALUE_FIELDS``): 1e308 in it
#: once made objectives inf or crashed a simulation (OverflowError, ZeroDivisionError)
HUGE = [(problem, field) for problem, fields in declared("HUGE_VALUE_FIELDS").items() for field in fields]


@pytest.mark.parametrize("problem,field", HUGE, ids=[f"{p}-{f}" for p, f in HUGE])
def test_huge_values_are_rejected_naming_the_field(tmp_path, problem, field):
    prob = optsched.get_problem(problem)
    data = prob.tiny_instances(0).to_json()

    def huge(x):
        if isinstance(x, list):
            return [huge(y) for y in x]
        return 1e308 if isinstance(x, (int, float)) and not isinstance(x, bool) else x

    data[field] = huge(data[field])
    (tmp_path / "i.json").write_text(json.dumps(data))
    p = run("solve", problem, str(tmp_path / "i.json"))
    clean(p, 2)
    assert field in p.stderr and "magnitude" in p.stderr
