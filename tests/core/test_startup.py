"""Ctrl-C while the command line starts (``optsched.core.startup``): one line and exit 130, never
a traceback or a crash; a library user's process keeps its own SIGINT handler."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from optsched.core.startup import is_cli_process
from tests.core.patience import patient
from tests.core.picks import MILP_PROBLEM

pytestmark = pytest.mark.load_sensitive  # each test starts an interpreter

ROOT = Path(__file__).resolve().parents[2]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # not whatever the test runner's parent set


def _run(code: str, sigint=_default_sigint) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=patient(120.0),
                          preexec_fn=sigint)


def test_a_sigint_during_the_command_lines_imports_is_answered_by_main():
    # the console script's argv[0]; the SIGINT lands after the package's imports, before main()
    r = _run("import os, signal, sys\n"
             "sys.argv[0] = '/venv/bin/optsched'\n"
             "import optsched\n"
             "os.kill(os.getpid(), signal.SIGINT)\n"
             "from optsched.cli import main\n"
             f"sys.exit(main(['methods', {MILP_PROBLEM!r}]))\n")
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip() == "optsched: interrupted" and r.stdout == ""


def test_without_a_sigint_the_command_line_runs_and_restores_the_handler():
    r = _run("import signal, sys\n"
             "sys.argv[0] = '/venv/bin/optsched'\n"
             "import optsched\n"
             "assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # held\n"
             "from optsched.cli import main\n"
             f"code = main(['methods', {MILP_PROBLEM!r}])\n"
             "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
             "sys.exit(code)\n")
    assert r.returncode == 0, r.stderr
    assert "milp" in r.stdout


def test_a_command_line_started_with_sigint_ignored_keeps_ignoring_it():
    r = _run("import os, signal, sys\n"
             "sys.argv[0] = '/venv/bin/optsched'\n"
             "import optsched\n"
             "assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n"
             "os.kill(os.getpid(), signal.SIGINT)\n"
             "from optsched.cli import main\n"
             f"sys.exit(main(['methods', {MILP_PROBLEM!r}]))\n",
             sigint=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert r.returncode == 0, r.stderr
    assert "milp" in r.stdout


def test_a_library_process_keeps_its_sigint_handler():
    r = _run("import signal, optsched\n"
             "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n")
    assert r.returncode == 0, r.stderr


def test_which_processes_are_the_command_line():
    assert is_cli_process("/x/bin/optsched", [])
    assert is_cli_process("-m", ["python", "-X", "dev", "-m", "optsched.cli", "solve"])
    assert not is_cli_process("-m", ["python", "-m", "optsched.docs_build"])
    assert not is_cli_process("/x/bin/pytest", ["python", "/x/bin/pytest", "-m", "optsched.cli"])
    assert not is_cli_process("-c", ["python", "-c", "import optsched"])


@pytest.mark.slow
def test_sigint_during_a_native_import_is_deferred_not_a_crash():
    """orjson 3.x crashes (SIGSEGV) when a SIGINT is pending during its first import; through
    ``import_deferring_sigint`` the signal becomes a KeyboardInterrupt after the import. The
    signal is sent from a thread 0-10 ms into the import (orjson imports in about 30 ms)."""
    code = ("import os, signal, sys, threading, time\n"
            "from optsched.core.startup import import_deferring_sigint\n"
            "d = float(sys.argv[1])\n"
            "threading.Thread(target=lambda: (time.sleep(d), os.kill(os.getpid(), signal.SIGINT))).start()\n"
            "try:\n"
            "    import_deferring_sigint('orjson')\n"
            "    time.sleep(d + 0.1)\n"
            "except KeyboardInterrupt:\n"
            "    sys.exit(130)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    codes = [subprocess.run([sys.executable, "-c", code, str(ms / 1000)], env=env, capture_output=True,
                            timeout=patient(60.0), preexec_fn=_default_sigint).returncode for ms in range(0, 11)]
    # 0: the signal came after; 130: KeyboardInterrupt caught; -SIGINT: caught too, but CPython
    # (3.11, ``-c``) ends a process whose KeyboardInterrupt passed through exec'd code by SIGINT,
    # which a shell reports as 130 as well. A crash is -SIGSEGV; a failed import exits 1.
    assert set(codes) <= {0, 130, -signal.SIGINT}, codes
