"""Progress lines on stderr for long runs (``optsched solve``, ``optsched repro``).

On a terminal a :class:`StatusLine` is one line rewritten in place (``\\r``); anywhere else (a log
file, CI, a pipe) it appends ordinary lines, at most one every ``interval`` seconds and none
before the run is ``interval`` seconds old, so a short run adds nothing to a log and a long one
is never silent. The formatting helpers are pure functions (tested without clocks).
"""

from __future__ import annotations

import math
import time
from typing import Callable, TextIO

__all__ = ["StatusLine", "format_duration", "format_value", "estimate_eta", "repro_line", "solve_line"]


def format_duration(seconds: float | None) -> str:
    """Seconds for people: ``"42 s"``, ``"3 min 05 s"``, ``"2 h 07 min"``; ``"?"`` if unknown.

    >>> format_duration(4.2), format_duration(185), format_duration(7620), format_duration(None)
    ('4 s', '3 min 05 s', '2 h 07 min', '?')
    """
    if seconds is None or not math.isfinite(seconds):
        return "?"
    s = int(round(max(0.0, seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def format_value(value: float | None) -> str:
    """An objective or bound, short: ``"-"`` when unknown, up to 8 significant digits.

    >>> format_value(131908.0), format_value(132110.70447), format_value(None), format_value(1.5e-7)
    ('131908', '132110.7', '-', '1.5e-07')
    """
    if value is None:
        return "-"
    if value == int(value) and abs(value) < 1e12:
        return str(int(value))
    return f"{value:.8g}"


def estimate_eta(computed: int, remaining: int, elapsed: float) -> float | None:
    """Seconds left, from the throughput so far: ``remaining * elapsed / computed`` (cells run in
    parallel count through the elapsed wall time). None before the first cell finished.

    >>> estimate_eta(4, 6, 20.0), estimate_eta(0, 6, 20.0), estimate_eta(5, 0, 9.0)
    (30.0, None, 0.0)
    """
    if remaining <= 0:
        return 0.0
    if computed <= 0 or elapsed <= 0:
        return None
    return remaining * elapsed / computed


def repro_line(label: str, done: int, total: int, reused: int, elapsed: float) -> str:
    """The progress of one sweep: cells done of total, how many were reused, elapsed and ETA.

    >>> repro_line("T5", 32, 40, 30, 12.0)
    'T5: 32/40 cells (30 reused, 2 computed), 12 s, ETA 48 s'
    >>> repro_line("T5", 30, 40, 30, 1.0)
    'T5: 30/40 cells (30 reused, 0 computed), 1 s, ETA ?'
    """
    computed = done - reused
    eta = estimate_eta(computed, total - done, elapsed)
    return (f"{label}: {done}/{total} cells ({reused} reused, {computed} computed), "
            f"{format_duration(elapsed)}, ETA {format_duration(eta)}")


def solve_line(label: str, elapsed: float, info: dict | None = None, message: str = "",
               fraction: float | None = None) -> str:
    """The progress of one solve: elapsed time, and the exact solver's incumbent, bound, gap and
    nodes (``info`` of :func:`optsched.core.backends.highs.progress_listener`) or the method's
    own message.

    >>> solve_line("mknap/milp", 12.4, {"incumbent": 131908.0, "bound": 132110.70447, "gap": 0.0015367,
    ...                                  "nodes": 376, "time": 12.0, "sense": "max"})
    'mknap/milp: 12 s  incumbent 131908  bound 132110.7  gap 0.154%  nodes 376'
    >>> solve_line("srpt/online", 3.0, None, "simulating", 0.25)
    'srpt/online: 3 s  25.0%  simulating'
    >>> solve_line("mknap/milp", 1.0, {"incumbent": None, "bound": None, "gap": None, "nodes": 0})
    'mknap/milp: 1 s  incumbent -  bound -  gap -  nodes 0'
    """
    parts = [f"{label}: {format_duration(elapsed)}"]
    if info is not None:
        gap = info.get("gap")
        gap_text = "-" if gap is None or not math.isfinite(gap) else f"{100 * gap:.3g}%"
        parts.append(f"incumbent {format_value(info.get('incumbent'))}  bound {format_value(info.get('bound'))}"
                     f"  gap {gap_text}  nodes {info.get('nodes', 0)}")
    if fraction is not None:
        parts.append(f"{100 * fraction:.1f}%")
    if message:
        parts.append(message)
    return "  ".join(parts)


class StatusLine:
    """One progress line on ``stream``: live on a terminal, periodic log lines elsewhere.

    :meth:`update` offers a new text. Live (``stream.isatty()``): it is written at once over the
    previous one. Otherwise it is written as a line of its own when ``changed`` and at least
    ``interval`` seconds passed since the start and since the last line, or, unchanged, after
    ``heartbeat`` seconds (a long quiet phase still shows that the run is alive). ``force``
    writes regardless. ``clock`` is injectable for tests.
    """

    def __init__(self, stream: TextIO, *, interval: float = 5.0, heartbeat: float = 30.0,
                 live: bool | None = None, clock: Callable[[], float] = time.monotonic):
        self.stream, self.interval, self.heartbeat, self.clock = stream, interval, heartbeat, clock
        self.live = (hasattr(stream, "isatty") and stream.isatty()) if live is None else live
        self.start = clock()
        self._last_write = self.start
        self._width = 0

    def due(self, changed: bool = True) -> bool:
        """Whether :meth:`update` would write now."""
        if self.live:
            return True
        since = self.clock() - self._last_write
        return since >= self.heartbeat or (changed and since >= self.interval)

    def update(self, text: str, changed: bool = True, force: bool = False) -> bool:
        """Offer ``text``; returns whether it was written."""
        if not (force or self.due(changed)):
            return False
        if self.live:
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self._last_write = self.clock()
        self.stream.flush()
        return True

    def clear(self) -> None:
        """Remove the live line (nothing to do for log lines)."""
        if self.live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
