"""The solve context's clock inside the chain-partition DPs: polled at a bounded cost, and what
a DP had proven when the budget ran out [ours].

The DP engines of :mod:`.dp` and the partition problem's mapping searches do their own work (no model
solve hands the time limit to a back-end), so they poll the context's clock themselves (the house
rule: the context owns the budget). Reading the clock on every state would cost a measurable share
of the run (a state of the reachability probe is a few microseconds of numpy work), so the loops
call :meth:`Poll.tick` (a counter decrement, about 0.1 us) once per unit of work -- a (stage count,
key) state of a probe or of the label DP, a label, a successor orbit, a batch of enumerated orbits
-- and the clock is read once every :data:`POLL_EVERY` units. A unit is at most about a
millisecond on the published topologies (the benchmark ``bench_topology_mapping.py`` of
``make bench`` measures the overrun past the limit and the polling overhead), so a run stops
within a fraction of a second of its limit.

When the budget is spent the poll raises :class:`SearchStopped` (a :class:`TimeLimitReached`)
through the DP, which adds what it had *proven* so far: the best plan of its search space it had
found and, for the bottleneck threshold search, the largest threshold whose probe failed (no plan
of the space is that fast). The methods turn that into a ``time_limit`` result; a lower bound of a
space is a bound on OPT only when the space is exact or a relaxation (the methods check).

>>> from optsched.pipeline.partition.clock import Poll
>>> p = Poll(None, every=4)        # no context: ticking never raises
>>> for _ in range(10):
...     p.tick()
>>> p.reads
0
"""

from __future__ import annotations

from optsched.core.solving import SolveContext, TimeLimitReached

__all__ = ["POLL_EVERY", "Poll", "SearchStopped", "as_poll"]

#: units of work between two reads of the clock (a unit is a DP state, a label, a successor
#: orbit: microseconds to about a millisecond each) [ours, measured in the benchmark]
POLL_EVERY = 64


class SearchStopped(TimeLimitReached):
    """The budget ran out inside a DP over one search space.

    ``plan``/``value``: the best plan of the space found so far (None, inf: none); ``lower``: a
    value no plan of the space beats, proven by the search (None: nothing proven). ``lower`` bounds
    OPT only if the space is exact or a relaxation of the problem; ``value`` is in the DP's
    objective (the bottleneck for :func:`.dp.bottleneck_dp`, the label DP's objective otherwise).
    """

    def __init__(self, message: str = "time limit reached", *, lower: float | None = None,
                 value: float = float("inf"), plan=None):
        super().__init__(message, None)
        self.lower, self.value, self.plan = lower, value, plan


class Poll:
    """Reads ``ctx``'s clock once every ``every`` units of work (:meth:`tick`).

    Raises :class:`SearchStopped` when the budget is spent, once: after that the poll is disarmed,
    so the bounded wrap-up of the caller (realizing the best plan found) cannot raise again.
    ``reads`` counts the clock reads (the polling overhead in the benchmark)."""

    __slots__ = ("ctx", "every", "left", "reads", "stopped")

    def __init__(self, ctx: SolveContext | None, every: int | None = None):
        self.ctx = ctx
        self.every = POLL_EVERY if every is None else int(every)
        self.left = self.every
        self.reads = 0
        self.stopped = False

    def tick(self, units: int = 1) -> None:
        self.left -= units
        if self.left <= 0:
            self.left = self.every
            self.check()

    def check(self) -> None:
        """Read the clock now (for the start of a long phase)."""
        if self.ctx is None or self.stopped:
            return
        self.reads += 1
        if self.ctx.expired():
            self.stopped = True
            raise SearchStopped(f"time limit of {self.ctx.time_limit} s reached")


def as_poll(clock) -> Poll:
    """A :class:`Poll` from a poll (itself), a :class:`SolveContext` or None (never raises)."""
    if isinstance(clock, Poll):
        return clock
    return Poll(clock)
