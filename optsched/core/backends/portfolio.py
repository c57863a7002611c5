"""The portfolio back-end: race several back-ends on the same model, one process each.

``portfolio`` races ``highs`` and ``scip``, except that ``cpsat`` takes HiGHS' place on a model
it accepts exactly (pure-integer data with an exact integer scaling): on OR-Library mknapcb1 CP-SAT
proved every optimum faster than HiGHS (``paper_repro/t16_solvers.py``).
``portfolio:highs+scip`` races exactly the members named (``PortfolioBackend(members=...,
substitutes=...)`` in Python); ``stats["portfolio_substituted"]`` records a substitution. Every member but one solves in its own child
interpreter (the protocol of :mod:`.watchdog`: pickled model and settings on stdin, pickled
answer on stdout, solver output to stderr); all get the same settings and what is left of the
time limit, so two members use the machine's two cores.

* The first member that can be stopped from a thread (``highs``, ``scip``, ``cpsat``) solves in
  the calling process, so the portfolio pays no start-up cost for it; the others start a fresh
  interpreter each.
* The child members run at the lowest CPU priority (``child_priority="idle"``: Linux
  ``SCHED_IDLE``, set before the child imports anything; niceness 19 where that is missing), in
  the caller's session (so in its scheduler group) but their own process group. On an idle
  machine both members get a core each; on a loaded one the child gets only the cycles nobody
  else wants, so the in-process member - the one chosen for the model, CP-SAT on the integer
  models it accepts - runs as fast as it runs alone and the portfolio is never slower than it by
  more than its start-up cost (measured in ``paper_repro/t16_solvers.py``: at niceness 0 or 19, a
  second solver on the other core of this 2-core machine doubled CP-SAT's time on mknapcb1).
  ``child_priority="low"`` (niceness 19) or ``"normal"`` races the members as equals.
* After a race the portfolio starts a new child for each child member and keeps it waiting, its
  solver imported (``keep_warm=True``): the next solve in the same process (a method that
  solves one model per stage count, a sweep) finds it started and pays no interpreter start-up.
  :func:`discard_spares` stops the spares (also done at exit); a spare whose parent dies reads
  the end of its input and exits.
* The **first proof** (``optimal``, or ``infeasible``) wins: the other members are killed at once
  and the answer is the winner's.
* Without a proof, the parent waits for every member (each stops at its own time limit; the
  watchdog kills a member ``hard_limit()`` seconds after the start) and combines them: the best
  incumbent of any member, the tightest bound of any member (both valid, so the gap is honest),
  and the status ``time_limit`` when a time limit stopped the search (``feasible`` for a work
  limit, ``error`` if no member answered usefully).
* A member that refuses the model (CP-SAT and a continuous column) is left out before the race
  (``stats["portfolio_refused"]``); when every member refuses, the portfolio refuses.

``stats["portfolio_winner"]`` names the member whose point is returned, and
``stats["portfolio_members"]`` gives every member's status, objective, bound and run time (``killed``
for a loser stopped after the winner's proof). ``stats["portfolio_overhead_s"]`` is the portfolio's
wall time minus the winner's own solve time (its start-up cost: a fresh interpreter per member,
the model pickled to it); ``stats["portfolio_local"]`` names the in-process member,
``stats["portfolio_warm_children"]`` the child members that were already started, and
``stats["portfolio_stop_s"]`` the time from the answer to the losers' end (included in the wall
time).

Ctrl-C: the children run in their own process group (a terminal's SIGINT reaches only the parent), and
the parent kills them before re-raising ``KeyboardInterrupt`` (SIGTERM and SIGHUP too, on the
command line: :mod:`optsched.core.procs`); a parent killed outright takes them with it (Linux
parent-death signal, requested first thing in each child; a spare of a parent gone reads the end of
its input and exits).
"""

from __future__ import annotations

import atexit
import dataclasses
import inspect
import os
import math
import pickle
import queue
import subprocess
import sys
import threading
import time

from ..errors import BackendRefused, SolverError
from ..linear import LinearModel, ModelSolution
from ..procs import CHILD_PREAMBLE, child_env
from .base import Backend, SolverSettings, settle_status
from .catalog import SOLVERS, get_solver

__all__ = ["PortfolioBackend", "DEFAULT_MEMBERS", "CHILD_PRIORITY", "parse_portfolio_name", "child_startup_s",
           "discard_spares"]

DEFAULT_MEMBERS = ("highs", "scip")
_PROOFS = ("optimal", "infeasible")
#: how a child member ranks for the CPU, set before it imports anything: ``idle`` (Linux
#: ``SCHED_IDLE``: it runs on cycles no other process wants; elsewhere niceness 19), ``low``
#: (niceness 19) or ``normal`` (the caller's priority)
CHILD_PRIORITY = "idle"
_PRIORITIES = ("idle", "low", "normal")
#: what a waiting child imports before its model comes (the modules its solve needs)
_PRELOAD = {"highs": ("highspy",), "scip": ("pyscipopt",), "cpsat": ("ortools.sat.python.cp_model",)}
_VERSIONS: dict[tuple, str] = {}


def parse_portfolio_name(name: str) -> tuple[str, ...] | None:
    """The members named by ``portfolio`` or ``portfolio:a+b`` (None for another name).

    >>> parse_portfolio_name("portfolio"), parse_portfolio_name("portfolio:highs+cpsat")
    (('highs', 'scip'), ('highs', 'cpsat'))
    """
    if name == "portfolio":
        return DEFAULT_MEMBERS
    if name.startswith("portfolio:"):
        return tuple(m for m in name.split(":", 1)[1].split("+") if m)
    return None


#: the members' deadline is this much before the portfolio's time limit (1 % of the limit, at least
#: 0.05 s): the time to collect their answers; at the limit a member that has not answered is stopped
#: (once another one has)
RESERVE_FRACTION, RESERVE_MIN_S = 0.01, 0.05

class PortfolioBackend(Backend):
    description = "races back-ends in separate processes (default highs and scip); first proof wins"
    bound_support = "the tightest bound of any member; none when every member was killed"
    watchdog = "process"

    def __init__(self, members: tuple[str, ...] = DEFAULT_MEMBERS, name: str | None = None,
                 substitutes: dict[str, str] | None = None,
                 child_priority: str = CHILD_PRIORITY, keep_warm: bool = True):
        members = tuple(members)
        if len(members) < 1 or len(set(members)) != len(members):
            raise SolverError(f"a portfolio needs distinct members, got {members!r}")
        for m in members:
            if m not in SOLVERS:
                known = list(SOLVERS)
                raise SolverError(f"unknown portfolio member {m!r} (known: {', '.join(known)})")
        self.members = members
        self.name = name or "portfolio:" + "+".join(members)
        #: member -> the back-end that takes its place on the models the latter accepts
        self.substitutes = dict(substitutes or {})
        if child_priority not in _PRIORITIES:
            raise SolverError(f"child_priority must be one of {', '.join(_PRIORITIES)}, got {child_priority!r}")
        #: the CPU priority of the child members (``idle``: only cycles nobody else wants)
        self.child_priority = child_priority
        #: keep one started child per member for the next solve in this process
        self.keep_warm = bool(keep_warm)

    def version(self) -> str:
        """The members' versions (computed once per process: SCIP's builds a model to ask)."""
        key = tuple(self.members) + tuple(sorted(self.substitutes.items()))
        if key not in _VERSIONS:
            _VERSIONS[key] = "portfolio(" + "; ".join(f"{m}: {get_solver(m).version()}" for m in self.members) + ")"
        return _VERSIONS[key]

    def solve(self, model: LinearModel, settings: SolverSettings = SolverSettings()) -> ModelSolution:
        return settle_status(model, settings, self._solve(model, settings))  # members run in children already

    def _solve(self, model: LinearModel, settings: SolverSettings) -> ModelSolution:
        start, start_epoch = time.perf_counter(), time.time()  # the refusal checks below count too
        refused = {}
        racing = []
        chosen = list(self.members)
        for i, m in enumerate(chosen):
            sub = self.substitutes.get(m)
            if sub is not None and sub not in chosen and get_solver(sub).refuses(model) is None:
                chosen[i] = sub
        for m in chosen:
            why = get_solver(m).refuses(model)
            if why is None:
                racing.append(m)
            else:
                refused[m] = why
        if not racing:
            raise BackendRefused(self.name, model.name,
                                 "every member refuses it: " + "; ".join(f"{k}: {v}" for k, v in refused.items()))
        # the members share the caller's clock: each gets what is left of the limit when it starts
        # (less a reserve for collecting the answers and stopping the others)
        deadline_epoch = None if settings.time_limit is None else \
            start_epoch + settings.time_limit - max(RESERVE_MIN_S, RESERVE_FRACTION * settings.time_limit)
        payload = pickle.dumps((model, settings, deadline_epoch))
        answers: queue.Queue = queue.Queue()
        procs: dict[str, subprocess.Popen] = {}
        # the first member that can be stopped from a thread solves in this process (no start-up
        # cost); the others each in a fresh interpreter
        local = next((m for m in racing if _stoppable(get_solver(m))), None)
        stop = threading.Event()
        local_thread = None
        warm: dict[str, bool] = {}
        interrupted = False
        try:
            for m in racing:  # the children first: their start-up overlaps the local member's solve
                if m == local:
                    continue
                procs[m], warm[m] = _take_child(m, self.child_priority)
                threading.Thread(target=_talk, args=(m, procs[m], payload, answers),
                                 daemon=True).start()
            if local is not None:
                local_thread = threading.Thread(target=_local, args=(get_solver(local), model, settings,
                                                                     deadline_epoch, stop, answers),
                                                name="optsched-portfolio-member", daemon=True)
                local_thread.start()
            results: dict[str, ModelSolution] = {}
            hard = settings.hard_limit()
            deadline = None if hard is None else start + hard
            # at the time limit (the members' own deadline was the reserve earlier), a member that
            # has not answered is not waited for once another one has: an idle-priority child
            # starved by a busy machine must not hold the answer up to the watchdog's limit
            soft = None if settings.time_limit is None else start + settings.time_limit
            winner = None
            while len(results) < len(racing):
                now = time.perf_counter()
                if results and soft is not None and now >= soft:
                    break
                wait = None if deadline is None else deadline - now
                if wait is not None and wait <= 0:
                    break
                if soft is not None and now < soft:  # wake at the limit, not up to 0.2 s after it
                    wait = soft - now if wait is None else min(wait, soft - now)
                try:
                    m, sol = answers.get(timeout=0.2 if wait is None else min(wait, 0.2))
                except queue.Empty:
                    continue
                results[m] = sol
                if sol.status in _PROOFS:
                    winner = m
                    break
        except BaseException:
            interrupted = True
            raise
        finally:
            stop.set()
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
            answered = time.perf_counter()  # the answer is known; what follows is the clean-up
            if local_thread is not None:
                local_thread.join(timeout=30)  # a stopped solver returns within one poll (<= 0.05 s)
            for p in procs.values():
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:  # pragma: no cover - a kill is not refused
                    pass
            if self.keep_warm and not interrupted:
                for m in procs:  # the next solve in this process finds its child started
                    _replenish(m, self.child_priority)
        elapsed = time.perf_counter() - start
        stop_s = time.perf_counter() - answered
        members = {}
        for m in racing:
            sol = results.get(m)
            if sol is None:
                late = not winner and elapsed < (settings.hard_limit() or math.inf)
                members[m] = {"status": "killed" if winner else "time_limit", "objective": None,
                              "bound": None, "run_time": None,
                              "message": "stopped after another member's proof" if winner
                              else ("no answer by the time limit; stopped" if late else "killed by the watchdog")}
            else:
                members[m] = {"status": sol.status, "objective": sol.objective, "bound": sol.bound,
                              "run_time": sol.run_time, "message": sol.message}
        stats = {"portfolio_members": members, "portfolio_refused": refused,
                 "portfolio_substituted": {a: b for a, b in zip(self.members, chosen) if a != b},
                 "portfolio_local": local, "portfolio_warm_children": sorted(m for m, w in warm.items() if w),
                 "portfolio_stop_s": stop_s}
        if winner is not None:
            return self._answer(results[winner], winner, elapsed, stats)
        return self._combine(model, settings, results, elapsed, stats)

    def _answer(self, sol: ModelSolution, winner: str, elapsed: float, stats: dict,
                status: str | None = None, bound=..., message: str | None = None) -> ModelSolution:
        stats = {**sol.stats, **stats, "portfolio_winner": winner, "winner_run_time": sol.run_time,
                 "portfolio_overhead_s": max(0.0, elapsed - sol.run_time)}
        return ModelSolution(status=status or sol.status, x=sol.x, objective=sol.objective,
                             bound=sol.bound if bound is ... else bound, backend=self.name,
                             solver_version=self.version(), run_time=elapsed,
                             message=f"{winner}: {sol.message}" if message is None else message, stats=stats)

    def _combine(self, model: LinearModel, settings: SolverSettings, results: dict, elapsed: float,
                 stats: dict) -> ModelSolution:
        """No proof: the best incumbent and the tightest bound across the members."""
        sign = 1.0 if model.sense == "max" else -1.0
        with_point = [(m, s) for m, s in results.items() if s.x is not None and s.objective is not None]
        bounds = [s.bound for s in results.values() if s.bound is not None and s.status != "error"]
        bound = (min(bounds) if model.sense == "max" else max(bounds)) if bounds else None
        statuses = {s.status for s in results.values()}
        if "time_limit" in statuses or len(results) < len(stats["portfolio_members"]):
            status = "time_limit"
        elif "feasible" in statuses:
            status = "feasible"
        else:
            status = "error"
        summary = "; ".join(f"{m}: {v['status']}" for m, v in stats["portfolio_members"].items())
        if with_point:
            winner, best = max(with_point, key=lambda ms: sign * ms[1].objective)
            if status == "error":
                status = "feasible" if settings.time_limit is None else "time_limit"
            return self._answer(best, winner, elapsed, stats, status=status, bound=bound,
                                message=f"no member proved optimality ({summary}); best point from {winner}")
        return ModelSolution(status=status, x=None, objective=None, bound=bound, backend=self.name,
                             solver_version=self.version(), run_time=elapsed,
                             message=f"no member found a point ({summary})",
                             stats={**stats, "portfolio_winner": None})


def child_startup_s(member: str = "scip") -> float:
    """The portfolio's start-up cost for a child member: the wall time to start its interpreter,
    hand it a one-column model and read its answer (what a child member pays before its search)."""
    from ..linear import ModelBuilder

    b = ModelBuilder("one-column", "max")
    b.add_block("x", 1, upper=1, integer=True, cost=[1])
    answers: queue.Queue = queue.Queue()
    start = time.perf_counter()
    proc = _spawn(member, "normal")
    _talk(member, proc, pickle.dumps((b.build(), SolverSettings(), None)), answers)
    return time.perf_counter() - start


# ---- child members: low CPU priority, own process group, one warm spare per member -------------
#: the child's first statements: lower its CPU priority, then import the member's solver and wait
_BOOT = (CHILD_PREAMBLE
         + "p = sys.argv[2]\n"
         "try:\n"
         "    if p == 'idle':\n"
         "        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
         "    elif p == 'low':\n"
         "        os.nice(19)\n"
         "except (AttributeError, OSError):\n"
         "    try:\n"
         "        os.nice(19)\n"
         "    except OSError:\n"
         "        pass\n"
         "from optsched.core.backends.portfolio import _main\n"
         "_main()\n")
_SPARES: dict[tuple[str, str], subprocess.Popen] = {}
_SPARES_LOCK = threading.Lock()
_SPARES_PID = os.getpid()


def _spawn(member: str, priority: str) -> subprocess.Popen:
    """A fresh child interpreter for ``member``. Its own process group keeps a terminal's Ctrl-C
    away from it (the parent stops it); staying in the caller's session keeps it in the caller's
    scheduler group (Linux autogroup), so that its priority ranks it below the caller's own member
    instead of beside every other session on the machine."""
    return subprocess.Popen([sys.executable, "-c", _BOOT, member, priority], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0,
                            env=child_env())


def _take_child(member: str, priority: str) -> tuple[subprocess.Popen, bool]:
    """The warm spare for ``member`` if one is alive (then ``True``), else a fresh child."""
    global _SPARES_PID
    with _SPARES_LOCK:
        if _SPARES_PID != os.getpid():  # a forked process must not share its parent's children
            _SPARES.clear()
            _SPARES_PID = os.getpid()
        proc = _SPARES.pop((member, priority), None)
    if proc is not None and proc.poll() is None:
        return proc, True
    return _spawn(member, priority), False


def _replenish(member: str, priority: str) -> None:
    with _SPARES_LOCK:
        if _SPARES_PID != os.getpid():
            return
        old = _SPARES.get((member, priority))
        if old is None or old.poll() is not None:
            _SPARES[(member, priority)] = _spawn(member, priority)


def discard_spares() -> None:
    """Stop the warm child members this process keeps (also done at exit)."""
    with _SPARES_LOCK:
        spares = list(_SPARES.values()) if _SPARES_PID == os.getpid() else []
        _SPARES.clear()
    for proc in spares:
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                f.close()
            except OSError:  # pragma: no cover
                pass


atexit.register(discard_spares)


def _stoppable(backend) -> bool:
    """Whether ``backend._solve`` takes a ``stop`` event (then it can race in this process)."""
    try:
        return "stop" in inspect.signature(backend._solve).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def _local(backend, model, settings, deadline_epoch, stop, answers) -> None:
    """The in-process member: same settings, what is left of the limit, stopped by ``stop``."""
    if deadline_epoch is not None:
        settings = dataclasses.replace(settings, time_limit=max(1e-3, deadline_epoch - time.time()))
    try:
        sol = backend._solve(model, settings, stop=stop)
    except Exception as exc:  # reported as this member's error, the race goes on
        sol = ModelSolution("error", None, None, None, backend.name, "", 0.0,
                            message=f"{type(exc).__name__}: {exc}")
    if not stop.is_set():
        answers.put((backend.name, sol))


def _talk(member: str, proc: subprocess.Popen, payload: bytes, answers: queue.Queue) -> None:
    """Feed one child its model and post its answer (an ``error`` solution if it failed)."""
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
        out = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait()
    except (BrokenPipeError, OSError, ValueError):  # killed while we talked to it
        return
    if proc.returncode != 0 or not out:
        if proc.returncode is not None and proc.returncode < 0:
            return  # killed by the parent: it is not an answer
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        answers.put((member, ModelSolution("error", None, None, None, member, "", 0.0,
                                           message=f"child failed: {tail[0]}")))
        return
    try:
        answers.put((member, pickle.loads(out)))
    except Exception as exc:  # pragma: no cover - a truncated answer
        answers.put((member, ModelSolution("error", None, None, None, member, "", 0.0,
                                           message=f"child answer unreadable: {exc}")))


def _main() -> None:
    # the pickled answer goes to the original stdout; solver output (C-level included) to stderr
    answer = os.fdopen(os.dup(1), "wb")
    sys.stdout.flush()
    os.dup2(2, 1)
    member = sys.argv[1]
    backend = get_solver(member)
    # import the solver now: a waiting (warm) child has it loaded before its model comes
    import importlib

    for module in _PRELOAD.get(member, ()):
        try:
            importlib.import_module(module)
        except ImportError:  # reported by the solve itself
            pass
    data = sys.stdin.buffer.read()
    if not data:  # the parent went away (or discarded this spare) without a model
        return
    model, settings, deadline_epoch = pickle.loads(data)
    if deadline_epoch is not None:
        settings = dataclasses.replace(settings, time_limit=max(1e-3, deadline_epoch - time.time()))
    solution = backend._solve(model, settings)
    answer.write(pickle.dumps(solution))
    answer.flush()


if __name__ == "__main__":
    _main()
