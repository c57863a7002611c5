"""One clock for a solve's time budget: a :class:`Deadline` and the command's start (its anchor).

A time limit is a budget of wall time. :func:`optsched.solve` turns ``time_limit`` into one
:class:`Deadline` (the context's, :attr:`optsched.core.solving.SolveContext.clock`), and every
loop of a method polls that same object or a :meth:`Deadline.sub` deadline cut from it, never a
clock of its own: a stage's share of the time is an earlier deadline of the same clock.

**Anchor.** A library call's budget starts when :func:`optsched.solve` starts the method. The
command line (``optsched solve ... --time-limit T``) promises more: the whole command -- the
interpreter's start, the imports, reading the file, the core's hashing of the instance, the
solve and writing the result -- ends within ``T``. It calls :func:`anchor_at_process_start`
first thing, which records when this process started; the next budget started by
:func:`optsched.solve` then runs from that moment instead (and the anchor is consumed: a second
solve in the same process starts its own budget). Whatever start-up took, the method keeps at
least :data:`MIN_SHARE` of ``T`` (on a loaded machine or with a very short limit the command may
then overrun, but it answers with a plan and a bound rather than nothing) [ours].
"""

from __future__ import annotations

import math
import os
import sys
import time

__all__ = ["Deadline", "anchor_at_process_start", "is_command_line", "set_anchor", "take_anchor", "process_start", "MIN_SHARE"]

#: the least share of a time limit a method gets, whatever the command's start-up took
MIN_SHARE = 0.2

_anchor: list = []  # [perf_counter instant] while an anchor is set


def process_start() -> float:
    """The :func:`time.perf_counter` instant at which this process started (Linux: from
    ``/proc/self/stat`` against the boot clock, 10 ms resolution), or now where that is not
    available. Never later than now."""
    now = time.perf_counter()
    try:
        with open("/proc/self/stat", "rb") as fh:
            raw = fh.read().decode()
        # the fields after the command name (which may hold spaces) start after its last ')'
        fields = raw[raw.rindex(")") + 2:].split()
        ticks = int(fields[19])  # starttime: field 22, clock ticks after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    if not (0.0 <= age < 3600.0):  # a clock oddity: never anchor in the future or hours back
        return now
    return now - age


def set_anchor(instant: float | None) -> None:
    """Anchor the next budget at ``instant`` (a perf_counter value; None clears the anchor)."""
    _anchor.clear()
    if instant is not None:
        _anchor.append(float(instant))


def is_command_line(argv0: str | None = None) -> bool:
    """Whether this process runs optsched's command line: the ``optsched`` console script or
    ``python -m optsched.cli`` (whose ``sys.argv[0]`` is then the module's file: ``cli.py``, or
    ``cli/__main__.py`` when the command line is a package).

    >>> is_command_line("/venv/bin/optsched"), is_command_line("/src/optsched/cli.py")
    (True, True)
    >>> is_command_line("/src/optsched/cli/__main__.py")
    True
    >>> is_command_line("/venv/bin/pytest")
    False
    """
    from .startup import is_cli_process

    if argv0 is None:
        argv0 = sys.argv[0] if sys.argv else ""
    parts = os.path.normpath(argv0).split(os.sep)
    return (os.path.basename(argv0) == "optsched" or parts[-2:] == ["optsched", "cli.py"]
            or parts[-3:] == ["optsched", "cli", "__main__.py"] or is_cli_process())


def anchor_at_process_start() -> float | None:
    """Anchor the next budget at this process's start, when this process is optsched's command
    line (:func:`optsched.core.startup.is_cli_process`); elsewhere (a test or a program calling
    ``optsched.cli.main`` in a long-lived process) nothing is anchored. Returns the anchor."""
    if not is_command_line():
        return None
    t = process_start()
    set_anchor(t)
    return t


def take_anchor() -> float | None:
    """The anchor, consumed (None when none is set)."""
    return _anchor.pop() if _anchor else None


class Deadline:
    """A perf_counter instant after which work stops (``at = inf``: no limit).

    >>> d = Deadline.after(None)
    >>> d.limited, d.expired(), d.remaining()
    (False, False, inf)
    >>> d.sub(5.0).limited
    True
    >>> Deadline.after(10.0).sub(share=0.5).remaining() <= 5.0
    True
    """

    __slots__ = ("at",)

    def __init__(self, at: float = math.inf):
        self.at = float(at)

    @classmethod
    def after(cls, seconds: float | None, *, start: float | None = None) -> "Deadline":
        """``seconds`` from ``start`` (default now); None: no limit."""
        if seconds is None:
            return cls()
        return cls((time.perf_counter() if start is None else start) + float(seconds))

    @property
    def limited(self) -> bool:
        return math.isfinite(self.at)

    def remaining(self) -> float:
        return self.at - time.perf_counter() if self.limited else math.inf

    def expired(self) -> bool:
        return self.limited and time.perf_counter() >= self.at

    def sub(self, seconds: float | None = None, *, share: float | None = None) -> "Deadline":
        """An earlier deadline of the same clock: ``seconds`` from now, or ``share`` of the time
        left (without a limit, ``share`` gives no limit), never later than this one."""
        now = time.perf_counter()
        at = self.at
        if seconds is not None:
            at = min(at, now + max(0.0, float(seconds)))
        if share is not None and self.limited:
            at = min(at, now + max(0.0, share * (self.at - now)))
        return Deadline(at)

    def __repr__(self) -> str:
        return f"Deadline(remaining={self.remaining():.3f}s)" if self.limited else "Deadline(unlimited)"
