"""The process watchdog: solve in a child process and kill it when it overruns its limit.

Used by back-ends that give no handle to cancel a running solve. The child is a fresh
interpreter (``python -c`` :data:`_BOOT`: it dies with its parent, :mod:`optsched.core.procs`,
then runs :func:`_main`) that reads the pickled model and
settings on stdin and writes the pickled :class:`ModelSolution` on stdout (solver output is sent
to stderr): HiGHS' thread pool
does not survive ``fork``, and multiprocessing's ``spawn`` would re-run the caller's script.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import time

from ..linear import LinearModel, ModelSolution
from ..procs import CHILD_PREAMBLE, child_env
from .base import SolverSettings

__all__ = ["solve_in_child"]

#: the child's program: die with the parent (before any import), then solve
_BOOT = CHILD_PREAMBLE + "from optsched.core.backends.watchdog import _main\n_main()\n"


def solve_in_child(backend_name: str, model: LinearModel, settings: SolverSettings) -> ModelSolution:
    """Run ``backend._solve`` in a child interpreter; kill it after ``settings.hard_limit()`` s."""
    from . import get_backend

    backend = get_backend(backend_name)
    start = time.perf_counter()
    # the limit counts from here: the child deducts its own start-up (time.time() is the one clock
    # both processes share)
    deadline = None if settings.time_limit is None else time.time() + float(settings.time_limit)
    proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
    try:
        out, err = proc.communicate(pickle.dumps((backend_name, model, settings, deadline)),
                                    timeout=settings.hard_limit())
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return ModelSolution("time_limit", None, None, None, backend.name, backend.version(),
                             time.perf_counter() - start,
                             message=f"killed by the watchdog after {settings.hard_limit():.1f} s "
                                     f"(limit {settings.time_limit} s)",
                             stats={"watchdog": True})
    except BaseException:  # Ctrl-C, SIGTERM or SIGHUP (procs.Terminated): stop the child first
        proc.kill()
        proc.wait()
        raise
    if proc.returncode != 0 or not out:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return ModelSolution("error", None, None, None, backend.name, backend.version(),
                             time.perf_counter() - start, message=f"child failed: {tail[0]}")
    try:
        return pickle.loads(out)
    except pickle.UnpicklingError as exc:
        return ModelSolution("error", None, None, None, backend.name, backend.version(),
                             time.perf_counter() - start, message=f"child answer unreadable: {exc}")


def _main() -> None:
    import os

    from . import get_backend

    # the pickled answer goes to the original stdout; anything a solver prints (to the C-level
    # stdout included) goes to stderr instead, so it cannot corrupt the answer
    answer = os.fdopen(os.dup(1), "wb")
    sys.stdout.flush()
    os.dup2(2, 1)
    try:
        backend_name, model, settings, deadline = pickle.loads(sys.stdin.buffer.read())
        if deadline is not None:
            from . import base

            base._CHILD_DEADLINE = time.perf_counter() + (deadline - time.time())
        solution = get_backend(backend_name)._solve(model, settings)
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the parent reports it
        sys.exit(130)
    answer.write(pickle.dumps(solution))
    answer.flush()
    # the answer is out: leave at once, without the interpreter's tear-down of the solver's modules
    # (a few tenths of a second for pyomo or cvxpy that the caller would wait for)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    _main()
