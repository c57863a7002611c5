"""Ctrl-C while the command line starts.

``optsched`` spends its first half second or so importing numpy, SciPy, highspy and every
problem before :func:`optsched.cli.main` runs. A SIGINT in that window would otherwise raise
``KeyboardInterrupt`` in the middle of an import: a traceback instead of ``optsched:
interrupted``, and inside a native extension's initialisation (highspy's pybind11 module) even a
crash (exit -11) at interpreter exit. So, when this process *is* optsched's command line (the
``optsched`` console script, or ``python -m optsched.cli``), the package's import holds SIGINT
back (:func:`hold_sigint_for_cli`, called first thing by ``optsched/__init__.py``) and
:func:`optsched.cli.main` releases it (:func:`release_startup_sigint`), answering a Ctrl-C that
came in the meantime with the usual one line and exit status 130. SIGTERM and SIGHUP are held the
same way when they have their default action (not when ignored, as under ``nohup``), and answered
with 143 and 129 (:mod:`optsched.core.procs`).

A library user's process (``import optsched`` anywhere else, the portfolio's child members,
``python -m pytest``) is never touched: its SIGINT handler stays whatever it was; so is a command
line that inherited an ignored SIGINT (a background job ``optsched ... &`` of a script).
"""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["is_cli_process", "hold_sigint_for_cli", "release_startup_sigint", "release_startup_signals",
           "import_deferring_sigint"]

_held: dict = {}


def is_cli_process(argv0: str | None = None, orig_argv: list[str] | None = None) -> bool:
    """Whether this interpreter was started as optsched's command line.

    >>> is_cli_process("/venv/bin/optsched", ["/venv/bin/python", "/venv/bin/optsched", "solve"])
    True
    >>> is_cli_process("-m", ["python3", "-m", "optsched.cli", "methods"])
    True
    >>> is_cli_process("-m", ["python3", "-m", "pytest", "-q"])
    False
    >>> is_cli_process("-c", ["python3", "-c", "import optsched"])
    False
    """
    if argv0 is None:
        argv0 = sys.argv[0] if sys.argv else ""
    if orig_argv is None:
        orig_argv = list(getattr(sys, "orig_argv", []))
    if os.path.basename(argv0) == "optsched":  # the console script
        return True
    if argv0 != "-m":  # a script or -c; "-m" only while python -m imports its module's packages
        return False
    rest = orig_argv[1:]
    return "-m" in rest and rest[rest.index("-m") + 1:rest.index("-m") + 2] == ["optsched.cli"]


def hold_sigint_for_cli() -> None:
    """In the command line's process only: record a SIGINT instead of raising it, until
    :func:`release_startup_sigint`. Elsewhere (or outside the main thread) it does nothing."""
    if _held or threading.current_thread() is not threading.main_thread() or not is_cli_process():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return  # SIGINT ignored (a background job) or handled by whoever started us: leave it so
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except (ValueError, OSError):  # pragma: no cover - no signals here
        return
    others = {}
    for name in ("SIGTERM", "SIGHUP"):  # held the same way, unless ignored (nohup) or handled
        signum = getattr(signal, name, None)
        try:
            if signum is not None and signal.getsignal(signum) is signal.SIG_DFL:
                others[signum] = signal.signal(signum, lambda signum, frame: caught.append(signum))
        except (ValueError, OSError):  # pragma: no cover
            pass
    _held.update(previous=previous, caught=caught, others=others)


def release_startup_signals() -> int | None:
    """Restore the handlers held back at start-up (SIGINT, and SIGTERM and SIGHUP where they
    had the default action); the first of them that came meanwhile, or None."""
    if not _held:
        return None
    signal.signal(signal.SIGINT, _held.pop("previous"))
    for signum, previous in _held.pop("others", {}).items():
        signal.signal(signum, previous)
    caught = _held.pop("caught")
    return caught[0] if caught else None


def release_startup_sigint() -> bool:
    """Restore the handlers held back at start-up; whether a signal came meanwhile."""
    return release_startup_signals() is not None


def import_deferring_sigint(name: str):
    """``importlib.import_module(name)`` with Ctrl-C held back until the import is done.

    A SIGINT that lands inside a native extension's initialisation turns into ``ImportError:
    initialization failed`` (OR-Tools' and PySCIPOpt's modules) or even a segmentation fault
    (orjson 3.x, reproducibly when the signal is pending during its first import); here it is
    recorded and re-raised as ``KeyboardInterrupt`` once the import finished. Outside the main
    thread (where no handler can be installed), or with SIGINT ignored, it is a plain import.
    """
    import importlib

    if (name in sys.modules or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        return importlib.import_module(name)
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        module = importlib.import_module(name)
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
    return module
