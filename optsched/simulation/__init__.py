"""The simulation layer, below the problems: one event/clock convention for every simulator.

* :mod:`.cluster`: the discrete-event GPU-cluster simulator (arrivals, starts, preemptions with
  restart overhead, rate changes, ticks) that carries the online scheduling problems;
* :mod:`.pipeline`: the exact event simulator of one synchronous pipeline iteration (GPipe,
  1F1B, kFkB or any order) with its lower bound, shared by the pipeline problems;
* :mod:`.slots`: the slot convention of slotted policies on the cluster simulator.

Convention: time is a float in the problem's unit; the events of one instant are processed as
completions, then arrivals, then the tick; ties are broken by job id, so a deterministic policy
gives the same run every time. A policy evaluated by simulation is registered as a method whose
problem's checker re-simulates the returned decisions.
"""

from __future__ import annotations

from .cluster import (Allocation, Cluster, Event, FifoPolicy, JobTable, Policy, SimJob, SimulationError, SimulationResult,
                      Simulator)
from .slots import SLOTS, SlotClock

__all__ = ["Allocation", "Cluster", "Event", "FifoPolicy", "JobTable", "Policy", "SimJob", "SimulationError",
           "SimulationResult", "Simulator", "SLOTS", "SlotClock"]
