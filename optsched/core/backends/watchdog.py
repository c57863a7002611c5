"""The process watchdog: solve in a child process and kill it when it overruns its limit.

Used by back-ends that give no handle to cancel a running solve. The child is a fresh
interpreter (``python -c`` :data:`_BOOT`: it dies with its parent, :mod:`optsched.core.procs`,
then runs :func:`_main`) that reads the pickled back-end (its class is found by module path, so
this module looks no back-end up by name and imports none), model and settings on stdin and writes the pickled :class:`ModelSolution` on stdout (solver output is sent
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

__all__ = ["solve_in_child", "solver_time_limit"]

#: the child's program: die with the parent (before any import), then solve
_BOOT = CHILD_PREAMBLE + "from optsched.core.backends.watchdog import _main\n_main()\n"


#: where a child interpreter runs the solve (``watchdog._main``), the ``time.perf_counter()`` by
#: which its solver must stop: the parent's limit less what starting the child and reading the model
#: took, so that the whole call, start-up included, ends within the limit
_CHILD_DEADLINE: float | None = None
#: what is kept back from the solver for the work after it stops (loading its answer, sending it
#: to the parent): 1 % of the limit, at least 0.05 s
_AFTER_SOLVE_FRACTION, _AFTER_SOLVE_MIN_S = 0.01, 0.05
#: the least share of the limit a child's solver gets, whatever its start-up took
_SOLVER_FLOOR_FRACTION = 0.2


def solver_time_limit(settings: "SolverSettings") -> float | None:
    """The time limit to hand the solver itself, at the moment it is called.

    In-process back-ends get ``settings.time_limit``. In a watchdog child the limit counts from the
    parent's call, so what the child's start-up, imports and model building already took is
    deducted, and a small reserve is kept for the work after the solve.
    """
    if settings.time_limit is None or _CHILD_DEADLINE is None:
        return settings.time_limit
    reserve = max(_AFTER_SOLVE_MIN_S, _AFTER_SOLVE_FRACTION * settings.time_limit)
    left = _CHILD_DEADLINE - time.perf_counter() - reserve
    # a start-up that ate the limit (a loaded machine, a short limit) still leaves the solver a
    # fifth of it, so that it can answer with a point and a bound rather than nothing: the call then
    # overruns its limit by up to that much
    return min(float(settings.time_limit), max(_SOLVER_FLOOR_FRACTION * settings.time_limit, left))


def solve_in_child(backend, model: LinearModel, settings: "SolverSettings") -> ModelSolution:
    """Run ``backend._solve`` (``backend``: a :class:`~optsched.core.backends.base.Backend`) in a
    child interpreter; kill it after ``settings.hard_limit()`` s."""
    start = time.perf_counter()
    # the limit counts from here: the child deducts its own start-up (time.time() is the one clock
    # both processes share)
    deadline = None if settings.time_limit is None else time.time() + float(settings.time_limit)
    proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
    try:
        out, err = proc.communicate(pickle.dumps((backend, model, settings, deadline)),
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

    global _CHILD_DEADLINE
    # the pickled answer goes to the original stdout; anything a solver prints (to the C-level
    # stdout included) goes to stderr instead, so it cannot corrupt the answer
    answer = os.fdopen(os.dup(1), "wb")
    sys.stdout.flush()
    os.dup2(2, 1)
    try:
        backend, model, settings, deadline = pickle.loads(sys.stdin.buffer.read())
        if deadline is not None:
            _CHILD_DEADLINE = time.perf_counter() + (deadline - time.time())
        solution = backend._solve(model, settings)
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
