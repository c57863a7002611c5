"""pipeline-schedule on the command line: Ctrl-C during a long solve on each back-end (its medium
preset takes minutes on HiGHS), as a user runs the CLI (the problem-free bad-input campaign:
``tests/test_cli_failures.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import optsched
from tests.core.patience import patient, wait_until

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


# -- Ctrl-C: a long solve on each back-end, interrupted after it started ------------------------
@pytest.fixture(scope="module")
def long_instance(tmp_path_factory):
    d = tmp_path_factory.mktemp("sigint")
    inst = optsched.generate("pipeline-schedule", seed=1, preset="medium")  # minutes on highs
    (d / "ps.json").write_text(inst.dumps())
    return d / "ps.json"


SLOW = pytest.mark.slow  # about 6 s each; the in-process highs case runs in make test


def _solving(proc: subprocess.Popen) -> bool:
    """Whether the command line's signal handling is in place (the package's import holds SIGINT
    and SIGTERM back first thing; SIGTERM's handler is the sign) and its back-end is loaded."""
    try:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
    except OSError:
        return proc.poll() is not None
    caught = next(int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(caught >> (signal.SIGTERM - 1) & 1) and "highs" in maps.lower()


@pytest.mark.parametrize("extra", [["--backend", "highs"],
                                   pytest.param(["--backend", "highs", "--time-limit", "300"], marks=SLOW),
                                   pytest.param(["--backend", "pyomo"], marks=SLOW),
                                   pytest.param(["--backend", "cvxpy"], marks=SLOW),
                                   pytest.param(["--backend", "scipy", "--time-limit", "300"], marks=SLOW),
                                   pytest.param(["--backend", "pyomo", "--time-limit", "300"], marks=SLOW)])
@pytest.mark.load_sensitive
def test_ctrl_c_during_a_solve(long_instance, extra):
    proc = subprocess.Popen([sys.executable, "-m", "optsched.cli", "solve", "pipeline-schedule",
                             str(long_instance), "--method", "milp", "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # the handler is in place and the solver's library loaded; a moment more for the solve to start
    # (the outcome does not depend on it: a Ctrl-C at any moment after the handler ends it cleanly)
    wait_until(lambda: _solving(proc), "the command's handler in place and its back-end loaded")
    time.sleep(1)
    assert proc.poll() is None, "the solve ended before the interrupt: choose a longer instance"
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=patient(30))  # a guard: the solve itself takes minutes
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the solve did not stop after Ctrl-C")
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
