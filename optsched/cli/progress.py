"""Progress of a long solve on stderr (``solve``; ``--quiet`` turns it off)."""

from __future__ import annotations

import sys
import threading
import time


class Progress:
    """Progress of a solve on stderr: elapsed time, the method's own messages and, for HiGHS MIP
    solves, incumbent, bound, gap and nodes as they improve (HiGHS callbacks). A live line on a
    terminal; elsewhere a log line at most every ``log_interval`` seconds (none for a solve
    shorter than that). ``enabled=False`` (``--quiet``) writes nothing."""

    def __init__(self, label: str, stream=None, interval: float = 1.0, *, enabled: bool = True,
                 log_interval: float = 5.0, live: bool | None = None, clock=time.monotonic):
        from ..repro.progress import StatusLine

        self.label, self.interval, self.enabled, self.clock = label, interval, enabled, clock
        self.line = StatusLine(sys.stderr if stream is None else stream, interval=log_interval, live=live,
                               clock=clock)
        self.message = ""
        self.fraction: float | None = None
        self.info: dict | None = None
        self._version = self._written = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._listening = None

    def __call__(self, message: str, fraction: float | None = None) -> None:
        """The method's own progress (``ctx.report``)."""
        self.message, self.fraction = message, fraction
        self._version += 1

    def on_solver(self, info: dict) -> None:
        """A HiGHS callback's incumbent, bound and gap (runs in the solver thread: store only)."""
        self.info = info
        self._version += 1

    def text(self) -> str:
        from ..repro.progress import solve_line

        return solve_line(self.label, self.clock() - self.line.start, self.info, self.message[:50], self.fraction)

    def tick(self) -> bool:
        """Offer the current state to the line; returns whether a line was written."""
        version = self._version
        written = self.line.update(self.text(), changed=version != self._written)
        if written:
            self._written = version
        return written

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()

    def __enter__(self):
        if self.enabled:
            from ..core.backends.highs import progress_listener

            self._listening = progress_listener(self.on_solver)
            self._listening.__enter__()
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._listening is not None:
            self._listening.__exit__(None, None, None)
            self._listening = None
        self.line.clear()
