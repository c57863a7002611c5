"""Executors that run sweep cells: local processes or a ``dask.distributed`` cluster.

A cell is a :class:`CellTask` (key, script path, parameters, seed); a worker imports the script by
path (once per process) and calls its ``EXPERIMENT``'s ``run_cell(params, seed)`` through
:func:`execute_cell`, which never raises: an exception becomes an error message in the
:class:`CellOutcome`. Executors yield outcomes as cells finish; the driver stores them.

* :class:`LocalExecutor`: ``concurrent.futures.ProcessPoolExecutor`` with the ``spawn`` context
  (HiGHS' thread pool does not survive ``fork``), ``jobs`` processes, reused across experiments.
* :class:`DaskExecutor`: an embedded ``LocalCluster`` on 127.0.0.1 (``jobs`` worker processes,
  one thread each, no dashboard), or an existing scheduler (``--scheduler ADDRESS``); its workers
  must see the same files (scripts, data directory) at the same paths and run the same versions.
  Joining a scheduler waits at most ``connect_timeout`` seconds (``--connect-timeout``, default
  :data:`CONNECT_TIMEOUT_S`); a scheduler that cannot be reached is :class:`SchedulerUnreachable`,
  one line and exit status 1, and a malformed address is invalid input (exit 2).

Both give the same rows: a cell depends only on its parameters and seed.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Iterator

from optsched.core.errors import InvalidOptionError, OptschedError

from .discovery import declaration_of, format_exception, load_script

__all__ = ["CellTask", "CellOutcome", "execute_cell", "LocalExecutor", "DaskExecutor", "make_executor",
           "SINGLE_THREAD_ENV", "SchedulerUnreachable", "CONNECT_TIMEOUT_S"]

#: how long joining a dask scheduler may take by default (s): a scheduler on the network answers
#: in well under a second; dask's own default (30 s) made a wrong address look like a hang
CONNECT_TIMEOUT_S = 10.0
#: the longest ``--connect-timeout`` accepted (s)
MAX_CONNECT_TIMEOUT_S = 3600.0


class SchedulerUnreachable(OptschedError):
    """The dask scheduler named by ``--scheduler`` did not answer within the connect timeout (CLI
    exit status 1, one line)."""

    exit_status = 1


def check_connect_timeout(value) -> float:
    """``value`` as seconds in (0, :data:`MAX_CONNECT_TIMEOUT_S`], else :class:`InvalidOptionError`."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= MAX_CONNECT_TIMEOUT_S:
        raise InvalidOptionError("repro", "--connect-timeout", f"must be a number of seconds in (0, "
                                 f"{MAX_CONNECT_TIMEOUT_S:g}]", value)
    return float(value)

#: set to 1 in the driver's environment before workers start, so numeric libraries use one thread
SINGLE_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                     "NUMEXPR_NUM_THREADS")


@dataclass(frozen=True)
class CellTask:
    key: str
    script: str
    params: dict
    seed: int
    #: which declaration of the script runs the cell (``id`` or ``id/part``; "" for its EXPERIMENT)
    declaration: str = ""


@dataclass(frozen=True)
class CellOutcome:
    """What a worker sends back: the row, or the error (a traceback excerpt), and the cell's wall
    and CPU time (the CPU time does not grow when other processes compete for the cores)."""

    key: str
    row: dict | None
    error: str | None
    wall_s: float
    cpu_s: float
    worker: str


def execute_cell(key: str, script: str, params: dict, seed: int, declaration: str = "") -> CellOutcome:
    """Run one cell in this process (the worker side); never raises."""
    worker = f"{socket.gethostname()}:{os.getpid()}"
    start, cpu = time.perf_counter(), time.process_time()
    try:
        row = declaration_of(load_script(script), declaration).run_cell(dict(params), seed)
        if not isinstance(row, dict) or not all(isinstance(k, str) for k in row):
            raise TypeError(f"run_cell must return a dict with str keys, got {type(row).__name__}")
        json.dumps(row, allow_nan=True)  # a row that cannot be stored is the cell's error
    except Exception:
        return CellOutcome(key, None, format_exception(), time.perf_counter() - start,
                           time.process_time() - cpu, worker)
    return CellOutcome(key, row, None, time.perf_counter() - start, time.process_time() - cpu, worker)


def _ignore_sigint(driver_pid: int | None = None) -> None:
    """Worker initializer: Ctrl-C reaches the driver, which stops the workers itself; a driver
    that dies any other way (SIGKILL) takes the worker with it (Linux parent-death signal, and a
    worker whose driver is already gone exits: :mod:`optsched.core.procs`), and the worker's own
    solver children follow it."""
    import signal

    from optsched.core.procs import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(driver_pid)


class LocalExecutor:
    """Cells in ``jobs`` local processes (``spawn`` context)."""

    name = "local"

    def __init__(self, jobs: int):
        if jobs < 1:
            raise InvalidOptionError("repro", "--jobs", "must be >= 1", jobs)
        self.jobs = jobs
        self._pool = None

    def describe(self) -> str:
        return f"local processes (spawn), jobs={self.jobs}"

    def run(self, tasks: list[CellTask]) -> Iterator[CellOutcome]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        if not tasks:
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_ignore_sigint, initargs=(os.getpid(),))
        futures = {self._pool.submit(execute_cell, t.key, t.script, t.params, t.seed, t.declaration): t for t in tasks}
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except BrokenProcessPool:
                    yield CellOutcome(futures[future].key, None, "the worker process died (killed or crashed)",
                                      0.0, 0.0, "local")
        finally:
            for future in futures:
                future.cancel()
            if any(f.done() and not f.cancelled() and isinstance(f.exception(), BrokenProcessPool)
                   for f in futures):
                self.close()  # a broken pool cannot take more work; the next sweep starts a new one

    def close(self, terminate: bool = False) -> None:
        """Shut the pool down; ``terminate`` (after Ctrl-C) kills running cells instead of waiting."""
        if self._pool is not None:
            if terminate:
                # ProcessPoolExecutor has no public way to stop running tasks before Python 3.14
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
            self._pool.shutdown(wait=not terminate, cancel_futures=True)
            self._pool = None


class DaskExecutor:
    """Cells on a ``dask.distributed`` cluster: embedded on loopback, or joined at ``scheduler``."""

    name = "dask"

    def __init__(self, jobs: int, scheduler: str | None = None, connect_timeout: float | None = None):
        import dask
        from distributed import Client, LocalCluster

        self.jobs, self.scheduler = jobs, scheduler
        self._cluster = None
        if scheduler:
            timeout = check_connect_timeout(CONNECT_TIMEOUT_S if connect_timeout is None else connect_timeout)
            try:
                self._client = Client(scheduler, timeout=timeout)
            except (ValueError, TypeError) as exc:  # not an address dask can parse (e.g. "::bogus::")
                raise InvalidOptionError("repro", "--scheduler", f"is not a dask scheduler address "
                                         f"(e.g. tcp://HOST:8786): {str(exc).splitlines()[0][:120]}",
                                         scheduler) from None
            except (OSError, TimeoutError) as exc:  # refused, unknown host, no answer in time
                reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
                raise SchedulerUnreachable(f"repro: cannot reach the dask scheduler at {scheduler} within "
                                           f"{timeout:g} s ({reason}); is it running? (--connect-timeout S "
                                           "waits longer)") from None
        else:
            # workers may start child processes (the watchdog of the pyomo and cvxpy back-ends)
            dask.config.set({"distributed.worker.daemon": False})
            self._cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                         host="127.0.0.1", dashboard_address=None)
            self._client = Client(self._cluster)

    def describe(self) -> str:
        where = f"scheduler {self.scheduler}" if self.scheduler else f"embedded LocalCluster on 127.0.0.1, " \
                                                                        f"{self.jobs} worker processes x 1 thread"
        return f"dask.distributed, {where}"

    def run(self, tasks: list[CellTask]) -> Iterator[CellOutcome]:
        from distributed import as_completed

        if not tasks:
            return
        futures = [self._client.submit(execute_cell, t.key, t.script, t.params, t.seed, t.declaration, pure=False,
                                       key=f"optsched-cell-{t.key}-{time.time_ns()}") for t in tasks]
        by_key = {f.key: t for f, t in zip(futures, tasks)}
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as exc:  # a worker lost mid-task, a serialization failure, ...
                    yield CellOutcome(by_key[future.key].key, None, f"dask: {type(exc).__name__}: {exc}", 0.0, 0.0,
                                      "dask")
        finally:
            self._client.cancel(futures)

    def close(self, terminate: bool = False) -> None:
        """Disconnect, and stop the embedded cluster (running cells are cancelled either way)."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(kind: str, jobs: int, scheduler: str | None = None, connect_timeout: float | None = None):
    """``"local"`` or ``"dask"`` (``scheduler`` and ``connect_timeout``, in seconds, only with dask)."""
    if connect_timeout is not None:
        check_connect_timeout(connect_timeout)
    if jobs < 1:
        raise InvalidOptionError("repro", "--jobs", "must be >= 1", jobs)
    if kind == "local":
        if scheduler:
            raise InvalidOptionError("repro", "--scheduler", "needs --executor dask", scheduler)
        return LocalExecutor(jobs)
    if kind == "dask":
        return DaskExecutor(jobs, scheduler, connect_timeout)
    raise InvalidOptionError("repro", "--executor", "must be local or dask", kind)
