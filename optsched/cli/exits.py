"""Exit statuses and what ends a command (the table: docs/cli.md, "Exit statuses").

An :class:`~optsched.core.errors.OptschedError` is one line on stderr and its ``exit_status``:
2 for every :class:`~optsched.core.errors.InvalidInputError` (an invalid instance or file, an
invalid option, a method that does not apply, a back-end that refuses the model), 1 for a failed
back-end or an output file that cannot be written. Ctrl-C is 130, SIGTERM 143, SIGHUP 129, a
closed output pipe 141."""

from __future__ import annotations

import os
import sys

from ..core.errors import OptschedError


EXIT_OK, EXIT_VIOLATION, EXIT_INVALID, EXIT_INFEASIBLE = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


def remember_stderr() -> None:
    """Keep a copy of descriptor 2 for the interrupt line (a solver may redirect it later)."""
    global _STDERR_FD
    if _STDERR_FD is None:
        try:
            _STDERR_FD = os.dup(2)
        except OSError:
            pass


def report_error(exc: OptschedError) -> int:
    """One line on stderr; the error's exit status."""
    print(f"optsched: error: {exc}", file=sys.stderr)
    return exc.exit_status


def report_missing_data(exc: Exception) -> int:
    """A data set the command needs is not installed: one line naming the file and how to fetch
    it, exit 2 (an input that is missing, like a file that does not exist)."""
    print(f"optsched: error: data: {exc}", file=sys.stderr)
    return 2


def _interrupted(exc: BaseException | None = None) -> int:
    """Ctrl-C: one line, exit 130 (SIGTERM: 143, SIGHUP: 129; :mod:`optsched.core.procs`). A
    solver thread that could not be cancelled (an in-process Pyomo or CVXPY solve) is not waited
    for: the process ends at once, without running C++ destructors of a solver that is still
    running (which would abort with SIGABRT)."""
    from ..core.backends.base import abandoned_solver_threads
    from ..core.procs import exit_status, interrupt_line

    # a solver library may have replaced sys.stderr or redirected descriptors 1 and 2 while it
    # solved (Pyomo captures them): write to the copy of stderr taken when main() started
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    try:
        os.write(_STDERR_FD if _STDERR_FD is not None else 2, (interrupt_line(exc) + "\n").encode())
    except OSError:
        pass
    code = exit_status(exc)
    if abandoned_solver_threads():
        os._exit(code)
    return code


def _broken_pipe() -> int:
    """The reader of stdout went away: stop quietly (what SIGPIPE would do), exit 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


_STDERR_FD: int | None = None
