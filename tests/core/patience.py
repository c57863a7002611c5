"""Waiting without reading the machine's speed: events, and guards scaled by the machine's load.

A test that starts processes or sends signals waits for an *event* (a process appearing, a signal
handler installed, a process gone), never for a fixed time. The deadline of such a wait is only a
guard against hanging forever, not an assertion about speed: it is a generous base stretched by
how oversubscribed the CPUs are (:func:`load_factor`), so that a machine running many times more
work than it has cores still passes, while a test whose event never comes still fails.

A time limit given to a solve is likewise stretched (:func:`patient`) when the test needs the solve
to reach a point (an incumbent, a root bound) before the limit, and doubled while it has not
(:func:`growing_limit`): how long that takes depends on the machine, whether the answer at the limit
carries its point, bound and gap does not. What a test asserts about a limit is its honesty
(``time_limit``, never ``optimal``) and what the answer carries, not how fast the machine is.
"""

from __future__ import annotations

import os
import time
from typing import Callable, TypeVar

import pytest

__all__ = ["load_factor", "patient", "wait_until", "growing_limit"]

T = TypeVar("T")


def load_factor() -> float:
    """Runnable work per core, at least 1: the larger of the 1-minute load average and the number
    of tasks running or waiting for a CPU right now (``/proc/loadavg``'s fourth field, less this
    process), each divided by the core count. The load average lags a sudden load by a minute; the
    instantaneous count does not."""
    cores = os.cpu_count() or 1
    runnable = 0.0
    try:
        with open("/proc/loadavg") as fh:
            runnable = max(0.0, float(fh.read().split()[3].split("/")[0]) - 1.0)
    except (OSError, ValueError, IndexError):
        pass
    try:
        average = os.getloadavg()[0]
    except (OSError, AttributeError):
        average = 0.0
    return max(1.0, average / cores, runnable / cores)


def patient(base_s: float) -> float:
    """``base_s`` stretched by :func:`load_factor`: a guard or a limit for a busy machine."""
    return base_s * load_factor()


def wait_until(event: Callable[[], T], what: str, base_s: float = 60.0, poll_s: float = 0.05) -> T:
    """Poll ``event()`` until it returns something true and return it; fail the test (naming
    ``what``) when it has not happened within :func:`patient` ``(base_s)`` seconds. The guard is
    measured again at every poll, so a load that rises during the wait stretches it."""
    start = time.monotonic()
    while True:
        value = event()
        if value:
            return value
        waited = time.monotonic() - start
        if waited > patient(base_s):
            pytest.fail(f"{what}: not within {waited:.0f} s (guard {base_s:g} s x load factor "
                        f"{load_factor():.1f})")
        time.sleep(poll_s)


def growing_limit(solve: Callable[[float], T], reached: Callable[[T], bool], base_s: float,
                  cap_s: float = 20.0) -> T:
    """``solve(limit)`` with ``limit = patient(base_s)``, doubled and solved again while
    ``reached(result)`` is false (the solve stopped at its limit before it had what the test
    needs, e.g. a first point: a starved process) and the limit is below ``patient(cap_s)``.
    Returns the last result, for the test's assertions: the test checks every answer's honesty
    itself (``solve`` may assert), and a solve that never reaches its point still fails there."""
    limit = patient(base_s)
    while True:
        result = solve(limit)
        if reached(result) or limit >= patient(cap_s):
            return result
        limit *= 2
