"""No process outlives the command that started it (optsched.core.procs).

Each case starts ``optsched solve`` (or ``optsched repro``) with a unique tag in its environment,
which every descendant inherits (solver children, portfolio members and spares, repro workers and
multiprocessing's resource tracker), waits until the work has started, kills the command by a
signal and then reads ``/proc/*/environ``: no process may still carry the tag. Linux only (the
``/proc`` scan; the parent-death signal is Linux's).

Every wait is for an event (the processes appear, the command's handler is in place, the command
ends, the tagged processes are gone); its deadline is only a guard against hanging, scaled by the
machine's load (:mod:`tests.core.patience`), so a busy machine is slower but never fails. The
solves' time limits are far beyond every guard: a command may not end on its own before the signal.
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
from tests.core.patience import patient, wait_until
from tests.core.picks import MILP_PROBLEM

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)"),
              pytest.mark.load_sensitive]

ROOT = Path(__file__).resolve().parents[2]
SLOW = pytest.mark.slow
#: the solves' time limit: no command ends on its own while a test waits for it (every guard below
#: is far shorter), so each one ends by the signal
LIMIT = "3600"


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


def _ready_for(pid: int, sig: int) -> bool:
    """Whether the command line's signal handling is in place for ``sig``: the package's import
    holds SIGINT, SIGTERM and SIGHUP back first thing (optsched.core.startup). SIGTERM's handler
    is the sign for all three (the interpreter catches SIGINT from its own start, before optsched
    is imported); SIGKILL needs nothing."""
    return sig == signal.SIGKILL or _catches(pid, signal.SIGTERM if sig == signal.SIGINT else sig)


def _wait_for(tag: str, parent: subprocess.Popen, count: int, sig: int, base_s: float = 60.0) -> None:
    """Until ``count`` processes carry the tag (the parent and its children have started) and,
    for a signal a command handles, until the command line installed its handler (a SIGTERM
    before that ends a process that has no child yet). ``base_s``: the guard, scaled by load."""

    def started() -> bool:
        assert parent.poll() is None, "the command ended before the signal: " + parent.stderr.read()[-500:]
        return _ready_for(parent.pid, sig) and len(_tagged(tag)) >= count

    wait_until(started, f"{count} tagged processes and the command's handler for {signal.Signals(sig).name}",
               base_s)


def _assert_none_left(tag: str, parent: subprocess.Popen, sig: int) -> str:
    try:
        # a caller waiting on the pipes is not held; the guard is only against a hang (the
        # command's own time limit is far longer: it must end by the signal)
        _, err = parent.communicate(timeout=patient(60.0))
    except subprocess.TimeoutExpired:
        parent.kill()
        parent.communicate()
        pytest.fail("the command did not end after the signal (a child holds its pipes?)")
    # a child killed by the parent-death signal is reaped by init: wait until every tagged process
    # is gone (a child that outlives its parent never is: the guard then fails the test)
    left: list[int] = []

    def none_left() -> bool:
        left[:] = _tagged(tag)
        return not left

    try:
        wait_until(none_left, f"processes left after {signal.Signals(sig).name}", 20.0, poll_s=0.1)
    finally:
        for pid in left:  # do not leave them burning the machine if the assertion fails
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
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
                   "--time-limit", LIMIT, "--quiet"], tag)
    _wait_for(tag, proc, BACKENDS[backend], sig=sig)
    # a moment for the search to start; the outcome does not depend on it (a signal at any moment
    # after the handler is in place must leave no process behind)
    time.sleep(0.5)
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
        r = optsched.solve(inst, "milp", backend="scipy", time_limit=3600)
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
    _wait_for(tag, proc, 5, sig=sig, base_s=120.0)
    time.sleep(0.5)  # as above: not needed for the outcome
    proc.send_signal(sig)
    _assert_none_left(tag, proc, sig)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_as_soon_as_it_is_caught_exits_with_its_code(hard_mknap, sig):
    """The package's import holds SIGTERM and SIGHUP back like Ctrl-C (optsched.core.startup):
    signalled the moment its handler is in place - during the imports or later - the command
    ends with 128 + the signal number and its one line, never the default death."""
    tag = uuid.uuid4().hex
    proc = _start(["solve", MILP_PROBLEM, str(hard_mknap), "--method", "milp", "--backend", "scipy",
                   "--time-limit", LIMIT, "--quiet"], tag)
    wait_until(lambda: proc.poll() is not None or _catches(proc.pid, sig), f"the handler for {signal.Signals(sig).name}",
               poll_s=0.005)
    assert proc.poll() is None, "the command ended before the signal: " + proc.stderr.read()[-500:]
    proc.send_signal(sig)
    _assert_none_left(tag, proc, sig)
