"""A budget that runs out at a chosen point of a run, for the tests of the clock checks inside the
methods' loops (problem-free; no wall time is read or asserted).

:func:`solve_with_counting_clock` runs :func:`optsched.solve` with a time limit of an hour whose
clock is a counter: every call of :meth:`SolveContext.expired` (hence ``check_time``) and of
:meth:`SolveContext.remaining` is one *read*. The budget is spent

* from the ``expire_after + 1``-th read on (``expire_after``), or
* once the ``expire_after_work``-th unit of work has started (``expire_after_work``): ``work``
  lists ``(object, attribute name)`` pairs of the functions that do a loop's units of work, each
  wrapped to count its calls. A unit started after the budget was spent is recorded in
  ``clock.late``: a loop whose check was removed goes on working past the spent budget, so a
  test bounding ``len(clock.late)`` fails for it.

A run with neither counts the reads and units a whole run makes (``clock.reads``,
``clock.work``), so a test can stop a run inside a chosen loop, identically on every machine.
``solve_model`` sees the spent budget through ``remaining`` and answers ``time_limit`` without
calling the back-end, so a model whose building loop did not stop shows as a recorded sub-solve.

:class:`Polls` (a clock check handed to a loop directly) and :class:`CountingContext` (a context
whose budget is spent at its k-th read) serve the tests that call a method's functions themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import optsched
from optsched.core.solving import SolveContext, TimeLimitReached


@dataclass
class CountingClock:
    expire_after: int | None = None
    expire_after_work: int | None = None
    reads: int = 0
    work: int = 0
    late: list = field(default_factory=list)

    @property
    def was_spent(self) -> bool:
        """Whether the budget is spent now (no read itself)."""
        return ((self.expire_after is not None and self.reads > self.expire_after)
                or (self.expire_after_work is not None and self.work >= self.expire_after_work))

    def spent(self) -> bool:
        self.reads += 1
        return self.was_spent


def solve_with_counting_clock(instance, method: str, expire_after: int | None = None, *,
                              expire_after_work: int | None = None, work=(), **kw):
    """``(result, clock)`` of ``optsched.solve(instance, method, time_limit=3600, **kw)`` with the
    counting clock."""
    clock = CountingClock(expire_after, expire_after_work)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SolveContext, "expired", lambda self: clock.spent())
        mp.setattr(SolveContext, "remaining", lambda self: -1.0 if clock.spent() else 3600.0)
        for owner, name in work:
            mp.setattr(owner, name, _watched(clock, getattr(owner, name), name))
        result = optsched.solve(instance, method, time_limit=3600.0, **kw)
    return result, clock


def _watched(clock: CountingClock, fn, name: str):
    def wrapper(*args, **kwargs):
        if clock.was_spent:
            clock.late.append(name)
        clock.work += 1
        return fn(*args, **kwargs)
    return wrapper


def stops(total: int, count: int = 10, first: int = 0) -> list[int]:
    """Points to stop at in ``first..total-1+first``: the first few, the last few, and evenly
    spaced ones between."""
    last = first + total - 1
    picks = set(range(first, min(last, first + 3) + 1)) | set(range(max(first, last - 3), last + 1))
    picks |= {first + round(i * (total - 1) / (count - 1)) for i in range(count)}
    return sorted(picks)


def cli_wall_over_limit(tmp_path, problem: str, method: str, generator: dict, *, limit: float = 5.0,
                        options: dict | None = None, seed: int = 0) -> dict:
    """For the benchmarks (wall time, reported, never asserted): generate an instance of
    ``problem`` with ``generator`` options, then time the whole command ``optsched solve ...
    --time-limit limit`` in a fresh interpreter (start-up, imports, reading, hashing, the method,
    writing, exit). Returns the command's and the method's wall, both over the limit, and the
    status; ``load`` is the machine's 1-minute load average at the end (2 cores)."""
    import json
    import os
    import subprocess
    import sys
    import time

    inst = optsched.generate(problem, seed=seed, **generator)
    path, out = tmp_path / "inst.json", tmp_path / "result.json"
    inst.save(path)
    cmd = [sys.executable, "-m", "optsched.cli", "solve", problem, str(path), "--method", method,
           "--time-limit", str(limit), "--quiet", "-o", str(out)]
    for name, value in (options or {}).items():
        cmd += ["--option", f"{name}={json.dumps(value)}"]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    info = {"problem": problem, "method": method, "generator": generator, "options": options or {},
            "limit_s": limit, "exit": done.returncode, "cli_wall_s": round(wall, 2),
            "cli_wall_over_limit": round(wall / limit, 2), "load": os.getloadavg()[0]}
    if out.exists():
        result = json.loads(out.read_text())
        info.update(status=result["status"], method_wall_s=round(result["wall_s"], 2),
                    method_wall_over_limit=round(result["wall_s"] / limit, 2))
    else:
        info["stderr"] = done.stderr.strip().splitlines()[-1:] if done.stderr else []
    return info


class Polls:
    """A clock check that counts its calls and stops (raises, or answers True) from the
    ``stop_at``-th call on (None: never)."""

    def __init__(self, stop_at: int | None = None):
        self.stop_at, self.calls = stop_at, 0

    def expired(self) -> bool:
        self.calls += 1
        return self.stop_at is not None and self.calls >= self.stop_at

    def __call__(self) -> None:
        if self.expired():
            raise TimeLimitReached("stopped")


@dataclass
class CountingContext(SolveContext):
    """A context whose budget is spent at the ``expire_at``-th read of its clock."""

    expire_at: int | None = None
    reads: int = 0

    def expired(self) -> bool:
        self.reads += 1
        return self.expire_at is not None and self.reads >= self.expire_at
