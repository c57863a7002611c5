"""The one clock convention of optsched's simulators, for slotted policies [ours].

Every simulator in :mod:`optsched.simulation` keeps time as a float, in the problem's unit
(seconds, or slots), and processes the events of one instant in the order *completions, then
arrivals, then the tick*. The cluster simulator ticks at ``k * tick`` for ``k = 1, 2, ...``
(never at time 0). A slotted problem (slot length 1) therefore maps

* slot ``t`` to the simulator interval ``[t + 1, t + 2)``: the tick at time ``t + 1`` decides
  slot ``t``, after that instant's completions and arrivals;
* a job released at slot ``a`` to the arrival time ``a + 1`` (so it is seen by slot ``a``'s tick);
* a horizon of ``H`` slots to ``max_time = H + 1``;
* a completion at time ``c`` to the slot ``ceil(c) - 2`` (the last slot in which it progressed).

:data:`SLOTS` is that mapping; every slotted policy on the cluster simulator uses it instead of
writing the ``+ 1`` itself.

>>> SLOTS.arrival_time(0), SLOTS.slot_at(1.0), SLOTS.max_time(24), SLOTS.completion_slot(3.5)
(1.0, 0, 25.0, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SlotClock", "SLOTS"]


@dataclass(frozen=True)
class SlotClock:
    """Slots of length 1 on the simulator's clock, shifted by ``offset`` (ticks start at 1)."""

    offset: float = 1.0

    def arrival_time(self, slot: int) -> float:
        """Simulator time at which a job released at ``slot`` arrives."""
        return float(slot) + self.offset

    def slot_at(self, now: float) -> int:
        """The slot a tick at simulator time ``now`` decides."""
        return int(round(now - self.offset))

    def max_time(self, horizon: int) -> float:
        """Simulator end time of a horizon of ``horizon`` slots."""
        return float(horizon) + self.offset

    def completion_slot(self, time: float) -> int:
        """The slot in which a job completing at simulator time ``time`` made its last progress."""
        return math.ceil(time - 1e-12) - 1 - int(self.offset)


SLOTS = SlotClock()
