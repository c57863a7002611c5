"""What a run of the cluster simulator reports: :class:`SimulationResult` (completion, first start,
arrival, preemptions and GPU-seconds per job; unfinished jobs, end time, log) with the metrics
computed from it (flow time, total flow time, makespan), over read-only per-job views of the
engine's columns."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .jobs import Event

__all__ = ["SimulationResult"]


class _ArrayMap(Mapping):
    """A read-only ``{job id: value}`` view over a per-rank column (what results return).

    Compares equal to the dict of the same items and prints as one; entries whose value is NaN
    are absent when ``skip_nan`` (a job never completed has no completion instant).
    """

    __slots__ = ("_ids", "_values", "_rank", "_skip_nan", "_cast", "_len")

    def __init__(self, ids, values, rank, skip_nan: bool, cast):
        self._ids, self._values, self._rank, self._skip_nan, self._cast = ids, values, rank, skip_nan, cast
        self._len = sum(1 for v in values if v == v) if skip_nan else len(values)

    def __getitem__(self, job_id):
        rank = self._rank(job_id)
        if rank is None:
            raise KeyError(job_id)
        value = self._values[rank]
        if self._skip_nan and value != value:
            raise KeyError(job_id)
        return self._cast(value)

    def __iter__(self):
        if not self._skip_nan:
            return iter(self._ids)
        return (job_id for job_id, value in zip(self._ids, self._values) if value == value)

    def __len__(self) -> int:
        return self._len

    def items(self):
        cast = self._cast
        pairs = zip(self._ids, self._values)
        if self._skip_nan:
            return [(job_id, cast(v)) for job_id, v in pairs if v == v]
        return [(job_id, cast(v)) for job_id, v in pairs]

    def values(self):
        return [v for _, v in self.items()]

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    __hash__ = None  # mutable-looking mapping: unhashable, like a dict


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :meth:`Simulator.run`.

    ``completion``, ``start_first`` and ``arrival`` map job ids to instants (jobs never
    completed or never started are absent from the first two); ``preemptions`` and
    ``gpu_seconds`` have an entry for every job; ``unfinished`` lists, by id, the jobs not done
    at the end; ``end_time`` is the clock at the end; ``log`` is empty unless the log was
    recorded.  The mappings are read-only views over the engine's columns (they compare equal
    to, and print as, the dicts of their items; ``dict(result.completion)`` copies one), in
    arrival order.
    """

    completion: Mapping[int, float]
    start_first: Mapping[int, float]
    arrival: Mapping[int, float]
    preemptions: Mapping[int, int]
    gpu_seconds: Mapping[int, float]
    unfinished: tuple[int, ...]
    end_time: float
    log: list[Event]

    def flow_time(self, job_id: int) -> float:
        """Completion minus arrival of ``job_id``; ``inf`` if the job did not complete."""
        if job_id not in self.completion:
            if job_id not in self.arrival:
                raise KeyError(job_id)
            return math.inf
        return self.completion[job_id] - self.arrival[job_id]

    @property
    def total_flow_time(self) -> float:
        """Sum of the flow times; ``inf`` if some job is unfinished."""
        if self.unfinished:
            return math.inf
        arrival = self.arrival
        return math.fsum(done - arrival[job_id] for job_id, done in self.completion.items())

    @property
    def makespan(self) -> float:
        """Last completion instant (0 without jobs); ``inf`` if some job is unfinished."""
        if self.unfinished:
            return math.inf
        return max(self.completion.values(), default=0.0)
