"""The bad-input campaign: every case ends with its documented exit status and one clean line,
never a traceback (subprocesses, as a user runs the CLI)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import optsched

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


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
    inst = optsched.get_problem("mknap").tiny_instances(0)
    (d / "k.json").write_text(inst.dumps())
    res = optsched.solve(inst, "greedy")
    (d / "r.json").write_text(res.dumps())
    (d / "bin.json").write_bytes(bytes(range(256)) * 4)
    (d / "nul.json").write_bytes(b'{"a": 1}\x00\x00')
    return d


@pytest.mark.parametrize("name", ["bin.json", "nul.json"])
def test_binary_input(files, name):
    p = run("solve", "mknap", str(files / name))
    clean(p, 2)
    assert name in p.stderr


def test_output_into_missing_folder(files):
    p = run("solve", "mknap", str(files / "k.json"), "--method", "greedy", "-o", str(files / "nope" / "r.json"))
    clean(p, 2)
    assert "does not exist" in p.stderr
    clean(run("generate", "mknap", "--preset", "tiny", "-o", str(files / "nope" / "k.json")), 2)


@pytest.mark.parametrize("flag,value", [("--threads", "0"), ("--threads", "-2"), ("--node-limit", "-1"),
                                        ("--time-limit", "0"), ("--time-limit", "inf")])
def test_bad_solver_limits(files, flag, value):
    p = run("solve", "mknap", str(files / "k.json"), "--method", "milp", f"{flag}={value}")
    clean(p, 2)
    assert flag in p.stderr


def test_bad_limits_through_the_api():
    inst = optsched.get_problem("mknap").tiny_instances(0)
    for kw in ({"threads": 0}, {"node_limit": -1}):
        with pytest.raises(optsched.InvalidOptionError, match=next(iter(kw))):
            optsched.solve(inst, "milp", **kw)


@pytest.mark.parametrize("problem", sorted(optsched.list_problems()))
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


def test_broken_pipe(files):
    # a large output (about 1 MB, far beyond a pipe buffer) into a reader that stops after 10 bytes
    cmd = f"{sys.executable} -m optsched.cli generate mknap --items 3000 --rows 30 | head -c 10"
    p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd + "; echo \" rc=${PIPESTATUS[0]}\""],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr
    assert p.stdout.strip().endswith("rc=141"), p.stdout  # documented: as SIGPIPE would


@pytest.mark.parametrize("problem", sorted(optsched.list_problems()))
def test_json_output_parses_for_the_exact_method(tmp_path, problem):
    prob = optsched.get_problem(problem)
    inst = prob.tiny_instances(0)
    (tmp_path / "i.json").write_text(inst.dumps())
    # the exact model (highs-based methods print the HiGHS banner if it is not silenced); a
    # problem without one (srpt) uses its first exact or bound method
    exact = [m.name for m in prob.methods.values() if m.kind in ("exact", "bound")]
    with_model = [m for m in exact if prob.methods[m].uses_backend]
    method = (with_model or exact or [prob.default_method])[0]   # commit-rate has neither
    p = run("solve", problem, str(tmp_path / "i.json"), "--method", method, "--json")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)  # no banner or other text on stdout
    assert record["method"] == method and record["status"] in ("optimal", "feasible")
    assert "HiGHS" not in p.stdout


# -- Ctrl-C: a long solve on each back-end, interrupted after it started ------------------------
@pytest.fixture(scope="module")
def long_instance(tmp_path_factory):
    d = tmp_path_factory.mktemp("sigint")
    inst = optsched.generate("pipeline-schedule", seed=1, preset="medium")  # minutes on highs
    (d / "ps.json").write_text(inst.dumps())
    return d / "ps.json"


SLOW = pytest.mark.slow  # about 6 s each; the in-process highs case runs in make test


@pytest.mark.parametrize("extra", [["--backend", "highs"],
                                   pytest.param(["--backend", "highs", "--time-limit", "300"], marks=SLOW),
                                   pytest.param(["--backend", "pyomo"], marks=SLOW),
                                   pytest.param(["--backend", "cvxpy"], marks=SLOW),
                                   pytest.param(["--backend", "scipy", "--time-limit", "300"], marks=SLOW),
                                   pytest.param(["--backend", "pyomo", "--time-limit", "300"], marks=SLOW)])
def test_ctrl_c_during_a_solve(long_instance, extra):
    proc = subprocess.Popen([sys.executable, "-m", "optsched.cli", "solve", "pipeline-schedule",
                             str(long_instance), "--method", "milp", "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(5)  # imports, model build, solve started
    assert proc.poll() is None, "the solve ended before the interrupt: choose a longer instance"
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)  # bounded: the back-end stops within seconds
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the solve did not stop within 30 s of Ctrl-C")
    assert proc.returncode == 130, (proc.returncode, err[-500:])
    assert err.strip() == "optsched: interrupted", err[-500:]  # --quiet: no progress lines before it
    assert out == ""


@SLOW
def test_ctrl_c_after_progress_lines_still_ends_with_one_line(long_instance):
    """Without --quiet, a long solve logs progress (stderr is not a terminal here); Ctrl-C still
    ends it with exit 130 and the one line, after nothing but progress lines."""
    proc = subprocess.Popen([sys.executable, "-m", "optsched.cli", "solve", "pipeline-schedule",
                             str(long_instance), "--method", "milp"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(7)  # past the first progress line (5 s)
    assert proc.poll() is None, "the solve ended before the interrupt: choose a longer instance"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    lines = err.strip().splitlines()
    assert proc.returncode == 130 and lines[-1] == "optsched: interrupted", err[-500:]
    assert all(line.startswith("pipeline-schedule/milp: ") and " incumbent " in line for line in lines[:-1]), err
    assert out == ""


@pytest.mark.parametrize("problem,field", [("mknap", "profits"), ("pipeline-schedule", "forward"),
                                           ("rar-online", "slot_s"), ("rar-makespan", "penalty_slope")])
def test_huge_values_are_rejected_naming_the_field(tmp_path, problem, field):
    # 1e308 made objectives inf (mknap greedy/brute, every pipeline-schedule method) or crashed
    # a simulation (rar-online OverflowError, rar-makespan ZeroDivisionError) before
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
