"""Policies of the cluster simulator: the :class:`Policy` hooks (arrival, completion, tick) a
scheduling policy overrides, and :class:`FifoPolicy`, strict first-come first-served on the
fewest servers (the base of the tests' and several problems' policies). A policy acts through the
:class:`~optsched.simulation.cluster.Simulator` it receives; this module does not import it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .jobs import SimJob

__all__ = ["Policy", "FifoPolicy", "RateModel"]


class Policy:
    """Base class of scheduling policies: every hook is an optional no-op.

    Subclasses override the hooks they need and act through the simulator they receive
    (:meth:`Simulator.start`, :meth:`Simulator.preempt`, :meth:`Simulator.set_rate`).
    """

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Called when ``job`` arrives (it is then waiting)."""

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Called when ``job`` completes (its GPUs are already free)."""

    def on_tick(self, sim: Simulator, now: float) -> None:
        """Called at every multiple of the simulator's ``tick``, if it has one."""


RateModel = Callable[[SimJob, Mapping[int, int]], float]


class FifoPolicy(Policy):
    """Strict first-come first-served: start waiting jobs in arrival order while the head fits.

    After every arrival and completion, the oldest waiting job is started on exactly its demand
    of ``job.gpus`` GPUs if that many are free in the cluster, then the next one, and so on; the
    first job that does not fit blocks the jobs behind it.  GPUs are placed by :meth:`place`,
    on the fewest servers.  The rate is ``rate`` work units per second, or ``rate(job, gpus)``
    when ``rate`` is a callable receiving the job and its ``{server: GPU count}`` placement.
    """

    def __init__(self, rate: float | RateModel = 1.0):
        """Use a constant ``rate`` or a rate model ``rate(job, gpus_by_server)``."""
        self._rate = rate

    @staticmethod
    def place(free_gpus: Sequence[int], demand: int) -> dict[int, int] | None:
        """Place ``demand`` GPUs on the fewest servers, or return ``None`` if too few are free.

        Rule: servers are taken by decreasing number of free GPUs (ties: lower index) and
        filled completely as long as the rest of the demand exceeds the next server's free
        GPUs; the rest then goes to the server, among those not yet used, with the fewest free
        GPUs that still holds it (best fit; ties: lower index).  This uses the minimum number of
        servers and keeps large free blocks intact.  The result is ordered by server index.

        >>> FifoPolicy.place([2, 1, 3], 1)
        {1: 1}
        >>> FifoPolicy.place([8, 5, 3], 11)
        {0: 8, 2: 3}
        >>> FifoPolicy.place([1, 1], 3) is None
        True
        """
        if demand > sum(free_gpus):
            return None
        most_free = max(free_gpus)
        if most_free >= demand:  # one server suffices: best fit, scanning the counts upwards
            for count in range(demand, most_free + 1):
                if count in free_gpus:
                    return {free_gpus.index(count): demand}
        placement: dict[int, int] = {}
        rest = demand
        for server in sorted(range(len(free_gpus)), key=lambda s: (-free_gpus[s], s)):
            if free_gpus[server] >= rest:
                break
            placement[server] = free_gpus[server]
            rest -= free_gpus[server]
        _, best = min(
            (free, server)
            for server, free in enumerate(free_gpus)
            if free >= rest and server not in placement
        )
        placement[best] = rest
        return dict(sorted(placement.items()))

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Start what fits (the new job, if nothing waits before it)."""
        self._dispatch(sim)

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Start what fits in the GPUs just freed."""
        self._dispatch(sim)

    def _dispatch(self, sim: Simulator) -> None:
        """Start waiting jobs in arrival order until the head does not fit."""
        while True:
            head = sim.first_waiting()
            if head is None or head.gpus > sim.total_free_gpus():
                return
            placement = self.place(sim.free_gpus(), head.gpus)
            rate = self._rate(head, placement) if callable(self._rate) else self._rate
            sim.start(head.id, gpus=placement, rate=rate)
