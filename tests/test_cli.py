"""The CLI: every command, exit statuses (2 invalid input, 3 infeasible, 1 check violation), one
line and no traceback on errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from optsched.cli import main
from optsched.problems.mknap import MknapInstance, generate


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    generate(3, items=8, rows=2).save(path)
    return path


def test_listing_commands(capsys):
    code, out, _ = run(capsys, "problems")
    assert code == 0 and "mknap" in out
    code, out, _ = run(capsys, "methods", "mknap")
    assert code == 0 and "lp-round" in out and "ALG >= OPT / (m + 1)" in out and "classical" in out
    code, out, _ = run(capsys, "backends")
    assert code == 0 and all(b in out for b in ("highs", "pyomo", "cvxpy", "scipy"))


def test_generate_solve_check_round_trip(capsys, tmp_path):
    inst_path, res_path = tmp_path / "i.json", tmp_path / "r.json"
    code, _, _ = run(capsys, "generate", "mknap", "--seed", "4", "--items", "10", "--rows", "2", "-o", str(inst_path))
    assert code == 0 and MknapInstance.load(inst_path).num_items == 10
    code, out, _ = run(capsys, "solve", "mknap", str(inst_path), "--method", "milp", "--json", "-o", str(res_path))
    record = json.loads(out)
    assert code == 0 and record["status"] == "optimal" and record["fidelity"] == "ours"
    assert set(record) >= {"format_version", "problem", "method", "fidelity", "status", "objective", "bound",
                           "gap", "wall_s", "backend", "solver_version", "settings", "seed",
                           "instance_sha256", "solution"}
    code, out, _ = run(capsys, "check", "mknap", str(inst_path), str(res_path))
    assert code == 0 and out.startswith("feasible")
    # a bare solution is accepted too
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(record["solution"]))
    assert run(capsys, "check", "mknap", str(inst_path), str(bare))[0] == 0


def test_check_reports_violations_with_status_1(capsys, tiny, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"selected": list(range(8))}))
    code, out, _ = run(capsys, "check", "mknap", str(tiny), str(bad))
    assert code == 1 and "violation" in out


def test_infeasible_exits_3(capsys, tiny, monkeypatch):
    """A method that finds the instance infeasible: status infeasible with the reason, exit 3.
    (Every mknap instance is feasible, so the method is replaced by one that says otherwise.)"""
    from dataclasses import replace

    import optsched
    from optsched.core.errors import Infeasible

    def never(instance, ctx):
        raise Infeasible("no feasible selection (test)")

    prob = optsched.get_problem("mknap")
    monkeypatch.setitem(prob.methods, "greedy", replace(prob.methods["greedy"], run=never))
    code, out, _ = run(capsys, "solve", "mknap", str(tiny), "--method", "greedy")
    assert code == 3 and "infeasible" in out and "no feasible selection" in out


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d.update(colour="red"), "colour"),
    (lambda d: d.update(format_version=99), "format_version"),
    (lambda d: d["weights"][0].__setitem__(0, -5), "weights[0][0]"),
])
def test_invalid_instance_exits_2_with_one_line(capsys, tiny, tmp_path, mutate, field):
    data = json.loads(tiny.read_text())
    mutate(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out, err = run(capsys, "solve", "mknap", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "mknap" in err and repr(field) in err and "Traceback" not in err


def test_truncated_orlib_exits_2(capsys, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1\n3 1 0\n 1 2 3\n 1 1\n")
    code, _, err = run(capsys, "import", "orlib-mknap", str(path), "--index", "0", "-o", str(tmp_path / "o.json"))
    assert code == 2 and "ends early" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["solve", "nosuch", "x.json"],
    ["solve", "mknap", "missing-file.json"],
    ["methods", "nosuch"],
    ["generate", "mknap", "--preset", "nosuch"],
    ["generate", "mknap", "--colour", "3"],
    ["solve"],
])
def test_usage_and_name_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("optsched: error:") and err.count("\n") == 1


def test_unknown_method_and_backend_exit_2(capsys, tiny):
    assert run(capsys, "solve", "mknap", str(tiny), "--method", "magic")[0] == 2
    assert run(capsys, "solve", "mknap", str(tiny), "--backend", "gurobi")[0] == 2
    assert run(capsys, "solve", "mknap", str(tiny), "--method", "greedy", "--option", "speed=3")[0] == 2


def test_export_writes_mps(capsys, tiny, tmp_path):
    out_path = tmp_path / "model.mps"
    code, out, _ = run(capsys, "export", "mknap", str(tiny), "-o", str(out_path))
    assert code == 0 and "8 columns (8 integer), 2 rows" in out
    text = out_path.read_text()
    assert "ROWS" in text and "COLUMNS" in text and "BOUNDS" in text
    # the MPS file is a faithful model: HiGHS reading it back finds the same optimum
    import highspy
    import optsched

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out_path))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(
        optsched.solve(MknapInstance.load(tiny), "milp").objective, rel=1e-9)


def test_console_script_runs_without_traceback(tmp_path):
    """The installed entry point, as a user runs it."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, "-m", "optsched.cli", "solve", "mknap", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


def test_sidecar_written_read_and_removed_through_the_cli(tmp_path, capsys):
    """generate/solve --sidecar write OUTPUT.npz; solve and check read it (the same result as from
    the JSON); writing the JSON again without --sidecar removes the stale sidecar; a sidecar that
    no longer matches its JSON is exit 2 naming the file."""
    inst, res = tmp_path / "k.json", tmp_path / "r.json"
    assert run(capsys, "generate", "mknap", "--preset", "small", "-o", str(inst), "--sidecar")[0] == 0
    assert (tmp_path / "k.json.npz").is_file()
    assert run(capsys, "solve", "mknap", str(inst), "--method", "greedy", "-o", str(res), "--sidecar")[0] == 0
    assert (tmp_path / "r.json.npz").is_file()
    from_sidecar = json.loads(run(capsys, "check", "mknap", str(inst), str(res), "--json")[1])
    from_json = json.loads(run(capsys, "check", "mknap", str(inst), str(res), "--json", "--no-sidecar")[1])
    assert from_sidecar == from_json and from_sidecar["feasible"]
    inst.write_text(inst.read_text() + " ")                  # the JSON changes under its sidecar
    code, _, err = run(capsys, "solve", "mknap", str(inst), "--method", "greedy")
    assert code == 2 and "k.json.npz" in err
    assert run(capsys, "generate", "mknap", "--preset", "small", "-o", str(inst))[0] == 0
    assert not (tmp_path / "k.json.npz").exists()
