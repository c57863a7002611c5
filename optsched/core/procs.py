"""Child processes die with their parent; SIGTERM and SIGHUP end a command as Ctrl-C does.

optsched starts child processes in three places: the process watchdog of the Pyomo, CVXPY and
SciPy back-ends (:mod:`optsched.core.backends.watchdog`), the portfolio's child members and their
warm spares (:mod:`optsched.core.backends.portfolio`), and the worker processes of ``optsched
repro`` (:mod:`optsched.repro.executors`, with multiprocessing's resource tracker). Each of them
dies with its parent, whatever ends the parent:

* **A signal the parent can handle** (SIGINT, SIGTERM, SIGHUP): the command line turns SIGTERM and
  SIGHUP into :class:`Terminated`, a ``KeyboardInterrupt``, so the one clean-up path that already
  serves Ctrl-C (cancel the in-process solve, kill the child, terminate the pool) serves them too;
  the command then exits with ``128 + signal number``: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP),
  after one line on stderr (:func:`exit_status`, :func:`interrupt_line`). A SIGHUP that the
  caller ignores (``nohup``) stays ignored.
* **A signal it cannot handle** (SIGKILL, a crash): on Linux each child asks the kernel, first
  thing, to send it SIGKILL when its parent ends (``prctl(PR_SET_PDEATHSIG)``), and then checks
  that its parent is still the one that started it (a parent that died before the request leaves
  the child re-parented: it exits at once). The worker processes of ``repro`` do the same, so their
  own solver children follow them, and multiprocessing's resource tracker reads the end of its
  pipe and exits once the driver and the workers are gone. Elsewhere (no ``prctl``) a watchdog
  child reads its model on stdin and a portfolio spare waits on stdin, so they end when the
  parent's pipe closes, but a child already solving runs to its own time limit.

The kernel sends the parent-death signal when the *thread* that started the child ends; optsched
starts its children from the thread that solves (the main thread on the command line and in a
repro worker).
"""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["PARENT_ENV", "die_with_parent", "child_env", "CHILD_PREAMBLE", "Terminated",
           "terminate_like_interrupt", "exit_status", "interrupt_line"]

#: the environment variable that hands a child its parent's process id
PARENT_ENV = "OPTSCHED_PARENT_PID"
_PR_SET_PDEATHSIG = 1

#: the first statements of a ``python -c`` child: the parent-death signal is requested before the
#: child imports anything (numpy and the solvers take a second), and a child whose parent is
#: already gone exits at once
CHILD_PREAMBLE = (
    "import os, sys\n"
    "def _optsched_die_with_parent():\n"
    "    want = os.environ.get('" + PARENT_ENV + "')\n"
    "    if sys.platform.startswith('linux'):\n"
    "        try:\n"
    "            import ctypes, signal\n"
    "            ctypes.CDLL(None, use_errno=True).prctl(" + str(_PR_SET_PDEATHSIG) + ", int(signal.SIGKILL), 0, 0, 0)\n"
    "        except (OSError, AttributeError):\n"
    "            pass\n"
    "    if want and os.getppid() != int(want):\n"
    "        os._exit(1)\n"
    "_optsched_die_with_parent()\n"
)


def die_with_parent(parent_pid: int | None = None) -> bool:
    """In a child process: ask for SIGKILL when the parent ends (Linux), and exit at once when the
    parent is already gone (``parent_pid``, else ``$OPTSCHED_PARENT_PID``, is no longer the parent).
    Returns whether the kernel took the request."""
    if parent_pid is None:
        env = os.environ.get(PARENT_ENV)
        parent_pid = int(env) if env and env.isdigit() else None
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            armed = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):  # pragma: no cover - no C library handle
            armed = False
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)
    return armed


def child_env(extra: dict | None = None) -> dict:
    """The environment of a child that must die with this process (this process' id in
    :data:`PARENT_ENV`)."""
    env = dict(os.environ)
    env[PARENT_ENV] = str(os.getpid())
    if extra:
        env.update(extra)
    return env


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Ctrl-C's ``KeyboardInterrupt`` would be, so the same
    clean-up runs; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_installed: dict = {}


def _raise_terminated(signum, frame):
    raise Terminated(signum)


def terminate_like_interrupt() -> None:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` in this process (main thread only; a
    signal that is ignored, such as SIGHUP under ``nohup``, or already handled, is left alone).
    :func:`restore_signals` puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or signum in _installed:
            continue
        try:
            if signal.getsignal(signum) is not signal.SIG_DFL:
                continue
            _installed[signum] = signal.signal(signum, _raise_terminated)
        except (ValueError, OSError):  # pragma: no cover
            pass


def restore_signals() -> None:
    """Undo :func:`terminate_like_interrupt`."""
    if threading.current_thread() is not threading.main_thread():
        return
    while _installed:
        signum, previous = _installed.popitem()
        try:
            signal.signal(signum, previous)
        except (ValueError, OSError):  # pragma: no cover
            pass


def exit_status(exc: BaseException | None) -> int:
    """The command line's exit status after ``exc`` ended it: ``128 + signal number`` (130 for
    Ctrl-C or a plain ``KeyboardInterrupt``, 143 SIGTERM, 129 SIGHUP)."""
    if isinstance(exc, Terminated):
        return 128 + int(exc.signum)
    return 128 + int(signal.SIGINT)


def interrupt_line(exc: BaseException | None) -> str:
    """The one line on stderr: ``optsched: interrupted`` for Ctrl-C, ``optsched: terminated
    (SIGTERM)`` or ``(SIGHUP)`` otherwise."""
    if isinstance(exc, Terminated):
        try:
            name = signal.Signals(exc.signum).name
        except ValueError:  # pragma: no cover
            name = f"signal {exc.signum}"
        return f"optsched: terminated ({name})"
    return "optsched: interrupted"
