"""Run a blocking native solve so that Ctrl-C and the watchdog can stop it.

A solver that holds the main thread inside native code (SCIP's ``optimizeNogil``, CP-SAT's
``Solve``) never lets Python run its SIGINT handler until it returns, so Ctrl-C would wait for the
time limit. :func:`run_interruptible` runs the solve in a worker thread while the main thread
waits in short, signal-interruptible joins: on ``KeyboardInterrupt`` it asks the solver to stop,
waits for it, and re-raises (the CLI then exits with status 130); at the hard limit (the
watchdog, ``SolverSettings.hard_limit()``) it asks the solver to stop and reports that it did.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ..startup import import_deferring_sigint

__all__ = ["run_interruptible", "import_deferring_sigint"]


def run_interruptible(solve: Callable[[], None], stop: Callable[[], None], hard_limit: float | None,
                      poll_s: float = 0.2, stop_event: threading.Event | None = None) -> bool:
    """Run ``solve()`` in a worker thread; call ``stop()`` on Ctrl-C (then re-raise), after
    ``hard_limit`` seconds, or once ``stop_event`` is set (the portfolio's in-process member).
    Returns whether the watchdog had to stop the solve. An exception raised by ``solve`` is
    re-raised here."""
    failure: list[BaseException] = []

    def work() -> None:
        try:
            solve()
        except BaseException as exc:  # pragma: no cover - handed to the caller
            failure.append(exc)

    thread = threading.Thread(target=work, name="optsched-solve", daemon=True)
    deadline = None if hard_limit is None else time.monotonic() + hard_limit
    fired = False
    thread.start()
    try:
        while thread.is_alive():
            if deadline is not None and time.monotonic() >= deadline:
                stop()  # repeated each poll: a request made before the search started may be lost
                fired = True
            if stop_event is not None and stop_event.is_set():
                stop()
            thread.join(poll_s if stop_event is None else min(poll_s, 0.05))
    except KeyboardInterrupt:
        while thread.is_alive():
            stop()
            thread.join(poll_s)
        raise
    if failure:
        raise failure[0]
    return fired
