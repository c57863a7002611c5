"""The CLI: every command, exit statuses (2 invalid input, 3 infeasible, 1 check violation), one
line and no traceback on errors.

No problem is named here: the listings cover every registered problem, and the other cases run on
a problem picked from the registry by a property (:data:`PROBLEM`: a ``tiny`` preset whose first
exact back-end method proves the optimum; :data:`MODELLED` for ``export``). What one problem's
command line does beyond that is tested in its folder (``tests/<folder>/test_cli_cases.py``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import optsched
from optsched.cli import main
from tests.declared import exact_model_method, pick, solves_tiny_exactly

#: the problem of the command-line cases: a ``tiny`` preset and an exact model that proves its optimum
PROBLEM = pick(solves_tiny_exactly, "with a tiny preset solved exactly on a back-end").name
EXACT = exact_model_method(optsched.get_problem(PROBLEM))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _flag(value) -> str:
    """A generator option's value as typed on the command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    optsched.generate(PROBLEM, seed=3, preset="tiny").save(path)
    return path


def test_listing_commands(capsys):
    code, out, _ = run(capsys, "problems")
    assert code == 0 and all(re.search(rf"^{re.escape(name)}\b", out, re.M) for name in optsched.core.registry.problems())
    for name, problem in optsched.core.registry.problems().items():
        code, out, _ = run(capsys, "methods", name)
        assert code == 0, name
        for m in problem.methods.values():
            assert f"  {m.name}" in out and f"[{m.kind}, {m.fidelity}]" in out, (name, m.name)
            if m.guarantee is not None:
                assert m.guarantee.statement in out and f"[{m.guarantee.source}]" in out, (name, m.name)
    code, out, _ = run(capsys, "backends")
    assert code == 0 and all(b in out for b in ("highs", "pyomo", "cvxpy", "scipy"))


def test_generate_solve_check_round_trip(capsys, tmp_path):
    """The tiny preset's options given one by one on the command line make the instance the API
    makes; it solves to optimality with a full record, and the record checks feasible."""
    problem = optsched.get_problem(PROBLEM)
    inst_path, res_path = tmp_path / "i.json", tmp_path / "r.json"
    flags = [a for k, v in problem.presets["tiny"].items() for a in (f"--{k.replace('_', '-')}", _flag(v))]
    code, _, _ = run(capsys, "generate", PROBLEM, "--seed", "4", *flags, "-o", str(inst_path))
    assert code == 0
    assert problem.load_instance(inst_path).sha256() == optsched.generate(PROBLEM, seed=4, preset="tiny").sha256()
    code, out, _ = run(capsys, "solve", PROBLEM, str(inst_path), "--method", EXACT, "--json", "-o", str(res_path))
    record = json.loads(out)
    assert code == 0 and record["status"] == "optimal" and record["fidelity"] == problem.methods[EXACT].fidelity
    assert set(record) >= {"format_version", "problem", "method", "fidelity", "status", "objective", "bound",
                           "gap", "wall_s", "backend", "solver_version", "settings", "seed",
                           "instance_sha256", "solution"}
    code, out, _ = run(capsys, "check", PROBLEM, str(inst_path), str(res_path))
    assert code == 0 and out.startswith("feasible")
    # a bare solution is accepted too
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(record["solution"]))
    assert run(capsys, "check", PROBLEM, str(inst_path), str(bare))[0] == 0


def test_infeasible_exits_3(capsys, tiny, monkeypatch):
    """A method that finds the instance infeasible: status infeasible with the reason, exit 3.
    (The method is replaced by one that says so, whatever the instance.)"""
    from dataclasses import replace

    from optsched.core.errors import Infeasible

    def never(instance, ctx):
        raise Infeasible("no feasible selection (test)")

    prob = optsched.get_problem(PROBLEM)
    method = prob.default_method
    monkeypatch.setitem(prob.methods, method, replace(prob.methods[method], run=never))
    code, out, _ = run(capsys, "solve", PROBLEM, str(tiny), "--method", method)
    assert code == 3 and "infeasible" in out and "no feasible selection" in out


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d.update(colour="red"), "colour"),
    (lambda d: d.update(format_version=99), "format_version"),
])
def test_invalid_instance_exits_2_with_one_line(capsys, tiny, tmp_path, mutate, field):
    data = json.loads(tiny.read_text())
    mutate(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out, err = run(capsys, "solve", PROBLEM, str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and PROBLEM in err and repr(field) in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["solve", "nosuch", "x.json"],
    ["solve", PROBLEM, "missing-file.json"],
    ["methods", "nosuch"],
    ["generate", PROBLEM, "--preset", "nosuch"],
    ["generate", PROBLEM, "--colour", "3"],
    ["solve"],
], ids=["solve-unknown-problem", "solve-missing-file", "methods-unknown-problem", "generate-unknown-preset",
        "generate-unknown-option", "solve-nothing"])
def test_usage_and_name_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("optsched: error:") and err.count("\n") == 1


def test_unknown_method_and_backend_exit_2(capsys, tiny):
    method = optsched.get_problem(PROBLEM).default_method
    assert "speed" not in optsched.get_problem(PROBLEM).methods[method].options
    assert run(capsys, "solve", PROBLEM, str(tiny), "--method", "magic")[0] == 2
    assert run(capsys, "solve", PROBLEM, str(tiny), "--backend", "gurobi")[0] == 2
    assert run(capsys, "solve", PROBLEM, str(tiny), "--method", method, "--option", "speed=3")[0] == 2


def _modelled(problem) -> bool:
    return problem.build_model is not None and solves_tiny_exactly(problem)


def test_export_writes_mps(capsys, tmp_path):
    """``export`` writes the problem's model (:data:`MODELLED`: the first problem with a model and
    an exact method that proves its tiny optimum): the columns and rows it reports are the model's,
    and HiGHS reading the file back finds the exact method's optimum."""
    problem = pick(_modelled, "with a model and a tiny preset solved exactly")
    inst = optsched.generate(problem.name, seed=3, preset="tiny")
    path, out_path = tmp_path / "i.json", tmp_path / "model.mps"
    inst.save(path)
    model = problem.build_model(inst)
    code, out, _ = run(capsys, "export", problem.name, str(path), "-o", str(out_path))
    integer = int(sum(1 for t in model.integrality if t))
    assert code == 0 and f"{model.num_cols} columns ({integer} integer), {model.num_rows} rows" in out, out
    text = out_path.read_text()
    assert "ROWS" in text and "COLUMNS" in text and "BOUNDS" in text
    # the MPS file is a faithful model: HiGHS reading it back finds the same optimum
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out_path))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(
        optsched.solve(inst, exact_model_method(problem)).objective, rel=1e-9)


def test_console_script_runs_without_traceback(tmp_path):
    """The installed entry point, as a user runs it."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, "-m", "optsched.cli", "solve", PROBLEM, str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


def test_sidecar_written_read_and_removed_through_the_cli(tmp_path, capsys):
    """generate/solve --sidecar write OUTPUT.npz; solve and check read it (the same result as from
    the JSON); writing the JSON again without --sidecar removes the stale sidecar; a sidecar that
    no longer matches its JSON is exit 2 naming the file."""
    method = optsched.get_problem(PROBLEM).default_method
    inst, res = tmp_path / "k.json", tmp_path / "r.json"
    assert run(capsys, "generate", PROBLEM, "--preset", "tiny", "-o", str(inst), "--sidecar")[0] == 0
    assert (tmp_path / "k.json.npz").is_file()
    assert run(capsys, "solve", PROBLEM, str(inst), "--method", method, "-o", str(res), "--sidecar")[0] == 0
    assert (tmp_path / "r.json.npz").is_file()
    from_sidecar = json.loads(run(capsys, "check", PROBLEM, str(inst), str(res), "--json")[1])
    from_json = json.loads(run(capsys, "check", PROBLEM, str(inst), str(res), "--json", "--no-sidecar")[1])
    assert from_sidecar == from_json and from_sidecar["feasible"]
    inst.write_text(inst.read_text() + " ")                  # the JSON changes under its sidecar
    code, _, err = run(capsys, "solve", PROBLEM, str(inst), "--method", method)
    assert code == 2 and "k.json.npz" in err
    assert run(capsys, "generate", PROBLEM, "--preset", "tiny", "-o", str(inst))[0] == 0
    assert not (tmp_path / "k.json.npz").exists()
