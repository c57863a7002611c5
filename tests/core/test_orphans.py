"""No process outlives the command that started it (optsched.core.procs).

Each case starts ``optsched solve`` (or ``optsched repro``) with a unique tag in its environment,
which every descendant inherits (solver children, portfolio members and spares, repro workers and
multiprocessing's resource tracker), waits until the work has started, kills the command by a
signal and then reads ``/proc/*/environ``: no process may still carry the tag. Linux only (the
``/proc`` scan; the parent-death signal is Linux's).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import optsched
from tests.core.picks import MILP_PROBLEM

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")

ROOT = Path(__file__).resolve().parents[2]
SLOW = pytest.mark.slow


def _tagged(tag: str) -> list[int]:
    """Ids of the live processes whose environment holds ``tag`` (zombies have an empty one)."""
    needle = f"OPTSCHED_TEST_TAG={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _start(args: list[str], tag: str, cwd: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ, OPTSCHED_TEST_TAG=tag, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    return subprocess.Popen([sys.executable, "-m", "optsched.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd or ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (``SigCgt`` in ``/proc/PID/status``)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def _wait_for(tag: str, parent: subprocess.Popen, count: int, timeout: float = 40.0,
              sig: int | None = None) -> None:
    """Until ``count`` processes carry the tag (the parent and its children have started) and,
    for a signal a command handles, until the command line installed its handler (it does so
    once its imports are done; a SIGTERM before that ends a process that has no child yet)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert parent.poll() is None, "the command ended before the signal: " + parent.stderr.read()[-500:]
        ready = sig in (None, signal.SIGKILL) or _catches(parent.pid, sig)
        if ready and len(_tagged(tag)) >= count:
            return
        time.sleep(0.1)
    pytest.fail(f"fewer than {count} processes started within {timeout} s")


def _assert_none_left(tag: str, parent: subprocess.Popen, sig: int) -> str:
    try:
        _, err = parent.communicate(timeout=30)  # a caller waiting on the pipes is not held
    except subprocess.TimeoutExpired:
        parent.kill()
        parent.communicate()
        pytest.fail("the command did not end within 30 s of the signal (a child holds its pipes?)")
    # a child killed by the parent-death signal is reaped by init: give it a moment
    end = time.monotonic() + 5.0
    left = _tagged(tag)
    while left and time.monotonic() < end:
        time.sleep(0.1)
        left = _tagged(tag)
    for pid in left:  # do not leave them burning the machine if the assertion fails
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes left after {signal.Signals(sig).name}: {left}"
    expected = 128 + sig if sig != signal.SIGKILL else -signal.SIGKILL
    assert parent.returncode == expected, (parent.returncode, err[-500:])
    if sig != signal.SIGKILL:
        assert err.strip().splitlines()[-1] == ("optsched: interrupted" if sig == signal.SIGINT
                                                 else f"optsched: terminated ({signal.Signals(sig).name})"), err
    return err


@pytest.fixture(scope="module")
def hard_mknap(tmp_path_factory):
    """A pure-integer model (every back-end takes it, CP-SAT too) that none proves in a minute."""
    path = tmp_path_factory.mktemp("orphans") / "hard.json"
    path.write_text(optsched.generate(MILP_PROBLEM, seed=0, preset="hard").dumps())
    return path


#: back-end -> processes that must exist before the signal (the command and its solver children)
BACKENDS = {"highs": 1, "scip": 1, "cpsat": 1, "pyomo": 2, "cvxpy": 2, "scipy": 2, "portfolio": 2}
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
#: one signal per back-end in the quick suite (every signal at least once, the child back-ends
#: against the signals a command cannot handle); the whole matrix under ``-m slow``
QUICK = {("scipy", signal.SIGTERM), ("portfolio", signal.SIGKILL), ("pyomo", signal.SIGHUP),
         ("cvxpy", signal.SIGKILL), ("highs", signal.SIGTERM), ("scip", signal.SIGHUP),
         ("cpsat", signal.SIGINT)}
CASES = [pytest.param(b, s, id=f"{b}-{signal.Signals(s).name}", marks=() if (b, s) in QUICK else SLOW)
         for b in BACKENDS for s in SIGNALS]


@pytest.mark.parametrize("backend,sig", CASES)
def test_no_solver_process_outlives_a_signal(hard_mknap, backend, sig):
    tag = uuid.uuid4().hex
    proc = _start(["solve", MILP_PROBLEM, str(hard_mknap), "--method", "milp", "--backend", backend,
                   "--time-limit", "120", "--quiet"], tag)
    _wait_for(tag, proc, BACKENDS[backend], sig=sig)
    time.sleep(1.0)  # the model is built and the search runs
    proc.send_signal(sig)
    _assert_none_left(tag, proc, sig)


REPRO_SCRIPT = textwrap.dedent('''
    """A sweep whose cells solve with the process watchdog (a child per cell) for a long time."""
    from optsched.repro import Experiment


    def cells(quick):
        return [{"i": i} for i in range(4)]


    def run_cell(params, seed):
        import optsched
        inst = optsched.generate(PROBLEM, seed=params["i"], preset="hard")
        r = optsched.solve(inst, "milp", backend="scipy", time_limit=120)
        return {"status": r.status}


    def report(rows, out):
        out.table("rows", rows)


    EXPERIMENT = Experiment(id="O1", title="orphans", paper="(test)", formulation="[ours]", cells=cells,
                            run_cell=run_cell, report=report)
''').replace("PROBLEM,", f"{MILP_PROBLEM!r},")


@pytest.mark.parametrize("sig", [pytest.param(s, id=signal.Signals(s).name,
                                              marks=() if s in (signal.SIGTERM, signal.SIGKILL) else SLOW)
                                 for s in SIGNALS])
def test_no_repro_worker_outlives_a_signal(tmp_path, sig):
    scripts = tmp_path / "paper_repro"
    scripts.mkdir()
    (scripts / "o1_orphans.py").write_text(REPRO_SCRIPT)
    tag = uuid.uuid4().hex
    proc = _start(["repro", "--jobs", "2", "--out", str(tmp_path / "out")], tag, cwd=tmp_path)
    # the driver, its two workers, the resource tracker and a solver child per worker
    _wait_for(tag, proc, 5, timeout=60, sig=sig)
    time.sleep(0.5)
    proc.send_signal(sig)
    _assert_none_left(tag, proc, sig)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_as_soon_as_it_is_caught_exits_with_its_code(hard_mknap, sig):
    """The package's import holds SIGTERM and SIGHUP back like Ctrl-C (optsched.core.startup):
    signalled the moment its handler is in place - during the imports or later - the command
    ends with 128 + the signal number and its one line, never the default death."""
    tag = uuid.uuid4().hex
    proc = _start(["solve", MILP_PROBLEM, str(hard_mknap), "--method", "milp", "--backend", "scipy",
                   "--time-limit", "120", "--quiet"], tag)
    end = time.monotonic() + 40
    while not _catches(proc.pid, sig) and time.monotonic() < end:
        time.sleep(0.005)
    proc.send_signal(sig)
    _assert_none_left(tag, proc, sig)
